import { existsSync } from "node:fs"
import { describePiExtension } from "./harness/pi-extension-suite.js"
import { PI_1 } from "./harness/pi-harness.js"

// Pi 1.x needs Node >= 22.19: the Node 22 of test/hosts/pi-1 runs it, where the root's better-sqlite3 (built for the
// tests' Node) does not load and the store opens with node:sqlite. Pi 0.73 runs the same assertions in
// pi-extension.test.ts.
if (!existsSync(PI_1.bin) || !existsSync(PI_1.node)) {
  throw new Error(`Pi 1.x is not installed (${PI_1.bin}, ${PI_1.node}): run node scripts/install-test-hosts.mjs`)
}
describePiExtension(PI_1)
