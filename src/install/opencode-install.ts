import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { isJsonObject, mergeDeep, type JsonObject } from "../config/json-path.js"
import { userConfigDir } from "../config/read-config-files.js"
import { parseJsoncObject } from "./jsonc-object.js"
import { OWN_BUILD_ENTRY, OWN_TUI_ENTRY } from "./own-package.js"
import { entryTarget, loadsMagicContext } from "./plugin-entry-target.js"

/** What doctor learns about how OpenCode is set up for this project. */
export type OpenCodeInstall = {
  /** OpenCode config files found, lowest precedence first. */
  configFiles: string[]
  /** Files that could not be parsed, each with the message naming the file, line and column. */
  unreadable: { file: string; problem: string }[]
  /** Where magic-context is referenced: a `plugin` entry (file: entry) or a local plugin file. */
  pluginReferences: { file: string; entry: string }[]
  /** Every `plugin` entry of every config file, in precedence order (what plugin-conflicts.ts reads). */
  pluginEntries: { file: string; entry: string }[]
  /** Every `plugin` entry of OpenCode's TUI config files (`tui.json`), global first: where the panel is loaded. */
  tuiEntries: { file: string; entry: string }[]
  /** The merged `compaction` settings, with env overrides applied. */
  compaction: { auto: boolean; prune: boolean; autoSource: string; pruneSource: string }
  /** The merged `model` ("provider/model"), the file that set it and the provider's package where the config names one. */
  model: { providerID: string; modelID: string; source: string; npm: string | null } | null
}

const CONFIG_NAMES = ["config.json", "opencode.json", "opencode.jsonc"]

/** Reads the OpenCode config files that apply to `directory` (global, project, `OPENCODE_CONFIG*`). */
export function inspectOpenCodeInstall(options: { directory: string; env: Record<string, string | undefined> }): OpenCodeInstall {
  const { directory, env } = options
  const globalDir = userConfigDir(env)
  const candidates = [
    ...CONFIG_NAMES.map((name) => join(globalDir, name)),
    ...(env["OPENCODE_CONFIG"] ? [env["OPENCODE_CONFIG"]] : []),
    ...["opencode.json", "opencode.jsonc"].map((name) => join(directory, name)),
    ...["opencode.json", "opencode.jsonc"].map((name) => join(directory, ".opencode", name)),
  ]
  const install: OpenCodeInstall = {
    configFiles: [],
    unreadable: [],
    pluginReferences: [],
    pluginEntries: [],
    tuiEntries: [],
    compaction: { auto: true, prune: false, autoSource: "OpenCode default", pruneSource: "OpenCode default" },
    model: null,
  }
  const layers: { file: string; value: JsonObject }[] = []
  for (const file of candidates) {
    if (!existsSync(file)) continue
    const value = parseConfig(file, readFileSync(file, "utf8"), install)
    if (value) layers.push({ file, value })
  }
  const inline = env["OPENCODE_CONFIG_CONTENT"]
  if (inline) {
    const value = parseConfig("OPENCODE_CONFIG_CONTENT", inline, install)
    if (value) layers.push({ file: "OPENCODE_CONFIG_CONTENT", value })
  }

  let merged: JsonObject = {}
  for (const layer of layers) {
    install.configFiles.push(layer.file)
    merged = mergeDeep(merged, layer.value)
    const model = layer.value["model"]
    if (typeof model === "string" && model.includes("/")) {
      const [providerID = "", ...rest] = model.split("/")
      install.model = { providerID, modelID: rest.join("/"), source: layer.file, npm: null }
    }
    const compaction = layer.value["compaction"]
    if (isJsonObject(compaction)) {
      if (typeof compaction["auto"] === "boolean") install.compaction.autoSource = layer.file
      if (typeof compaction["prune"] === "boolean") install.compaction.pruneSource = layer.file
    }
    for (const name of pluginNames(layer.value["plugin"])) {
      install.pluginEntries.push({ file: layer.file, entry: name })
      if (isMagicContextEntry(name) || loadsFromConfig(name, layer.file)) install.pluginReferences.push({ file: layer.file, entry: name })
    }
  }
  if (install.model) {
    const providers = isJsonObject(merged["provider"]) ? merged["provider"] : {}
    const provider = providers[install.model.providerID]
    if (isJsonObject(provider) && typeof provider["npm"] === "string") install.model.npm = provider["npm"]
  }
  const compaction = isJsonObject(merged["compaction"]) ? merged["compaction"] : {}
  if (typeof compaction["auto"] === "boolean") install.compaction.auto = compaction["auto"]
  if (typeof compaction["prune"] === "boolean") install.compaction.prune = compaction["prune"]
  if (env["OPENCODE_DISABLE_AUTOCOMPACT"]) {
    install.compaction.auto = false
    install.compaction.autoSource = "OPENCODE_DISABLE_AUTOCOMPACT"
  }
  if (env["OPENCODE_DISABLE_PRUNE"]) {
    install.compaction.prune = false
    install.compaction.pruneSource = "OPENCODE_DISABLE_PRUNE"
  }
  for (const dir of [globalDir, join(directory, ".opencode")]) {
    for (const sub of ["plugin", "plugins"]) install.pluginReferences.push(...localPluginFiles(join(dir, sub)))
  }
  for (const dir of [globalDir, directory, join(directory, ".opencode")]) {
    for (const name of ["tui.json", "tui.jsonc"]) {
      const file = join(dir, name)
      if (!existsSync(file)) continue
      const value = parseConfig(file, readFileSync(file, "utf8"), install)
      install.tuiEntries.push(...pluginNames(value?.["plugin"]).map((entry) => ({ file, entry })))
    }
  }
  return install
}

