import { dirname } from "node:path"
import type { Check } from "./doctor-check.js"
import { inspectPiInstall, piPackageRoot, piSettingsFile, type PiInstall } from "../install/pi-install.js"
import { entryTarget, loadKey, loadsMagicContext, unloadableReason } from "../install/plugin-entry-target.js"
import { piProjectTrust, type PiProjectTrust } from "../install/pi-project-trust.js"

/**
 * Pi's side of an install: whether Pi's settings load the extension (once, from a path with a build or an installed
 * package), and Pi's own auto-compaction. A project without Pi settings is no failure: Pi may not be in use.
 */
export function checkPi(options: { directory: string; env: Record<string, string | undefined> }): Check[] {
  const install = inspectPiInstall(options)
  // Only an entry in the project's own settings depends on the project's trust; the global settings always load.
  const projectEntry = install.entries.some(({ file, entry }) => !isGlobalSettings(file, options.env) && loadsMagicContext(entryTarget(entry, dirname(file))))
  const trust: Check = projectEntry
    ? checkPiTrust(piProjectTrust(options))
    : { name: PI_TRUST_CHECK, status: "ok", detail: ["no project settings of Pi load magic-context: nothing depends on this project's trust"] }
  return [checkPiExtension(install, options.env), checkPiCompaction(install), trust]
}

const PI_TRUST_CHECK = "Pi project trust"

function isGlobalSettings(file: string, env: Record<string, string | undefined>): boolean {
  return file === piSettingsFile({ global: true, directory: "", env })
}

function checkPiTrust(trust: PiProjectTrust): Check {
  const name = PI_TRUST_CHECK
  const fix = "fix: answer Trust when Pi 1.x asks (or run /trust once), pass --approve to `pi -p`, or use `magic-context setup --pi --global`"
  if (trust.kind === "unreadable") return { name, status: "fail", detail: [`${trust.message}; Pi 1.x cannot read it either`, "fix: correct the file"] }
  if (trust.kind === "saved") {
    const said = `${trust.file}: ${trust.path} is ${trust.trusted ? "trusted" : "not trusted"}`
    if (trust.trusted) return { name, status: "ok", detail: [said] }
    return { name, status: "fail", detail: [said, "Pi 1.x does not read this project's .pi/settings.json, so it does not load magic-context from it", fix] }
  }
  if (trust.setting === "always") return { name, status: "ok", detail: [`defaultProjectTrust = "always" (${trust.source})`] }
  return {
    name,
    status: "warn",
    detail: [
      `no saved trust decision for this project; defaultProjectTrust = "${trust.setting}" (${trust.source})`,
      "Pi 1.x reads .pi/settings.json (and so loads magic-context from it) only in a trusted project; Pi 0.73 always does",
      fix,
    ],
  }
}

function checkPiExtension(install: PiInstall, env: Record<string, string | undefined>): Check {
  const name = "Pi extension"
  if (install.unreadable.length > 0) {
    return { name, status: "fail", detail: [...install.unreadable.map((message) => `${message}; Pi cannot read it either`), "fix: correct the file, then run doctor again"] }
  }
  const ours = install.entries.filter(({ file, entry }) => loadsMagicContext(entryTarget(entry, dirname(file))))
  if (ours.length === 0) {
    if (install.settingsFiles.length === 0) return { name, status: "ok", detail: ["no Pi settings (~/.pi/agent/settings.json, .pi/settings.json): Pi is not set up here"] }
    return {
      name,
      status: "warn",
      detail: [`no Pi settings load magic-context (${install.settingsFiles.join(", ")})`, "fix: `magic-context setup --pi` (or `pi install <path to a checkout or an installed tarball>`)"],
    }
  }
  const problems: string[] = []
  for (const { file, entry, kind } of ours) {
    const target = entryTarget(entry, dirname(file))
    const reason = unloadableReason({ target, configDir: piPackageRoot(file, env), exportName: "pi", cacheDir: null })
    if (reason) problems.push(`${file}: ${JSON.stringify(entry)}: ${reason.problem}`, `  fix: ${reason.fix}`)
  }
  const keys = new Set(ours.map(({ file, entry }) => loadKey(entryTarget(entry, dirname(file)))))
  if (keys.size > 1) {
    const listed = ours.map(({ file, entry }) => `${JSON.stringify(entry)} in ${file}`).join(", ")
    problems.push(`magic-context is loaded ${keys.size} times by Pi (${listed})`, "  fix: keep one entry (`pi remove <source>` removes one)")
  }
  if (problems.length > 0) return { name, status: "fail", detail: problems }
  return { name, status: "ok", detail: ours.map(({ file, entry }) => `${file}: ${entry}`) }
}

function checkPiCompaction(install: PiInstall): Check {
  const name = "Pi compaction"
  const detail = [`compaction.enabled = ${install.compaction.enabled} (${install.compaction.source})`]
  if (!install.compaction.enabled || install.settingsFiles.length === 0) return { name, status: "ok", detail }
  detail.push(
    "Pi's own summary replaces the history magic-context keeps when the window nears full",
    'fix: set "compaction": { "enabled": false } in Pi\'s settings (`magic-context setup --pi` does)',
  )
  return { name, status: "warn", detail }
}
