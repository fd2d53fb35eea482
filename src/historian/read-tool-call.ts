import { hostTool, toolPatch, toolPaths, withoutFraming, type HostToolRow } from "../session/host-tools.js"
import type { PatchFile } from "../session/patch-text.js"
import { ALL_RECOGNIZERS, type Recognizers } from "../session/recognizers.js"
import { isFinalPart, type HostToolPart } from "../transcript/host-message.js"
import { isPrunedTool, toolResultText } from "../transcript/part-content.js"
import { fallbackErrorLines, findErrorLines } from "./error-lines.js"
import { failureHeaderLocation, firstStackFrame, lastTracebackFrame } from "./failure-locations.js"
import { isDocumentCommand, isSearchCommand, programOf } from "./shell-commands.js"
import { createToolCallMemo } from "./tool-call-memo.js"
import { formatLocation, extractLocations, type LocationMatch } from "./extract-locations.js"
import { MAX_KEPT_LINES, outputLines } from "./output-lines.js"
import { outputConstraints, outputKeep } from "./output-reading.js"
import { outputFacts } from "./output-facts.js"
import { labelledIds, prefixedIds, returnedIds, statedIdentifiers } from "./returned-ids.js"
import { negativeResult } from "./negative-result.js"
import { addedLines, editTexts, firstString } from "./edit-texts.js"
import { questionAnswers } from "./question-answers.js"

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
  /** Paths named by the input (`path`, `filePath`, …, every file of a patch, or an `open` command). */
  paths: string[]
  /** True for tools that change a file (edit, write, apply_patch, …). */
  touches: boolean
  /** The error lines when the call failed (status error or an output that states an error). */
  errorLines: string[]
  /** A search that exited non-zero with no other output: "no matches", not a failure. */
  noMatches: boolean
  /** What a read-only call found nothing of (`negative-result.ts`: "no matches", "empty", "no output"), else null. */
  absence: string | null
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
  /** The user's answers a question tool returned (`question-answers.ts`): the user's own words. */
  answers: string[]
  /** Ids the tool returned (an issue key, a record id, a created URL) when it is not read-only. */
  returnedIds: string[]
  /** What DENSE keeps of the output (output-lines.ts), escape codes stripped. */
  keptLines: string[]
  /** The few of them COMPACT keeps too (an error's cause, a rule, a limit, a result summary). */
  keyLines: string[]
  /** What DENSE keeps of an edit: each file's path and some of the lines it added. */
  added: { path: string; lines: string[] }[]
}

const remembered = createToolCallMemo<ToolCallReading>()

/**
 * Reads one tool part; a finished call read before comes from memory (tool-call-memo.ts). `recognizers` switches
 * named rules off (the Lab's ablations); the engine uses all.
 */
export function readToolCall(part: HostToolPart, recognizers: Recognizers = ALL_RECOGNIZERS): ToolCallReading {
  const output = outputOf(part)
  return remembered(part, output, recognizers, () => readPart(part, output, recognizers))
}

