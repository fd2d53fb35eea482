import { hostTool, toolPath, toolPaths } from "../session/host-tools.js"
import type { HostMessage } from "../transcript/host-message.js"
import { readToolCall } from "./read-tool-call.js"

/** What keeps the agent oriented whatever got demoted (re-derived on every execute pass). */
export type WorkingSet = {
  /** The newest request in the user's own words. */
  objective: string | null
  /** Files the session edited or wrote: the MAX_FILES most recently modified, in first-touch order. */
  filesModified: string[]
  /** How many other (less recently modified) files the session wrote: counted, not listed. */
  earlierFilesModified: number
  /** Todo items not completed, from the newest todowrite. */
  openTodos: string[]
  /** The newest failing command and its first error line, while nothing has succeeded with it since. */
  lastFailure: { command: string; error: string } | null
}

const OBJECTIVE_CHARS = 400
/** The working set lists at most this many modified files (a long session writes hundreds). */
export const MAX_FILES = 20

/**
 * What one message adds to the working set, in its own order: the newest user text in it, the files it wrote, its
 * newest todo list, and the outcome of each finished call (an error, or null for a success). A function of the
 * message's content alone, so a pass may keep it while the message is unchanged (`WorkingSetSource`).
 */
export type WorkingFacts = {
  objective: string | null
  writes: readonly string[]
  todos: readonly string[] | null
  calls: readonly { command: string; error: string | null }[]
}

/** Where `deriveWorkingSet` gets a message's facts: `workingFacts`, or a memo of it. */
export type WorkingSetSource = (message: HostMessage) => WorkingFacts

/**
 * Derives the working set from the live messages: the current objective, the files modified, the open todos and
 * the last failing command. Pure; the history message ends with it so that an agent whose earlier
 * episodes were demoted does not re-read the same files to find its place. Each message is read once
 * (`workingFacts`, or the caller's memo of it), then the messages' facts are folded oldest first.
 */
export function deriveWorkingSet(messages: readonly HostMessage[], factsOf: WorkingSetSource = workingFacts): WorkingSet {
  const fold = emptyWorkingFold()
  for (const message of messages) foldWorkingFacts(fold, factsOf(message))
  return workingSetOf(fold)
}

/**
 * The working set's fold over the messages read so far, oldest first: a pass over a session that only grew takes up
 * a copy of the last pass's fold (`copyWorkingFold`) and folds the new messages into it.
 */
export type WorkingFold = {
  objective: string | null
  /** File -> when it was last written (a running count of writes): first-touch order is the map's own order. */
  files: Map<string, number>
  openTodos: readonly string[]
  lastFailure: WorkingSet["lastFailure"]
  writes: number
}

export function emptyWorkingFold(): WorkingFold {
  return { objective: null, files: new Map(), openTodos: [], lastFailure: null, writes: 0 }
}

export function copyWorkingFold(fold: WorkingFold): WorkingFold {
  return { ...fold, files: new Map(fold.files) }
}

/** Folds the next message's facts into `fold`. */
export function foldWorkingFacts(fold: WorkingFold, facts: WorkingFacts): void {
  if (facts.objective !== null) fold.objective = facts.objective
  for (const file of facts.writes) fold.files.set(file, (fold.writes += 1))
  if (facts.todos !== null) fold.openTodos = facts.todos
  for (const call of facts.calls) {
    if (call.error !== null) fold.lastFailure = { command: call.command, error: call.error }
    else if (fold.lastFailure && fold.lastFailure.command === call.command) fold.lastFailure = null
  }
}

/** The working set the fold stands for. */
export function workingSetOf(fold: WorkingFold): WorkingSet {
  const { files } = fold
  const newest = new Set([...files.entries()].sort((a, b) => b[1] - a[1]).slice(0, MAX_FILES).map(([file]) => file))
  const filesModified = [...files.keys()].filter((file) => newest.has(file))
  return { objective: fold.objective, filesModified, earlierFilesModified: files.size - filesModified.length, openTodos: [...fold.openTodos], lastFailure: fold.lastFailure }
}

/** One message's working facts (see `WorkingFacts`). */
export function workingFacts(message: HostMessage): WorkingFacts {
  let objective: string | null = null
  const writes: string[] = []
  let todos: string[] | null = null
  const calls: { command: string; error: string | null }[] = []
  for (const part of message.parts) {
    if (part.type === "text" && message.info.role === "user" && !part.synthetic && !part.ignored && part.text.trim()) {
      objective = part.text.trim().slice(0, OBJECTIVE_CHARS)
    }
    if (part.type !== "tool") continue
    const input = part.state.input as Record<string, unknown>
    if (hostTool(part.tool).writes) writes.push(...toolPaths(part.tool, input))
    if (part.tool === "todowrite" && Array.isArray(input["todos"])) {
      todos = (input["todos"] as unknown[])
        .filter((todo): todo is Record<string, unknown> => todo !== null && typeof todo === "object")
        .filter((todo) => todo["status"] !== "completed" && todo["status"] !== "cancelled")
        .map((todo) => String(todo["content"] ?? ""))
        .filter(Boolean)
    }
    if (part.state.status !== "completed" && part.state.status !== "error") continue
    // The same reading as the canonical record's: a search hit that quotes `throw new Error(` is no failure.
    const reading = readToolCall(part)
    if (reading.interrupted) continue
    const command = commandOf(part.tool, input)
    const error =
      reading.status === "error"
        ? (reading.errorLines.join(" | ") || firstLine(part.state.status === "error" ? part.state.error : "")).slice(0, 300)
        : null
    calls.push({ command, error })
  }
  // A session keeps one message's facts per message: most have no write or no finished call, and share one empty list.
  return { objective, writes: writes.length === 0 ? NO_WRITES : writes, todos, calls: calls.length === 0 ? NO_CALLS : calls }
}

const NO_WRITES: readonly string[] = Object.freeze([])
const NO_CALLS: WorkingFacts["calls"] = Object.freeze([])

function commandOf(tool: string, input: Record<string, unknown>): string {
  const value = input["command"] ?? toolPath(tool, input) ?? input["pattern"]
  return typeof value === "string" ? `${tool} ${value.split("\n")[0]?.slice(0, 200) ?? ""}` : tool
}

function firstLine(text: string): string {
  return (text.split("\n").find((line) => line.trim()) ?? "").trim().slice(0, 300)
}
