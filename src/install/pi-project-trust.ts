import { existsSync, readFileSync, realpathSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { isJsonObject } from "../config/json-path.js"
import { piAgentDir } from "./pi-install.js"
import { parseJsoncObject } from "./jsonc-object.js"

/**
 * Whether Pi 1.x loads a project's own settings (`.pi/settings.json`): only for a trusted project (Pi's docs,
 * security.md). A decision saved in `~/.pi/agent/trust.json` for the project or its nearest ancestor applies; without
 * one, the global `defaultProjectTrust` ("ask" by default: the interactive TUI asks, print mode skips the project's
 * settings). Pi 0.73 has no trust and always loads them.
 */
export type PiProjectTrust =
  | { kind: "saved"; trusted: boolean; path: string; file: string }
  | { kind: "default"; setting: string; source: string }
  | { kind: "unreadable"; message: string }

export function piProjectTrust(options: { directory: string; env: Record<string, string | undefined> }): PiProjectTrust {
  const agentDir = piAgentDir(options.env)
  const file = join(agentDir, "trust.json")
  if (existsSync(file)) {
    const parsed = parseJsoncObject(file, readFileSync(file, "utf8"))
    if (!parsed.ok) return { kind: "unreadable", message: parsed.error }
    for (let dir = canonical(options.directory); ; dir = dirname(dir)) {
      const decision = parsed.value[dir]
      if (decision === true || decision === false) return { kind: "saved", trusted: decision, path: dir, file }
      if (dirname(dir) === dir) break
    }
  }
  const settingsFile = join(agentDir, "settings.json")
  if (existsSync(settingsFile)) {
    const settings = parseJsoncObject(settingsFile, readFileSync(settingsFile, "utf8"))
    if (settings.ok && isJsonObject(settings.value) && typeof settings.value["defaultProjectTrust"] === "string") {
      return { kind: "default", setting: settings.value["defaultProjectTrust"], source: settingsFile }
    }
  }
  return { kind: "default", setting: "ask", source: "Pi's default" }
}

/** The directory as Pi keys it: absolute, symbolic links resolved where the path exists. */
function canonical(directory: string): string {
  const absolute = resolve(directory)
  try {
    return realpathSync(absolute)
  } catch {
    return absolute
  }
}
