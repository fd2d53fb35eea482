#!/usr/bin/env node
// Installs the host packages the end-to-end tests run that the root install cannot hold: each folder of test/hosts
// is a private package with its own lockfile (test/hosts/pi-1: Pi 1.x and the Node 22 it needs, both from the npm
// registry). `npm ci` runs in a folder whose node_modules is missing or was installed from another lockfile;
// otherwise the folder is left as it is. `npm test`, `test:e2e` and `test:slow-e2e` run this first.
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const HOSTS = fileURLToPath(new URL("../test/hosts/", import.meta.url))
/** Written into a host's node_modules after `npm ci`: the hash of the lockfile it installed. */
const STAMP = ".magic-context-lock-sha256"

for (const name of readdirSync(HOSTS).sort()) {
  const dir = join(HOSTS, name)
  const lockfile = join(dir, "package-lock.json")
  if (!existsSync(lockfile)) continue
  const hash = createHash("sha256").update(readFileSync(lockfile)).digest("hex")
  const stamp = join(dir, "node_modules", STAMP)
  if (existsSync(stamp) && readFileSync(stamp, "utf8").trim() === hash) continue
  const started = performance.now()
  const npm = process.platform === "win32" ? "npm.cmd" : "npm"
  const run = spawnSync(npm, ["ci", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"], { stdio: "inherit" })
  if (run.status !== 0) {
    console.error(`install-test-hosts: npm ci in ${dir} failed (exit ${run.status ?? run.signal ?? run.error?.message})`)
    process.exit(1)
  }
  writeFileSync(stamp, `${hash}\n`)
  console.log(`install-test-hosts: installed test/hosts/${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}
