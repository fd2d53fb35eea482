import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { configLocations, loadConfig, type LoadedConfig } from "./load-config.js"

/** OpenCode's global config dir: `$XDG_CONFIG_HOME/opencode`, by default `~/.config/opencode`. */
export function userConfigDir(env: Record<string, string | undefined> = process.env): string {
  const xdg = env["XDG_CONFIG_HOME"]
  const base = xdg && xdg.length > 0 ? xdg : join(env["HOME"] || homedir(), ".config")
  return join(base, "opencode")
}

/** Reads a file, or null when it does not exist. Other I/O errors are thrown for the loader to report. */
export function readTextIfExists(file: string): string | null {
  try {
    return readFileSync(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return null
    throw error
  }
}

/** Loads the effective config for a project from disk (user dir, project dirs, optional explicit file). */
export function readConfigFiles(options: {
  directory?: string
  worktree?: string
  explicitFile?: string
  env?: Record<string, string | undefined>
}): LoadedConfig {
  const locations = configLocations({
    userConfigDir: userConfigDir(options.env),
    directory: options.directory,
    worktree: options.worktree,
    explicitFile: options.explicitFile,
  })
  const loaded = loadConfig({ locations, readText: readTextIfExists })
  if (options.explicitFile && !loaded.files.some((location) => location.file === options.explicitFile)) {
    loaded.diagnostics.push({
      severity: "error",
      file: options.explicitFile,
      key: null,
      value: null,
      expected: "an existing file",
      message: `${options.explicitFile}: the config file given does not exist`,
    })
  }
  return loaded
}
