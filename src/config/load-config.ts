import { ConfigSchema, DEPRECATED_KEYS, defaultConfig, type Config } from "./schema.js"
import { leafPaths, mergeDeep, type JsonObject } from "./json-path.js"
import type { ConfigDiagnostic } from "./config-diagnostic.js"
import { fileDiagnostic, validLayer } from "./valid-layer.js"

export { isConfigError, type ConfigDiagnostic } from "./config-diagnostic.js"

export type ConfigScope = "user" | "project" | "explicit"

/** A place a config file may be, lowest precedence first in `configLocations`. */
export type ConfigLocation = { file: string; scope: ConfigScope }

export type LoadedConfig = {
  config: Config
  /** For every leaf key of the effective config, the file it came from, or "default". */
  sources: Record<string, string>
  /** The files that were read, lowest precedence first. */
  files: ConfigLocation[]
  diagnostics: ConfigDiagnostic[]
}

/** Reads a file's text, or returns null when it does not exist. May throw for other I/O errors. */
export type ReadText = (file: string) => string | null

/** The names a magic-context config file may have in one folder, the first existing one used. */
export const FILE_NAMES = ["magic-context.jsonc", "magic-context.json"] as const

/**
 * Where config files are looked for, lowest precedence first: the user's OpenCode config dir, then the project
 * (the worktree root and the instance directory; in each, `.opencode/` before the root), then an explicit file.
 */
export function configLocations(options: {
  userConfigDir: string
  directory?: string
  worktree?: string
  explicitFile?: string
}): ConfigLocation[][] {
  const join = (dir: string, name: string): string => `${dir.replace(/\/+$/, "")}/${name}`
  const inDir = (dir: string, scope: ConfigScope): ConfigLocation[] => FILE_NAMES.map((name) => ({ file: join(dir, name), scope }))
  const groups: ConfigLocation[][] = [inDir(options.userConfigDir, "user")]
  const projectDirs = [options.worktree, options.directory].filter((dir): dir is string => Boolean(dir))
  const seen = new Set<string>()
  for (const dir of projectDirs) {
    if (seen.has(dir)) continue
    seen.add(dir)
    groups.push(inDir(join(dir, ".opencode"), "project"), inDir(dir, "project"))
  }
  if (options.explicitFile) groups.push([{ file: options.explicitFile, scope: "explicit" }])
  return groups
}

/**
 * Loads and merges the config files. Each group is one location (first existing name wins); later groups
 * override earlier ones key by key. A file that is not valid JSONC is skipped whole; a value that does not fit
 * the schema is dropped from its file (the next lower file or the default applies) and reported.
 */
export function loadConfig(options: { locations: ConfigLocation[][]; readText: ReadText }): LoadedConfig {
  const diagnostics: ConfigDiagnostic[] = []
  const files: ConfigLocation[] = []
  let merged: JsonObject = {}
  const sources: Record<string, string> = {}

  for (const group of options.locations) {
    const found = readFirst(group, options.readText, diagnostics)
    if (!found) continue
    files.push(found.location)
    const layer = validLayer(found.location.file, found.text, diagnostics)
    for (const [key, advice] of Object.entries(DEPRECATED_KEYS)) {
      if (!(key in layer)) continue
      const message = `${found.location.file}: key "${key}" ${advice}`
      diagnostics.push({ severity: "warning", file: found.location.file, key, value: JSON.stringify(layer[key]), expected: "nothing", message })
    }
    merged = mergeDeep(merged, layer)
    for (const path of leafPaths(layer)) sources[path.join(".")] = found.location.file
  }

  const parsed = ConfigSchema.safeParse(merged)
  const config = parsed.success ? parsed.data : defaultConfig()
  const effectiveSources: Record<string, string> = {}
  for (const path of leafPaths(withoutSchemaKey(config as JsonObject))) {
    const key = path.join(".")
    effectiveSources[key] = sources[key] ?? "default"
  }
  return { config, sources: effectiveSources, files, diagnostics }
}

function readFirst(
  group: ConfigLocation[],
  readText: ReadText,
  diagnostics: ConfigDiagnostic[],
): { location: ConfigLocation; text: string } | null {
  for (const location of group) {
    try {
      const text = readText(location.file)
      // Editors on Windows save UTF-8 with a byte order mark; it is not part of the JSON.
      if (text !== null) return { location, text: text.replace(/^\uFEFF/, "") }
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error)
      diagnostics.push(fileDiagnostic(location.file, `a readable file (${problem})`, `${location.file}: cannot read: ${problem}`))
    }
  }
  return null
}

function withoutSchemaKey(config: JsonObject): JsonObject {
  const { $schema: _ignored, ...rest } = config
  return rest
}
