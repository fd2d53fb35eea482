import { dirname } from "node:path"
import type { Check } from "./command-doctor.js"
import { inspectPiInstall, piPackageRoot, type PiInstall } from "../install/pi-install.js"
import { entryTarget, loadKey, loadsMagicContext, unloadableReason } from "../install/plugin-entry-target.js"

/**
 * Pi's side of an install: whether Pi's settings load the extension (once, from a path with a build or an installed
 * package), and Pi's own auto-compaction. A project without Pi settings is no failure: Pi may not be in use.
 */
export function checkPi(options: { directory: string; env: Record<string, string | undefined> }): Check[] {
  const install = inspectPiInstall(options)
  return [checkPiExtension(install, options.env), checkPiCompaction(install)]
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