/**
 * True for a `plugin` entry that names this package: `magic-context`, `magic-context@1.2.3`, a path to it, or the
 * `file://` URL of this very build (what `setup` writes from a checkout, whatever the checkout's folder is called).
 */
export function isMagicContextEntry(entry: string): boolean {
  if (entry === "magic-context" || entry.startsWith("magic-context@")) return true
  if (entry === OWN_BUILD_ENTRY) return true
  return /magic-context/.test(entry) && (entry.startsWith("file:") || entry.startsWith(".") || entry.startsWith("/"))
}

export { OWN_BUILD_ENTRY, OWN_TUI_ENTRY }

/**
 * True for a `tui.json` plugin entry that loads magic-context's TUI plugin: the package (OpenCode loads its
 * `./tui` export), this build's `dist/tui.js`, or a path to a `tui.js` under a folder named for magic-context.
 */
export function isMagicContextTuiEntry(entry: string): boolean {
  if (entry === "magic-context" || entry.startsWith("magic-context@")) return true
  if (entry === OWN_TUI_ENTRY) return true
  return /magic-context/.test(entry) && /tui\.js$/.test(entry) && (entry.startsWith("file:") || entry.startsWith(".") || entry.startsWith("/"))
}

/** True for a `tui.json` entry, read in the file that lists it, that loads magic-context's TUI plugin: by its name or where it points. */
export function loadsMagicContextTui(ref: { file: string; entry: string }): boolean {
  return isMagicContextTuiEntry(ref.entry) || loadsMagicContext(entryTarget(ref.entry, dirname(ref.file)))
}

/** The names of a `plugin` list's entries (an entry is a name or `[name, options]`). */
function pluginNames(plugins: unknown): string[] {
  if (!Array.isArray(plugins)) return []
  return plugins.map((entry: unknown) => (Array.isArray(entry) ? entry[0] : entry)).filter((name): name is string => typeof name === "string")
}

/** True when a config file's entry loads magic-context by where it points (a checkout's folder, a tarball's install). */
function loadsFromConfig(entry: string, file: string): boolean {
  return file !== "OPENCODE_CONFIG_CONTENT" && loadsMagicContext(entryTarget(entry, dirname(file)))
}

/** The file's object, or null with the problem (its line and column) noted as unreadable. */
function parseConfig(file: string, text: string, install: OpenCodeInstall): JsonObject | null {
  const parsed = parseJsoncObject(file, text)
  if (parsed.ok) return parsed.value
  install.unreadable.push({ file, problem: parsed.error })
  return null
}

function localPluginFiles(dir: string): { file: string; entry: string }[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((name) => /\.(ts|js|mjs)$/.test(name))
    .map((name) => join(dir, name))
    .filter((file) => /magic-context/.test(readFileSync(file, "utf8")))
    .map((file) => ({ file, entry: "local plugin file" }))
}
