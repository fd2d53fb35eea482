/**
 * The one table of host tools: for every tool an agent host offers (OpenCode's built-ins, Claude Code's, Pi's, the
 * SWE-agent and OpenHands tools the importers read, and the shapes of plugin and MCP tools), which input names the
 * path(s), whether it writes files, whether its output is content (read-only), which reclaim category it is in, and
 * what DENSE keeps of its output. Unknown tools get the generic row. Every module that needs to know what a tool
 * does asks here (historian, reduce, working set, markers). Pure; imports nothing above `session/`.
 */
import { patchFiles, type PatchFile } from "./patch-text.js"

/** What DENSE keeps of a tool's output (see historian/output-lines.ts). */
export type OutputKeep =
  | "document" // rule, limit, version, decision and setting lines of a file or page the agent read
  | "code" // a source file the agent read: its comments judged as a document's lines, its code only for settings
  | "command" // the error block with its cause, result summaries, id lines, the last lines
  | "search" // the first hits
  | "edit" // the path(s) and added lines come from the input; the output is a confirmation
  | "none" // nothing: the output repeats the input (todo lists) or says nothing lasting
  | "generic" // paths, URLs, ids, error lines, first and last lines

export type HostToolRow = {
  /** `tool:<name>`: the row's name for `lab --without`. */
  name: string
  /** The tool names it covers, lower case. */
  tools: readonly string[]
  /** Tool names it covers by shape (plugin and MCP tools), tried after every exact name. */
  pattern?: RegExp
  reason: string
  /** Input keys that name a file or folder, in order of preference. */
  pathKeys: readonly string[]
  /** The tool changes files. */
  writes: boolean
  /** The output is content the agent looked at: a non-zero exit with no other output means "no matches". */
  readOnly: boolean
  /** A shell: its `command` input is a command line. */
  shell: boolean
  /** The input's `patchText` (or a unified diff) names the files and the lines added. */
  patch: boolean
  /** The force band keeps a reserve of the newest output of each category (reduce/plan-reclaim.ts). */
  category: "edit" | "search" | "navigation" | null
  keep: OutputKeep
  /**
   * The output is a document whose rules and limits bind the work like the user's own words (a fetched page of the
   * API being called, loaded instructions, the user's answer): its rule and limit lines are pinned, bounded.
   */
  binds?: boolean
  /** The output carries the user's own words (answers to the agent's questions): pinned like typed user text. */
  userWords?: boolean
  /** Lines the host or plugin wraps around the tool's own output (a terminal plugin's buffer tags): never output. */
  framing?: RegExp
}

const PATHS = ["filePath", "file_path", "path", "filename", "file", "notebook_path"] as const

function row(name: string, tools: string, fields: Partial<HostToolRow> & { reason: string }): HostToolRow {
  return {
    name: `tool:${name}`,
    tools: tools.split(" "),
    pathKeys: PATHS,
    writes: false,
    readOnly: false,
    shell: false,
    patch: false,
    category: null,
    keep: "generic",
    ...fields,
  }
}

export const HOST_TOOLS: readonly HostToolRow[] = [
  row("read", "read view open cat", {
    reason: "a file the agent read: its rule and setting lines are what the agent learned",
    readOnly: true,
    category: "navigation",
    keep: "document",
  }),
  row("list", "list ls", { reason: "a folder listing: paths only", readOnly: true, category: "navigation", keep: "search" }),
  row("write", "write create notebookedit", {
    reason: "writes a whole file: its path and the lines it wrote",
    writes: true,
    category: "edit",
    keep: "edit",
  }),
  row("edit", "edit multiedit str_replace_editor str_replace", {
    reason: "replaces text in a file: its path and the lines it added",
    writes: true,
    category: "edit",
    keep: "edit",
  }),
  row("apply_patch", "apply_patch patch", {
    reason: "OpenCode's edit tool for GPT models: paths and added lines come from the patch text",
    pathKeys: [],
    writes: true,
    patch: true,
    category: "edit",
    keep: "edit",
  }),
  row("shell", "bash shell run execute_bash exec terminal cmd powershell", {
    reason: "a command: its error block with the cause, its result summary, the ids it printed",
    shell: true,
    keep: "command",
  }),
  row("search", "grep glob codesearch search find_file search_dir search_file find", {
    reason: "a search: the first hits say where things are; a hit is content, never a failure",
    readOnly: true,
    category: "search",
    keep: "search",
  }),
  // No reclaim category: the force band never reserved fetched pages (the old reclaim lists left them out).
  row("webfetch", "webfetch fetch", {
    reason: "a fetched page: the lines stating rules, defaults, limits and versions",
    readOnly: true,
    keep: "document",
    binds: true,
  }),
  row("websearch", "websearch web_search", { reason: "search results: titles and URLs", readOnly: true, category: "search", keep: "search" }),
  row("todo", "todowrite todoread", { reason: "the plan; its items are read from the input", readOnly: true, keep: "none" }),
  row("task", "task taskoutput agent", {
    reason: "a subagent's report: its conclusions are document lines",
    readOnly: true,
    keep: "document",
  }),
  row("skill", "skill", { reason: "loaded instructions: rule lines bind later work", readOnly: true, keep: "document", binds: true }),
  row("question", "question askuserquestion ask_user_question", {
    reason: "the user's answer to a question is a directive",
    readOnly: true,
    keep: "document",
    binds: true,
    userWords: true,
  }),
  row("lsp", "lsp lsp_diagnostics lsp_hover", { reason: "diagnostics: error lines with locations", readOnly: true, keep: "command" }),
  row("context", "ctx_reduce ctx_expand ctx_pin", { reason: "this plugin's own tools: their answers are spent", readOnly: true, keep: "none" }),
  row("navigate", "goto scroll_up scroll_down", {
    reason: "SWE-agent navigation: a window of the open file",
    readOnly: true,
    category: "navigation",
  }),
  row("think", "think", { reason: "a note to itself (SWE-agent, OpenHands): the thought is the input", readOnly: true }),
  row("pty", "", {
    pattern: /^pty_/,
    reason: "a terminal plugin: its output is a command's, escape codes and all",
    shell: true,
    keep: "command",
    // opencode-pty wraps a buffer in `<pty_output id=… status=…>` … `</pty_output>` and counts its lines, and reports a
    // spawn as `<pty_spawned>` with the input echoed (Title, Command) and the process's PID and Status; its ID stays.
    // (A program's own line that starts `Status: ` is dropped with them: a cost of matching lines, not blocks.)
    framing: /^\s*(?:<\/?pty_[a-z]+\b[^>]*>|\(End of buffer\b[^)]*\)|(?:Title|Command|PID|Status): .*)\s*$/,
  }),
  row("mcp", "", {
    pattern: /^[a-z0-9][a-z0-9-]*_[a-z0-9][\w-]*$/i,
    reason: "an MCP tool (<server>_<tool>): ids and document lines it returned",
    keep: "generic",
  }),
]

