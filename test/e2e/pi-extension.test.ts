import { describePiExtension } from "./harness/pi-extension-suite.js"
import { PI_0_73 } from "./harness/pi-harness.js"

// Pi 1.x (under Node 22) runs the same assertions in pi-1-extension.slow.test.ts.
describePiExtension(PI_0_73)