function readPart(part: HostToolPart, rawOutput: string, recognizers: Recognizers): ToolCallReading {
  const input = part.state.input
  const row = hostTool(part.tool, recognizers.on)
  const output = withoutFraming(row, rawOutput)
  const command = commandOf(row, part.tool, input)
  const paths = toolPaths(part.tool, input, recognizers.on)
  const opened = openedPath(part.tool, command)
  if (opened !== null && !paths.includes(opened)) paths.push(opened)
  const path = paths[0] ?? null
  // A page, prose file or help text printed through the shell is content to read, as a read tool's is
  // (`shell-documents`): the errors and exit codes it documents are not the call's.
  const printsDocument = row.shell && command !== null && recognizers.on("shell-documents") && isDocumentCommand(command)
  const isSearch = row.readOnly || (command !== null && isSearchCommand(command)) || printsDocument
  const scan = scanFailure(part, output, isSearch, recognizers)
  const succeeded = part.state.status === "completed" && scan.errorLines.length === 0
  const found = outputFacts(output, { isSearch, definitionsFirst: recognizers.on("definition-hits") })
  const patch = toolPatch(row, input)
  const edit = editTexts(row, patch, part.tool, input, command)
  const keep = outputKeep(row, command, path, recognizers)
  // A search's exit note is no line worth keeping: its "no matches" is the absence below.
  const answers = succeeded && row.userWords === true && recognizers.on("question-answers") ? questionAnswers(output) : []
  // A printed page keeps a read page's count of lines, chosen by its row's rules (`printed-page-lines`).
  const places = printsDocument && recognizers.on("printed-page-lines") ? { places: MAX_KEPT_LINES.document } : {}
  const lines =
    scan.interrupted || scan.noMatches ? { kept: [], key: [] } : outputLines({ keep, output, failed: !succeeded, recognizers, ...places })
  return {
    tool: part.tool,
    summary: summarize(part.tool, input, command, paths),
    status: (part.state.status === "error" && !scan.noMatches) || scan.errorLines.length > 0 ? "error" : "ok",
    command,
    isSearch,
    paths,
    touches: row.writes,
    errorLines: scan.errorLines,
    noMatches: scan.noMatches,
    absence:
      isSearch && (succeeded || scan.noMatches) && !scan.interrupted && recognizers.on("negative-results")
        ? negativeResult({ output, keep, noMatches: scan.noMatches })
        : null,
    interrupted: scan.interrupted,
    locations: [
      ...inputLocations(input, path, command),
      ...scan.locations,
      ...(succeeded && recognizers.on("search-hits") ? found.locations : []),
      // A test run that reports a failure may still complete (its runner's exit status is not the call's).
      ...(!isSearch && !scan.interrupted && recognizers.on("failure-location") ? failureHeaderLocation(output) : []),
    ],
    edit,
    todos: todosOf(input),
    lineRange: lineRangeOf(command),
    commits: succeeded && recognizers.on("commit-hash") ? found.commits : [],
    // The user's answers are pinned whole; their rule lines are not pinned again.
    constraints: succeeded && answers.length === 0 ? outputConstraints(row, output, recognizers) : [],
    answers,
    returnedIds: isSearch ? [] : [
      ...(succeeded && recognizers.on("tool-ids") ? returnedIds(output) : []),
      ...(succeeded && row.shell && recognizers.on("stated-identifiers")
        ? statedIdentifiers(output, { wholeStamps: recognizers.on("whole-version-stamps") })
        : []),
      ...(succeeded && recognizers.on("prefixed-ids") ? prefixedIds(output) : []),
      // A failed call's labelled ids count too: the request id of a refused call is what a report names.
      ...(recognizers.on("labelled-ids") ? labelledIds(output) : []),
    ],
    keptLines: lines.kept,
    keyLines: lines.key,
    added: addedLines(row, patch, paths, edit, recognizers),
  }
}

const PATTERN_KEYS: readonly string[] = ["pattern", "query", "regex", "glob"]

function commandOf(row: HostToolRow, tool: string, input: Record<string, unknown>): string | null {
  const raw = firstString(input, ["command", "cmd"])
  if (raw === null) return null
  const firstLine = raw.trim().split("\n")[0]?.trim() ?? ""
  if (firstLine === "") return null
  if (row.shell) {
    const args = input["args"]
    const words = Array.isArray(args) ? args.filter((arg): arg is string => typeof arg === "string") : []
    return words.length > 0 && !firstLine.includes(" ") ? `${firstLine} ${words.join(" ")}` : firstLine
  }
  // SWE-agent: the tool is the command's first word (`edit 287:296`, `python reproduce.py`).
  return firstLine.split(/\s+/)[0] === tool ? firstLine : null
}

function openedPath(tool: string, command: string | null): string | null {
  if (tool !== "open" || command === null) return null
  return command.split(/\s+/)[1] ?? null
}

function summarize(tool: string, input: Record<string, unknown>, command: string | null, paths: readonly string[]): string {
  if (command !== null) return command.startsWith(tool) ? command : `${tool} ${command}`
  const path = paths.length > 1 ? paths.join(", ") : (paths[0] ?? null)
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
export function outputOf(part: HostToolPart): string {
  if (!isFinalPart(part) || isPrunedTool(part)) return ""
  return toolResultText(part)
}

function scanFailure(part: HostToolPart, output: string, isSearch: boolean, recognizers: Recognizers): FailureScan {
  const errored = part.state.status === "error"
  if (errored && INTERRUPTION.test(output)) return { ...NO_FAILURE, interrupted: true }
  if (!errored && isSearch) return NO_FAILURE
  if (isSearch && isOnlyExitNote(output)) return { ...NO_FAILURE, noMatches: true }
  const scan = findErrorLines(output, { cause: recognizers.on("error-cause"), answers: recognizers.on("error-answer") })
  if (!scan.failed && !errored) return NO_FAILURE
  const errorLines = scan.lines.length > 0 ? scan.lines : fallbackErrorLines(output)
  const locations = [...errorLines.flatMap((line) => extractLocations(line)), ...lastTracebackFrame(output), ...firstStackFrame(output, { dotnet: recognizers.on("dotnet-locations") })]
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
