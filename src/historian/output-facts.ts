import type { Recognizers } from "../session/recognizers.js"
import { extractLocations, type LocationMatch } from "./extract-locations.js"

/** A search shows at most this many of its `path:line` hits as locations (the first ones, in output order). */
export const MAX_SEARCH_HITS = 3

/** An edit contributes at most this many setting lines it added. */
export const MAX_SETTING_LINES = 6

/** A setting line longer than this is code, not a setting. */
const MAX_SETTING_CHARS = 80

/**
 * What a successful tool output says that later work needs: the `[branch hash]` line of a `git commit` (the commit
 * a fix landed in), and for a search the first `path:line` hits (where something is).
 */
export function outputFacts(
  output: string,
  options: { isSearch: boolean; definitionsFirst?: boolean },
): { commits: string[]; locations: LocationMatch[] } {
  const commits = [...output.matchAll(/^\[([^\s\]]+(?: \(root-commit\))?) ([0-9a-f]{7,40})\]/gm)].map((match) => `[${match[1]} ${match[2]}]`)
  if (!options.isSearch) return { commits, locations: [] }
  const lines = output.split("\n")
  // The hit that declares what was searched for is where it is defined: it comes first, then the hits in order.
  const ordered = options.definitionsFirst === true ? [...lines.filter(isDefinitionHit), ...lines.filter((line) => !isDefinitionHit(line))] : lines
  const hits: LocationMatch[] = []
  for (const line of ordered) {
    const hit = /^(\S+?:\d+)(?::\d+)?[:-]/.exec(line)
    if (hit === null || hit[1] === undefined) continue
    const [location] = extractLocations(hit[1])
    if (location !== undefined && !hits.some((known) => known.text === location.text)) hits.push(location)
    if (hits.length >= MAX_SEARCH_HITS) break
  }
  return { commits, locations: hits }
}

/** A search hit whose line declares a name (`path:131:export async function handle…`, `x.py:4:class Cache:`). */
export function isDefinitionHit(line: string): boolean {
  return DEFINITION_HIT.test(line)
}

