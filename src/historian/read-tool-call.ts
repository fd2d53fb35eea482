import { isFinalPart, type HostToolPart } from "../transcript/host-message.js"
import { isPrunedTool, toolResultText } from "../transcript/part-content.js"
import { fallbackErrorLines, findErrorLines } from "./error-lines.js"
import { formatLocation, extractLocations, type LocationMatch } from "./extract-locations.js"
import { outputFacts, specConstraints } from "./output-facts.js"

/** What the canonical record needs from one tool part. */
export type ToolCallReading = {
  tool: string
  /** Tool name and key argument (path, command, pattern), e.g. `bash npm test` or `read src/a.ts:10`. */
  summary: string
  status: "ok" | "error"
  /** The command line a shell-like tool ran (first line), else null. */
  command: string | null
  /** A read-only call (read, grep, cat, ls, …): its paths count, its command is not an identifier. */
  isSearch: boolean
  /** Paths named by the input (`path`, `filePath`, …, or an `open` command). */
  paths: string[]
  /** True for tools that change a file (edit, write, …). */
  touches: boolean
  /** The error lines when the call failed (status error or an output that states an error). */
  errorLines: string[]
  /** A search that exited non-zero with no other output: "no matches", not a failure. */
  noMatches: boolean
  /** The person stopped the call (rejected the tool use, interrupted it): not a failure of the work. */
  interrupted: boolean
  /** Line locations from the input (view_range, offset, insert_line) and from the error output. */
  locations: LocationMatch[]
  /** The text an edit wrote and the text it replaced (for the identifiers it introduced). */
  edit: { newText: string; oldText: string } | null
  /** The items of a todo list the call wrote. */
  todos: { content: string; status: string }[] | null
  /** SWE-agent `edit a:b` / `goto n`: lines of the file an earlier `open` left open. */
  lineRange: { start: number; end: number } | null
  /** `[branch hash]` lines of a successful output (`git commit`). */
  commits: string[]
  /** Items listed under a rules heading in a successful output (a task spec's constraints). */
  constraints: string[]
}

/** Reads one tool part. */
export function readToolCall(part: HostToolPart): ToolCallReading {
  const input = part.state.input
  const command = commandOf(part.tool, input)
  const path = firstString(input, PATH_KEYS) ?? openedPath(part.tool, command)
  const output = outputOf(part)
  const isSearch = CONTENT_TOOLS.has(part.tool.toLowerCase()) || (command !== null && isSearchCommand(command))
  const scan = scanFailure(part, output, isSearch)
  const succeeded = part.state.status === "completed" && scan.errorLines.length === 0
  const found = outputFacts(output, { isSearch })
  return {
    tool: part.tool,
    summary: summarize(part.tool, input, command, path),
    status: part.state.status === "error" || scan.errorLines.length > 0 ? "error" : "ok",
    command,
    isSearch,
    paths: path === null ? [] : [path],
    touches: TOUCHING_TOOLS.has(part.tool.toLowerCase()),
    errorLines: scan.errorLines,
    noMatches: scan.noMatches,
    interrupted: scan.interrupted,
    locations: [...inputLocations(input, path, command), ...scan.locations, ...(succeeded ? found.locations : [])],
    edit: editTexts(part.tool, input, command),
    todos: todosOf(input),
    lineRange: lineRangeOf(command),
    commits: succeeded ? found.commits : [],
    constraints: succeeded ? specConstraints(output) : [],
  }
}

/** True for read-only shell commands (their output is content, and a non-zero exit means "no matches"). */
export function isSearchCommand(command: string): boolean {
  const program = programOf(command)
  if (SEARCH_PROGRAMS.has(program.split(" ")[0] ?? "")) return true
  return /^(?:git (?:log|show|diff|status|branch)|sed -n)\b/.test(program)
}

