import { applyEdits, modify, parse as parseJsonc, type FormattingOptions, type ParseError } from "jsonc-parser"
import { isJsonObject, type JsonObject } from "../config/json-path.js"
import { fail, ok, type Result } from "../result.js"
import { isMagicContextEntry, isMagicContextTuiEntry } from "../install/opencode-install.js"
import { lineAndColumn } from "../install/jsonc-object.js"

/** The compaction settings magic-context recommends: OpenCode's own summary and pruning off (README). */
export const RECOMMENDED_COMPACTION = { auto: false, prune: false } as const

/** What `setup` does to one OpenCode config file: the new text and a line per change or finding. */
export type ConfigEdit = { after: string; notes: string[] }

/**
 * Adds the plugin entry and the recommended compaction settings to an OpenCode config file's text (null: the file
 * does not exist yet), keeping its comments and formatting. Idempotent: a file that already names magic-context in
 * `plugin` keeps that entry, and an explicit compaction setting is only changed with `forceCompaction` (otherwise a
 * note proposes it). A file that is not valid JSONC, or whose `plugin` is not a list, is an error. Pure.
 */
export function editOpenCodeConfig(options: {
  file: string
  text: string | null
  entry: string
  forceCompaction: boolean
  /** Another config file that applies and already loads magic-context: no entry is added (it would load twice). */
  loadedElsewhere?: { file: string; entry: string } | null
  /** Compaction keys another applying config file sets (the user's, say), with that file: left alone unless forced. */
  compactionSetElsewhere?: Partial<Record<keyof typeof RECOMMENDED_COMPACTION, string>>
  /** Tells whether an entry already in the file loads magic-context (a path to a checkout, say); by name otherwise. */
  isOurs?: (entry: string) => boolean
}): Result<ConfigEdit> {
  const { file, entry } = options
  const opened = openForEdit(file, options.text ?? '{\n  "$schema": "https://opencode.ai/config.json"\n}\n')
  if (!opened.ok) return opened
  const { value, set } = opened.value
  const notes: string[] = []

  const isOurs = options.isOurs ?? isMagicContextEntry
  const elsewhere = options.loadedElsewhere
  if (elsewhere && elsewhere.file !== file) {
    const plugins = value["plugin"]
    if (plugins !== undefined && !Array.isArray(plugins)) {
      return fail(`${file}: "plugin" is ${typeof plugins}, expected a list of plugin entries; nothing was written`)
    }
    notes.push(`plugin: not added, ${elsewhere.file} already loads magic-context (${JSON.stringify(elsewhere.entry)}); a second entry would load it twice`)
  } else {
    const added = addPluginEntry({ file, value, entry, set, isOurs })
    if (!added.ok) return added
    notes.push(added.value)
  }

  const compaction = value["compaction"]
  if (compaction !== undefined && !isJsonObject(compaction)) {
    return fail(`${file}: "compaction" is ${typeof compaction}, expected an object; nothing was written`)
  }
  for (const [key, recommended] of Object.entries(RECOMMENDED_COMPACTION)) {
    const current = compaction?.[key]
    const setIn = options.compactionSetElsewhere?.[key as keyof typeof RECOMMENDED_COMPACTION]
    if (current === recommended) notes.push(`compaction.${key}: already ${recommended}`)
    else if (current === undefined && setIn && !options.forceCompaction) {
      notes.push(`compaction.${key}: left to ${setIn}, which sets it; run setup --compaction to set it here anyway`)
    } else if (current === undefined || options.forceCompaction) {
      set(["compaction", key], recommended)
      notes.push(`compaction.${key}: set to ${recommended}${current === undefined ? "" : ` (was ${JSON.stringify(current)})`}`)
    } else {
      notes.push(
        `compaction.${key}: left at ${JSON.stringify(current)}; magic-context recommends ${recommended} (it replaces OpenCode's ` +
          `own ${key === "auto" ? "summary" : "pruning"} reversibly); run setup --compaction to set it`,
      )
    }
  }
  return ok({ after: opened.value.text(), notes })
}

/**
 * Adds the TUI plugin entry (the sidebar panel) to the `plugin` list of OpenCode's `tui.json` text (null: the file
 * does not exist yet), keeping its comments and formatting; idempotent like editOpenCodeConfig. Pure.
 */
export function editTuiConfig(options: {
  file: string
  text: string | null
  entry: string
  /** Another `tui.json` that applies and already loads the panel: no entry is added. */
  loadedElsewhere?: { file: string; entry: string } | null
  isOurs?: (entry: string) => boolean
}): Result<ConfigEdit> {
  const opened = openForEdit(options.file, options.text ?? "{}\n")
  if (!opened.ok) return opened
  const elsewhere = options.loadedElsewhere
  if (elsewhere && elsewhere.file !== options.file) {
    return ok({ after: opened.value.text(), notes: [`plugin: not added, ${elsewhere.file} already loads the panel (${JSON.stringify(elsewhere.entry)})`] })
  }
  const isOurs = options.isOurs ?? isMagicContextTuiEntry
  const added = addPluginEntry({ file: options.file, value: opened.value.value, entry: options.entry, set: opened.value.set, isOurs })
  if (!added.ok) return added
  return ok({ after: opened.value.text(), notes: [added.value] })
}

