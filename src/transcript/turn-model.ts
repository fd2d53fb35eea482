/**
 * The normalized turn model: every transcript format (an `opencode export`, pi, Claude Code, OpenHands,
 * SWE-agent) is read into this shape, and the engine replays it through the same pass as a live session.
 *
 * A turn is one source record. `index` is that record's number exactly as `traces/SOURCES.md` defines it per
 * format, so "turn K" in any output names the same record in the source file. Where a format splits what the model
 * saw as one message over several records (Claude Code), the turn is indexed by its first record and lists the
 * others in `mergedRecords`.
 */

export type TranscriptFormat = "opencode-export" | "pi" | "claude-code" | "openhands" | "swe-agent"

/** `tool` turns carry results of calls made in an earlier assistant turn (and any user text sent with them). */
export type TurnRole = "user" | "assistant" | "tool"

export type TextPart = {
  type: "text"
  text: string
  /** Text the harness inserted rather than a person or the model wrote (e.g. file contents, reminders). */
  synthetic?: boolean
}

export type ReasoningPart = { type: "reasoning"; text: string }

export type ToolCallPart = {
  type: "tool-call"
  callId: string
  tool: string
  /** The arguments as the model sent them (usually an object). */
  input: unknown
}

export type ToolResultPart = {
  type: "tool-result"
  callId: string
  tool: string
  output: string
  isError: boolean
  /**
   * When the host pruned this output (epoch ms; OpenCode's `state.time.compacted`). Prompts sent after that carry
   * PRUNED_TOOL_TEXT in its place; `output` keeps the text the record holds.
   */
  prunedAt?: number
}

export type FilePart = { type: "file"; mime: string; filename: string; url: string }

export type TurnPart = TextPart | ReasoningPart | ToolCallPart | ToolResultPart | FilePart

export type Turn = {
  /**
   * The source record index (see the module comment). Strictly increasing within a transcript, but for a Pi
   * compaction's summary: Pi sends it first, before the range it keeps, which its record follows.
   */
  index: number
  role: TurnRole
  /** Epoch milliseconds, when the source has a timestamp. */
  time: number | null
  parts: TurnPart[]
  /**
   * Other source records whose content this turn carries, in file order (Claude Code: the later records of one model
   * response, the enqueue record of a message queued while the agent worked). Absent when the turn is one record.
   */
  mergedRecords?: number[]
  /** The provider's usage report of an assistant turn's request, when the source records one (pi). */
  usage?: TurnUsage
}

/** Prompt and output tokens as the provider reported them (input not read from the cache, cache reads and writes). */
export type TurnUsage = { input: number; output: number; cacheRead: number; cacheWrite: number }

export type ModelRef = { providerID: string; modelID: string }

export type Transcript = {
  format: TranscriptFormat
  /** The file as given (without a `#N` suffix). */
  file: string
  /** The selected trajectory of a multi-trajectory file, null for single-trajectory formats. */
  trajectory: number | null
  /** A stable identifier for the session (the source's own id when it has one). */
  id: string
  /** The model that produced most assistant turns, when known. */
  model: ModelRef | null
  /** The system prompt, when the source records one (SWE-agent, OpenHands). */
  system: string | null
  turns: Turn[]
  /** Source records of a type the importer does not know, counted by type: skipped, not a reason to refuse the file. */
  skippedRecords?: Readonly<Record<string, number>>
  /** Lines before the transcript that are not JSON (a command's status line), skipped as they were. */
  skippedLeadingLines?: readonly string[]
}