const DEFINITION_HIT =
  /^(?:\S+?:)?\d+[:-]\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([a-z]+\))?\s+)?(?:async\s+)?(?:function\*?|class|interface|type|enum|struct|trait|impl|def|defp|defmodule|defmacro|fn|func|module|const|let|var|val)\s+[A-Za-z_$(]/

/** Which setting shapes count, from the session's rules: `typed` with rule `typed-settings`. */
export type SettingReading = { typed: boolean }

export function settingReading(recognizers: Recognizers): SettingReading {
  return { typed: recognizers.on("typed-settings") }
}

/**
 * The setting lines an edit added: lines of the new text, absent from the old, that assign a literal value to a
 * name (`PORT=3100`, `BATCH_SIZE = 200`, `metrics_addr: ":9464"`, `pub const X: u64 = 250;`), trimmed of
 * indentation and a trailing `,` or `;`. Values a later step needs exactly ("which port was it?").
 */
export function settingLines(newText: string, oldText: string, options: SettingReading = { typed: true }): string[] {
  const setting = options.typed ? TYPED_SETTING : SETTING
  const old = new Set(oldText.split("\n").map((line) => line.trim()))
  const settings: string[] = []
  for (const raw of newText.split("\n")) {
    const line = raw.trim().replace(/[,;]$/, "")
    if (line.length === 0 || line.length > MAX_SETTING_CHARS || old.has(raw.trim())) continue
    if (!setting.test(line) || settings.includes(line)) continue
    settings.push(line)
    if (settings.length >= MAX_SETTING_LINES) break
  }
  return settings
}

/**
 * True for a line that assigns a literal to a name (`PORT=3100`, `timeout: 30`): a setting, not an expression. With
 * `typed` (rule `typed-settings`) also one declared with modifiers and types (`public val TIMEOUT: Int = 30`).
 */
export function isSettingLine(text: string, options: SettingReading = { typed: true }): boolean {
  const line = text.trim().replace(/[,;]$/, "")
  return line.length > 0 && line.length <= MAX_SETTING_CHARS && (options.typed ? TYPED_SETTING : SETTING).test(line)
}

/** An Elixir module attribute with a literal: `@timeout 5000`. */
const MODULE_ATTRIBUTE = String.raw`^(?:@[a-z_]\w*\s+(?:-?\d[\d_.]*|"[^"\n]{0,60}"|true|false)$)`

/** `name[: type] (=|:) literal`, where the literal is a number (with an optional unit), a quoted string or a boolean. */
const NAME_AND_LITERAL = String.raw`["']?[A-Za-z_][\w.-]*["']?(?:\s*:\s*[A-Za-z_][\w<>[\]]*)?\s*[=:]\s*(?:-?\d[\d_.]*(?:[a-zA-Z%]{1,3})?|"[^"\n]{0,60}"|'[^'\n]{0,60}'|true|false)$`

/**
 * `[export|pub] [const|let|var|static|readonly] name[: type] (=|:) literal`: a setting, not an expression; or a module
 * attribute.
 */
const SETTING = new RegExp(String.raw`${MODULE_ATTRIBUTE}|^(?:(?:export|pub(?:\(crate\))?)\s+)?(?:(?:const|let|var|static|readonly)\s+)?${NAME_AND_LITERAL}`)

/** SETTING with up to four modifiers and type names before the name (public, val, final, Int, String …). */
const TYPED_SETTING = new RegExp(
  String.raw`${MODULE_ATTRIBUTE}|^(?:(?:export|pub(?:\(crate\))?|public|private|protected|internal|const|let|var|val|static|readonly|final|def|int|long|double|float|bool|string|String|Int|Long|Double|Boolean)\s+){0,4}${NAME_AND_LITERAL}`,
)

/** How a constraint a document stated is told apart from the user's own words. */
export const SPEC_PREFIX = "spec: "

/** One list under a rules heading contributes at most this many items, one output at most MAX_SPEC_CONSTRAINTS. */
export const MAX_LIST_CONSTRAINTS = 8
export const MAX_SPEC_CONSTRAINTS = 32

/** A constraint item longer than this is prose, not a rule; one shorter than this (or one word) is a name, not a rule. */
const MAX_SPEC_CONSTRAINT_CHARS = 240
const MIN_SPEC_CONSTRAINT_CHARS = 12

/**
 * The items a document lists under a heading that names its rules (`Constraints:`, `Architecture constraints:`,
 * `Requirements`, `Technical specs:`, `## Rules`, `Must not:`): a task spec or design note the agent read states constraints for all
 * later work, as a person would. The heading's list ends at a non-item line or another heading; nested items count,
 * bare names (a single word, a short fragment) do not.
 */
export function specConstraints(output: string): string[] {
  const found: string[] = []
  let inList = false
  let inThisList = 0
  for (const raw of output.split("\n")) {
    const line = raw.trim()
    if (RULES_HEADING.test(line)) {
      inList = true
      inThisList = 0
      continue
    }
    if (!inList) continue
    const item = /^(?:[-*•]|\d+[.)])\s+(.+)$/.exec(line)?.[1]
    if (item === undefined) {
      if (line !== "") inList = false
      continue
    }
    const isRule = item.length >= MIN_SPEC_CONSTRAINT_CHARS && item.length <= MAX_SPEC_CONSTRAINT_CHARS && item.includes(" ")
    if (!isRule || found.includes(item) || inThisList >= MAX_LIST_CONSTRAINTS) continue
    found.push(item)
    inThisList += 1
    if (found.length >= MAX_SPEC_CONSTRAINTS) break
  }
  return found
}

const RULES_HEADING =
  /^(?:#{1,6}\s*)?(?:[A-Za-z-]+\s+){0,2}(?:constraints?|requirements?|rules|invariants?|specs?|specifications?|must(?: not)?|do not|don'?ts)\s*:?\s*$/i