/** The command without a leading `cd <dir> &&` and a trailing `2>&1` (still a verbatim slice of the original). */
export function programOf(command: string): string {
  return command
    .replace(/^\s*cd\s+\S+\s*&&\s*/, "")
    .replace(/\s+2>&1\s*$/, "")
    .trim()
}

const PATH_KEYS = ["filePath", "file_path", "path", "filename", "file", "notebook_path"]
const PATTERN_KEYS = ["pattern", "query", "regex", "glob"]
const SHELL_TOOLS = new Set(["bash", "shell", "run", "execute_bash", "exec", "terminal", "cmd", "powershell"])
const CONTENT_TOOLS = new Set(
  (
    "read view glob grep list ls webfetch websearch find_file search_dir search_file open goto scroll_up scroll_down " +
    "todowrite todoread think task taskoutput skill"
  ).split(" "),
)
const TOUCHING_TOOLS = new Set(["edit", "write", "multiedit", "patch", "apply_patch", "create", "str_replace_editor"])
const SEARCH_PROGRAMS = new Set(
  "grep rg ag ack find fd ls cat head tail wc echo pwd which file stat tree less more awk jq du df printf".split(" "),
)

function commandOf(tool: string, input: Record<string, unknown>): string | null {
  const raw = firstString(input, ["command", "cmd"])
  if (raw === null) return null
  const firstLine = raw.trim().split("\n")[0]?.trim() ?? ""
  if (firstLine === "") return null
  if (SHELL_TOOLS.has(tool.toLowerCase())) return firstLine
  // SWE-agent: the tool is the command's first word (`edit 287:296`, `python reproduce.py`).
  return firstLine.split(/\s+/)[0] === tool ? firstLine : null
}

function openedPath(tool: string, command: string | null): string | null {
  if (tool !== "open" || command === null) return null
  return command.split(/\s+/)[1] ?? null
}

function summarize(tool: string, input: Record<string, unknown>, command: string | null, path: string | null): string {
  if (command !== null) return command.startsWith(tool) ? command : `${tool} ${command}`
  const mode = typeof input["command"] === "string" && /^\w+$/.test(input["command"]) ? ` (${input["command"]})` : ""
  const pattern = firstString(input, PATTERN_KEYS)
  if (pattern !== null) return `${tool} ${pattern}${path === null ? "" : ` in ${path}`}`
  if (path !== null) return `${tool} ${path}${mode}`
  const todos = todosOf(input)
  if (todos !== null) return `${tool} ${todos.length} items`
  const other = firstString(input, ["url", "description", "prompt", "thought", "task_id"])
  if (other === null) return tool
  const line = other.split("\n")[0] ?? ""
  return `${tool} ${line.length > 100 ? `${line.slice(0, 100)}…` : line}`
}

/** The output the model read, or "" when it read none (an unfinished call, an output OpenCode pruned). */
function outputOf(part: HostToolPart): string {
  if (!isFinalPart(part) || isPrunedTool(part)) return ""
  return toolResultText(part)
}

function scanFailure(
  part: HostToolPart,
  output: string,
  isSearch: boolean,
): FailureScan {
  const errored = part.state.status === "error"
  if (errored && INTERRUPTION.test(output)) return { ...NO_FAILURE, interrupted: true }
  if (!errored && isSearch) return NO_FAILURE
  if (isSearch && isOnlyExitNote(output)) return { ...NO_FAILURE, noMatches: true }
  const scan = findErrorLines(output)
  if (!scan.failed && !errored) return NO_FAILURE
  const errorLines = scan.lines.length > 0 ? scan.lines : fallbackErrorLines(output)
  const locations = [...errorLines.flatMap(extractLocations), ...lastTracebackFrame(output), ...firstStackFrame(output)]
  return { ...NO_FAILURE, errorLines: errorLines.length > 0 ? errorLines : ["(no error text)"], locations }
}

type FailureScan = { errorLines: string[]; noMatches: boolean; interrupted: boolean; locations: LocationMatch[] }

const NO_FAILURE: FailureScan = { errorLines: [], noMatches: false, interrupted: false, locations: [] }

