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

/**
 * The store a config names, or the default one: `database.path` with a leading `~` meaning the home folder (as a
 * shell would read it; the config file is not read by a shell, so `"~/x.db"` would otherwise make a folder named `~`).
 */
export function configuredDatabasePath(configured: string | null, env: Record<string, string | undefined> = process.env): string {
  if (configured === null) return defaultDatabasePath(env)
  if (configured === "~" || configured.startsWith("~/")) return join(env["HOME"] || homedir(), configured.slice(1))
  return configured
}