/**
 * Adds the package to Pi's settings (`packages`, as `pi install <path>` does) and turns Pi's auto-compaction off
 * where no settings file sets it, keeping the file's formatting; idempotent. Pure.
 */
export function editPiSettings(options: {
  file: string
  text: string | null
  source: string
  forceCompaction: boolean
  loadedElsewhere?: { file: string; entry: string } | null
  /** The other settings file that sets `compaction.enabled`, if any. */
  compactionSetElsewhere?: string | null
  isOurs: (entry: string) => boolean
}): Result<ConfigEdit> {
  const { file } = options
  const opened = openForEdit(file, options.text ?? "{}\n")
  if (!opened.ok) return opened
  const { value, set } = opened.value
  const notes: string[] = []
  const elsewhere = options.loadedElsewhere
  if (elsewhere && elsewhere.file !== file) {
    notes.push(`packages: not added, ${elsewhere.file} already loads magic-context (${JSON.stringify(elsewhere.entry)}); a second entry would load it twice`)
  } else {
    const added = addPluginEntry({ file, value, entry: options.source, set, isOurs: options.isOurs, key: "packages" })
    if (!added.ok) return added
    notes.push(added.value)
  }
  const compaction = value["compaction"]
  if (compaction !== undefined && !isJsonObject(compaction)) {
    return fail(`${file}: "compaction" is ${typeof compaction}, expected an object; nothing was written`)
  }
  const current = compaction?.["enabled"]
  if (current === false) notes.push("compaction.enabled: already false")
  else if (current === undefined && options.compactionSetElsewhere && !options.forceCompaction) {
    notes.push(`compaction.enabled: left to ${options.compactionSetElsewhere}, which sets it; run setup --pi --compaction to set it here anyway`)
  } else if (current === undefined || options.forceCompaction) {
    set(["compaction", "enabled"], false)
    notes.push(`compaction.enabled: set to false${current === undefined ? "" : ` (was ${JSON.stringify(current)})`}`)
  } else {
    notes.push(`compaction.enabled: left at ${JSON.stringify(current)}; magic-context recommends false; run setup --pi --compaction to set it`)
  }
  return ok({ after: opened.value.text(), notes })
}

type SetValue = (path: (string | number)[], next: unknown, insert?: boolean) => void

/** A JSONC file's parsed object and an editor that keeps its comments and indentation; invalid JSONC is an error. */
function openForEdit(file: string, text: string): Result<{ value: JsonObject; set: SetValue; text: () => string }> {
  const errors: ParseError[] = []
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true })
  if (errors.length > 0) {
    const first = errors[0] as ParseError
    const { line, column } = lineAndColumn(text, first.offset)
    return fail(`${file}:${line}:${column}: not valid JSONC (${parseErrorName(first.error)}); fix it first, nothing was written`)
  }
  if (!isJsonObject(value)) return fail(`${file}: the file is not a JSON object; nothing was written`)
  const formattingOptions = formattingOf(text)
  let after = text
  const set: SetValue = (path, next, insert = false) => {
    after = applyEdits(after, modify(after, path, next, { formattingOptions, isArrayInsertion: insert }))
  }
  return ok({ value, set, text: () => after })
}

/** Appends `entry` to the file's `plugin` list unless an entry `isOurs` already loads magic-context; notes which. */
function addPluginEntry(options: {
  file: string
  value: JsonObject
  entry: string
  set: SetValue
  isOurs: (entry: string) => boolean
  /** The list's key: OpenCode's `plugin`, Pi's `packages`. */
  key?: string
}): Result<string> {
  const { file, value, entry, set, isOurs } = options
  const key = options.key ?? "plugin"
  const plugins = value[key]
  if (plugins !== undefined && !Array.isArray(plugins)) {
    return fail(`${file}: "${key}" is ${typeof plugins}, expected a list of plugin entries; nothing was written`)
  }
  const present = (plugins ?? [])
    .map((item) => (Array.isArray(item) ? item[0] : isJsonObject(item) ? item["source"] : item))
    .find((name) => typeof name === "string" && (name === entry || isOurs(name)))
  if (typeof present === "string") return ok(`${key}: already loads magic-context (${JSON.stringify(present)})`)
  if (plugins === undefined) set([key], [entry])
  else set([key, plugins.length], entry, true)
  return ok(`${key}: added ${JSON.stringify(entry)}`)
}

/** The file's own indentation (tabs, or the width of the first indented line), two spaces when it has none. */
function formattingOf(text: string): FormattingOptions {
  const indented = /^([ \t]+)\S/m.exec(text)?.[1]
  const eol = text.includes("\r\n") ? "\r\n" : "\n"
  if (indented?.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol }
  return { insertSpaces: true, tabSize: indented ? indented.length : 2, eol }
}


const PARSE_ERRORS: Record<number, string> = {
  1: "invalid symbol",
  2: "invalid number format",
  3: "property name expected",
  4: "value expected",
  5: "colon expected",
  6: "comma expected",
  7: "closing brace expected",
  8: "closing bracket expected",
  9: "end of file expected",
  16: "unexpected end of comment",
  17: "unexpected end of string",
  18: "unexpected end of number",
  19: "invalid unicode",
  20: "invalid escape character",
  21: "invalid character",
}

function parseErrorName(code: number): string {
  return PARSE_ERRORS[code] ?? `parse error ${code}`
}
