import { homedir } from "node:os"
import { join } from "node:path"

/**
 * The default store: one file for all projects in the user's data directory,
 * `$XDG_DATA_HOME/magic-context/magic-context.db` (XDG default `~/.local/share`).
 */
export function defaultDatabasePath(env: Record<string, string | undefined> = process.env): string {
  const xdg = env["XDG_DATA_HOME"]
  const dataHome = xdg && xdg.length > 0 ? xdg : join(env["HOME"] || homedir(), ".local", "share")
  return join(dataHome, "magic-context", "magic-context.db")
}