/** The row of tools no other row covers. */
export const GENERIC_TOOL: HostToolRow = row("generic", "", {
  reason: "an unknown tool: paths, URLs, ids, error lines, first and last lines",
})

const BY_NAME: ReadonlyMap<string, HostToolRow> = new Map(HOST_TOOLS.flatMap((entry) => entry.tools.filter((tool) => tool !== "").map((tool) => [tool, entry] as const)))

/** The row of a tool (exact names first, then shapes, then the generic row). `enabled` switches rows off (Lab). */
export function hostTool(tool: string, enabled: (name: string) => boolean = () => true): HostToolRow {
  const name = tool.toLowerCase()
  const exact = BY_NAME.get(name)
  if (exact !== undefined) return enabled(exact.name) ? exact : GENERIC_TOOL
  const shaped = HOST_TOOLS.find((entry) => entry.pattern?.test(name) === true)
  return shaped !== undefined && enabled(shaped.name) ? shaped : GENERIC_TOOL
}

/** The names of all rows, for the Lab's `--without`. */
export const HOST_TOOL_ROW_NAMES: readonly string[] = [...HOST_TOOLS.map((entry) => entry.name), GENERIC_TOOL.name]

/** What smart drops read of a tool call's input (`LiveItem.input`), taken once from the host's input object. */
export type ToolInputFacts = {
  /** The one file a file-writing call names; null for other calls and calls naming no file or several. */
  editedFile: string | null
  /** The `action` the input states, when it is a string (a ctx_note call's). */
  action: string | null
}

/** A tool call's `ToolInputFacts`: the one file a writing call names, and its action. */
export function toolInputFacts(tool: string, input: Record<string, unknown>): ToolInputFacts {
  const paths = hostTool(tool).writes ? toolPaths(tool, input) : []
  const action = input["action"]
  return { editedFile: paths.length === 1 ? (paths[0] ?? null) : null, action: typeof action === "string" ? action : null }
}

/**
 * The files a call names: the row's path keys, a multiedit's inner paths, and every file of a patch (`patchText`,
 * or a unified diff), in input order without repeats.
 */
export function toolPaths(tool: string, input: Record<string, unknown>, enabled?: (name: string) => boolean): string[] {
  const entry = hostTool(tool, enabled)
  const paths: string[] = []
  const add = (value: unknown): void => {
    if (typeof value === "string" && value.trim() !== "" && !paths.includes(value)) paths.push(value)
  }
  for (const key of entry.pathKeys) add(input[key])
  const edits = input["edits"]
  if (Array.isArray(edits)) for (const edit of edits) if (edit !== null && typeof edit === "object") add((edit as Record<string, unknown>)["filePath"])
  for (const file of toolPatch(entry, input)) add(file.path)
  return paths
}

/**
 * What DENSE keeps of a read file: a source file's (by its extension) code states no rules (`require Ash.Query`,
 * `max-height: 100px` are not a rule and a limit), so only its comments are read as a document's lines.
 */
export function readKeep(row: HostToolRow, path: string | null): OutputKeep {
  if (row.keep !== "document" || path === null) return row.keep
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase()
  return extension !== undefined && CODE_EXTENSIONS.has(extension) ? "code" : "document"
}

const CODE_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    "ts tsx mts cts js jsx mjs cjs py pyi rb go rs java kt kts scala swift c h cc cpp cxx hpp cs fs ex exs erl hrl hs " +
    "ml php lua pl sh bash zsh fish ps1 sql vue svelte astro html htm css scss sass less dart r jl zig nim clj elm gleam"
  ).split(" "),
)

/** The output without the lines the row names as framing (all of it for a row without framing). */
export function withoutFraming(row: HostToolRow, output: string): string {
  const { framing } = row
  if (framing === undefined) return output
  return output
    .split("\n")
    .filter((line) => !framing.test(line))
    .join("\n")
}

/** The files and lines of a patch tool's input (empty for any other tool). */
export function toolPatch(entry: HostToolRow, input: Record<string, unknown>): PatchFile[] {
  if (!entry.patch) return []
  const text = input["patchText"] ?? input["patch"] ?? input["diff"]
  return typeof text === "string" ? patchFiles(text) : []
}

/** The one path a call names first, or null (a superseded edit's marker, the working set). */
export function toolPath(tool: string, input: Record<string, unknown>): string | null {
  return toolPaths(tool, input)[0] ?? null
}
