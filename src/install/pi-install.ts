import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { isJsonObject, type JsonObject } from "../config/json-path.js"
import { parseJsoncObject } from "./jsonc-object.js"
import type { PluginEntry } from "./plugin-entry-target.js"

/** What doctor learns about how Pi is set up for a project (Pi's docs: settings.md, packages.md). */
export type PiInstall = {
  /** Pi's settings files that exist, global first. */
  settingsFiles: string[]
  /** Files that could not be parsed, each with the message naming the file, line and column. */
  unreadable: string[]
  /** Every `packages` source and `extensions` path of the settings files, global first. */
  entries: (PluginEntry & { kind: "package" | "extension" })[]
  /** Pi's auto-compaction (`compaction.enabled`, project over global, on by default) and where it was set. */
  compaction: { enabled: boolean; source: string }
}

/** Pi's agent folder: `PI_CODING_AGENT_DIR`, by default `~/.pi/agent`. */
export function piAgentDir(env: Record<string, string | undefined>): string {
  const configured = env["PI_CODING_AGENT_DIR"]
  return configured && configured.length > 0 ? configured : join(env["HOME"] ?? "~", ".pi", "agent")
}

/** The settings file of a scope: `~/.pi/agent/settings.json` (global) or `<project>/.pi/settings.json`. */
export function piSettingsFile(options: { global: boolean; directory: string; env: Record<string, string | undefined> }): string {
  return options.global ? join(piAgentDir(options.env), "settings.json") : join(options.directory, ".pi", "settings.json")
}

/** Reads Pi's global and project settings for `directory`. Reads the disk, never writes. */
export function inspectPiInstall(options: { directory: string; env: Record<string, string | undefined> }): PiInstall {
  const install: PiInstall = { settingsFiles: [], unreadable: [], entries: [], compaction: { enabled: true, source: "Pi's default" } }
  for (const global of [true, false]) {
    const file = piSettingsFile({ global, directory: options.directory, env: options.env })
    if (!existsSync(file)) continue
    install.settingsFiles.push(file)
    const parsed = parseJsoncObject(file, readFileSync(file, "utf8"))
    if (!parsed.ok) {
      install.unreadable.push(parsed.error)
      continue
    }
    install.entries.push(...settingsEntries(file, parsed.value))
    const compaction = parsed.value["compaction"]
    if (isJsonObject(compaction) && typeof compaction["enabled"] === "boolean") install.compaction = { enabled: compaction["enabled"], source: file }
  }
  return install
}

/** The `packages` sources (a string or `{ source }`) and `extensions` paths of one settings file. */
function settingsEntries(file: string, settings: JsonObject): PiInstall["entries"] {
  const packages = Array.isArray(settings["packages"]) ? settings["packages"] : []
  const extensions = Array.isArray(settings["extensions"]) ? settings["extensions"] : []
  return [
    ...packages
      .map((item: unknown) => (isJsonObject(item) ? item["source"] : item))
      .filter((source): source is string => typeof source === "string")
      .map((entry) => ({ file, entry, kind: "package" as const })),
    ...extensions.filter((path): path is string => typeof path === "string").map((entry) => ({ file, entry, kind: "extension" as const })),
  ]
}

/** Where Pi installs the npm packages of a settings file: `.pi/npm/` for a project, npm's global prefix otherwise. */
export function piPackageRoot(file: string, env: Record<string, string | undefined>): string {
  if (dirname(file).endsWith(".pi")) return join(dirname(file), "npm")
  const prefix = env["npm_config_prefix"] ?? dirname(dirname(process.execPath))
  return join(prefix, "lib")
}
