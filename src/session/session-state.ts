import { RecordMap, recordsByMessage } from "./record-map.js"
import type { KnownPart, TagRecord } from "./part-records.js"
import type { SerializedPrompt } from "./serialized-prompt.js"

export { promptTokensOf, type DropReason, type KnownPart, type PartKind, type TagRecord } from "./part-records.js"

/** The emergency drain: started by the force band, held until usage is well below the threshold or 30 minutes. */
export type DrainState = { active: false } | { active: true; startedAt: number }

/** A reminder written into the prompt; replayed byte-for-byte on every pass of its epoch. */
export type Placement = {
  kind: "nudge" | "steer"
  /** nudge: the tool part whose output carries it; steer: the message it is inserted after. */
  anchorId: string
  level: string
  text: string
  placedPass: number
}

/**
 * The state a render depends on besides the messages. It changes only on execute passes (a new epoch), except
 * that reminders may be appended to the new tail of a replay pass; so between execute passes the rendered prefix
 * never changes.
 */
export type AppliedState = {
  epoch: number
  lastExecutePass: number | null
  /** The newest message sequence number at the last execute pass: age-based reclaim looks only before it. */
  boundarySeq: number
  drain: DrainState
  /** Provider-reported prompt tokens minus our estimate for the same request (fixed prompt, tokenizer drift). */
  calibrationTokens: number
  calibratedMessageId: string | null
  lastNudgePass: number | null
  lastNudgeLevel: string | null
  lastReducePass: number | null
  history: FoldedHistory | null
  placements: Placement[]
}

/**
 * Settled conversation folded into history: the messages up to `foldedThroughSeq` leave the prompt and `text` (the
 * compartment history) takes their place at its start.
 */
export type FoldedHistory = {
  foldedThroughSeq: number
  text: string
  tokens: number
  /** The execute pass that folded it (absent in a record stored before passes recorded it). */
  foldedAtPass?: number
}

/** Compartment history ready to replace the settled conversation up to `foldThroughSeq`. */
export type ReadyHistory = { foldThroughSeq: number; text: string; tokens: number }

/** A drop the agent asked for that has not landed yet. */
export type QueuedDrop = { operationId: number; tag: number; queuedPass: number | null }

/**
 * The in-memory mirror of one session's stored state. Loaded from the store once per process, then kept in
 * step by each pass, so that a pass costs in proportion to the new material.
 */
export type SessionState = {
  sessionId: string
  nextTag: number
  nextSeq: number
  nextPass: number
  /**
   * Message id -> ingest sequence number. This map, `parts` and `tagsByPart` are `RecordMap`s in a session's state
   * (a plain Map works, and makes every pass check every message's records): records are replaced, never changed.
   */
  messageSeq: Map<string, number>
  parts: Map<string, KnownPart>
  tagsByPart: Map<string, TagRecord>
  tagsByNumber: Map<number, TagRecord>
  applied: AppliedState
  queued: Map<number, QueuedDrop>
  /** The canonical serialization of the last main prompt (in memory only; used to check the cache contract). */
  previousPrompt: SerializedPrompt | null
  /**
   * The host messages of the last main prompt, by their ids (in memory only; the memo's list of that pass, which no
   * later pass changes): a reminder may only go to a message new since.
   */
  previousMessageIds: readonly { readonly id: string }[] | null
  /** Recent passes' usage estimates, to calibrate against the usage the provider reports for their requests. */
  recentEstimates: PassEstimate[]
  /**
   * The pass the session's calls are counted from while no execute pass is known: 1, or a replay's own first pass in
   * a store that holds an earlier run (its pass numbers go on from there).
   */
  firstPass: number
}

/**
 * One pass's estimate of its request: all of it, and of that the fixed prompt (system prompt and tool definitions) as
 * the host's other hooks had told us by then. The fixed part is kept apart because its count can change without
 * the request changing (a new process learns the system prompt only after its first transform).
 */
export type PassEstimate = { seq: number; startedAt: number; estimate: number; fixed: number }

/** The applied state of a session that has never had an execute pass. */
export function initialAppliedState(): AppliedState {
  return {
    epoch: 0,
    lastExecutePass: null,
    boundarySeq: 0,
    drain: { active: false },
    calibrationTokens: 0,
    calibratedMessageId: null,
    lastNudgePass: null,
    lastNudgeLevel: null,
    lastReducePass: null,
    history: null,
    placements: [],
  }
}

/** A state for a session the store has never seen. */
export function emptySessionState(sessionId: string): SessionState {
  return {
    sessionId,
    nextTag: 1,
    nextSeq: 1,
    nextPass: 1,
    messageSeq: new RecordMap((id) => id),
    parts: recordsByMessage(),
    tagsByPart: recordsByMessage(),
    tagsByNumber: new Map(),
    applied: initialAppliedState(),
    queued: new Map(),
    previousPrompt: null,
    previousMessageIds: null,
    recentEstimates: [],
    firstPass: 1,
  }
}