/** Harness texts for a call the person stopped (Claude Code's rejection, OpenCode's interruption). */
const INTERRUPTION = new RegExp(
  "^\\s*(?:The user doesn't want to proceed with this tool use" +
    "|\\[Request interrupted|\\[Tool execution was interrupted\\])" +
    "|(?:^|\\n)\\s*Command aborted\\s*$",
)

function isOnlyExitNote(output: string): boolean {
  const lines = output.split("\n").map((line) => line.trim()).filter((line) => line !== "")
  return lines.length <= 1 && lines.every((line) => /exit(?:ed with)? code 1\b|^Exit code 1$/i.test(line))
}

/** The raise site of a Python traceback: its last `File "…", line N` frame. */
function lastTracebackFrame(output: string): LocationMatch[] {
  const frames = [...output.matchAll(/File "([^"\n]+)", line (\d+)/g)]
  const last = frames.at(-1)
  if (last === undefined || last[1] === undefined) return []
  return [formatLocation(last[1], { line: Number(last[2]) })]
}

/** The throw site of a JavaScript stack: its first `at …path:line:col` frame outside node_modules. */
function firstStackFrame(output: string): LocationMatch[] {
  for (const line of output.split("\n")) {
    if (!/^\s+at\s/.test(line)) continue
    const location = extractLocations(line.replace(/file:\/\//g, ""))[0]
    if (location !== undefined && !location.path.includes("node_modules")) return [location]
  }
  return []
}

function inputLocations(input: Record<string, unknown>, path: string | null, command: string | null): LocationMatch[] {
  if (path === null) return []
  const range = input["view_range"]
  if (Array.isArray(range) && typeof range[0] === "number" && typeof range[1] === "number") {
    return [formatLocation(path, range[1] > range[0] ? { line: range[0], endLine: range[1] } : { line: range[0] })]
  }
  const line = [input["insert_line"], input["offset"]].find((value) => typeof value === "number" && value > 0)
  if (typeof line === "number") return [formatLocation(path, { line })]
  const opened = command === null ? null : /^open\s+\S+\s+(\d+)\b/.exec(command)
  if (opened?.[1] !== undefined) return [formatLocation(path, { line: Number(opened[1]) })]
  return []
}

function lineRangeOf(command: string | null): { start: number; end: number } | null {
  const match = command === null ? null : /^(?:edit\s+(\d+):(\d+)|goto\s+(\d+))\s*$/.exec(command)
  if (match === null) return null
  if (match[3] !== undefined) return { start: Number(match[3]), end: Number(match[3]) }
  return { start: Number(match[1]), end: Number(match[2]) }
}

function editTexts(
  tool: string,
  input: Record<string, unknown>,
  command: string | null,
): { newText: string; oldText: string } | null {
  const newText = firstString(input, ["newText", "new_string", "newString", "new_str"])
  if (newText !== null) {
    return { newText, oldText: firstString(input, ["oldText", "old_string", "oldString", "old_str"]) ?? "" }
  }
  if (tool === "edit" && command !== null && typeof input["command"] === "string") {
    const body = input["command"].split("\n").slice(1).join("\n").replace(/\nend_of_edit\s*$/, "")
    return body.trim() === "" ? null : { newText: body, oldText: "" }
  }
  return null
}

function todosOf(input: Record<string, unknown>): { content: string; status: string }[] | null {
  const todos = input["todos"]
  if (!Array.isArray(todos)) return null
  return todos.flatMap((todo: unknown) => {
    if (todo === null || typeof todo !== "object") return []
    const content = (todo as Record<string, unknown>)["content"]
    const status = (todo as Record<string, unknown>)["status"]
    return typeof content === "string" ? [{ content, status: typeof status === "string" ? status : "pending" }] : []
  })
}

function firstString(input: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const key of keys) {
    const value = input[key]
    if (typeof value === "string" && value.trim() !== "") return value
  }
  return null
}
