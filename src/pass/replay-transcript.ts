import { applyRenderedEdits } from "../session/apply-edits.js"
import type { Band } from "../pressure/bands.js"
import type { WindowSettings } from "../pressure/model-window.js"
import type { Breakdown } from "../render/measure-prompt.js"
import type { Database } from "../store/driver.js"
import { resetDerivedState } from "../store/session-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { createHostTranscriptBuilder } from "../transcript/host-transcript-builder.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { Transcript } from "../transcript/turn-model.js"
import { REDUCE_TOOL } from "../reduce/agent-texts.js"
import { queueReduceCall, reduceContextOf, type ReduceContext } from "./queue-reduce-call.js"
import { createSession } from "./session.js"
import type { Clock } from "./system-clock.js"
import { createHistoryPlanner, type HistoryPlanner, type SelectionGuide } from "./history-planner.js"
import type { SelectionPolicy } from "../render/select-tiers.js"
import type { PinPattern } from "../historian/pin-patterns.js"
import type { Recognizers } from "../session/recognizers.js"

/** What the engine did before one model call of a replayed transcript. */
export type ReplayTurn = {
  /** The source record index of the assistant turn this prompt was sent for. */
  turn: number
  /** `execute` when the pass applied work (a new epoch), `replay` when it re-rendered the same applied state. */
  pass: "execute" | "replay"
  /** Why the pass decided as it did (see `decidePass`). */
  reason: string
  band: Band
  /** Messages in the prompt. */
  messages: number
  /** Tokens of the prompt sent, by where they go; `fixed` is the transcript's system prompt when it records one. */
  tokens: Breakdown
  /** Usage before the pass, as a share of the usable window (percent). */
  usageBefore: number
  /** True when the previous turn's prompt is not a byte prefix of this one. */
  prefixChanged: boolean
  /** UTF-8 byte offset of the first difference from the previous prompt (null when it is a prefix). */
  firstDivergence: number | null
  /** Tags whose drop landed in this pass. */
  dropped: number[]
  nudge: { level: string; channel: 1 | 2 } | null
  /** The compartments' applied tiers (display id -> tier) and how many are below their floor; null before any fold. */
  history: { tiers: Record<string, string>; floorViolations: number; switches: number; recalledLines: number; recalledTokens: number } | null
  /** Tags that appear in this prompt and not in the previous one (on a fresh store: the tags this pass assigned). */
  newTags: number[]
  /** Tags on the items of this prompt: the session's tags up to this turn, also when the store already held more. */
  tagCount: number
  /** The rendered prompt, for callers that inspect it (the Lab); not printed by the CLI. */
  prompt: HostMessage[]
}

/**
 * Runs the engine over a transcript as if it were the live session: before every assistant turn (a model call)
 * one pass runs over the messages of all earlier turns, exactly as the transform hook would, against `window`,
 * with the turn's timestamp as the time the request goes out. A ctx_reduce call the recorded agent made (a session
 * recorded with magic-context) is queued as the live tool queued it, against the pass before it; otherwise what
 * changes the prompt is reclaim, smart drops and history on execute passes. Calls `onTurn` for each pass, in order.
 */
export function replayTranscript(options: {
  transcript: Transcript
  db: Database
  counter: TokenCounter
  clock: Clock
  window: WindowSettings
  smartDrops: boolean
  policy: SelectionPolicy
  /** Facts these match are pinned (config `pins`). */
  pinPatterns?: readonly PinPattern[]
  /** The Lab only: guides the oracle and the promotion condition (see `SelectionGuide`). */
  guide?: SelectionGuide | null
  /** The Lab only: the named rules switched on (`lab --without`, `lab --folds`); all of them when absent. */
  recognizers?: Recognizers
  /** False replays as for an agent without ctx_reduce: no tags, no reminders, recorded calls ignored (default true). */
  tagsVisible?: boolean
  /** Tokens of the system prompt and tool definitions, for a transcript that does not record them (default: its system prompt's). */
  fixedTokens?: number
  /**
   * Calibrate against the usage the transcript records (default false): right for a session recorded with
   * magic-context, whose requests were the prompts this replay renders; wrong for any other (its reports are of the
   * unreduced prompts).
   */
  calibrate?: boolean
  /** False replays with the historian off (config `historian.strategy: "off"`): nothing is ever folded (default true). */
  historian?: boolean
  /** Called with a turn's source index before its pass runs (the Lab moves its guide along). */
  beforeTurn?: (turn: number) => void
  onTurn: (turn: ReplayTurn) => void
}): { passes: number; sessionId: string } {
  const { transcript, db, counter, clock, onTurn, window } = options
  const sessionId = `replay:${transcript.format}:${transcript.id}${transcript.trajectory === null ? "" : `#${transcript.trajectory}`}`
  // A replay into a store that holds an earlier run starts over: the output depends on the transcript alone.
  db.transaction(() => resetDerivedState(db, sessionId))
  const history = options.historian === false ? null : createHistoryPlanner({
    db,
    sessionId,
    counter,
    policy: options.policy,
    pinPatterns: options.pinPatterns ?? [],
    guide: options.guide ?? null,
    recognizers: options.recognizers,
    // As in the shells: a pass's cut is stored once its edits are written into the messages (below).
    deferCuts: true,
  })
  const info = { id: sessionId, source: "replay" as const, projectId: null, directory: null, title: transcript.file }
  const session = createSession({ db, info, counter, now: clock.now(), defersRecords: false, planner: history })
  const state = session.state
  // Nothing of the earlier run shapes this one: its estimates (growth per call, calibration) and its pass numbers.
  state.recentEstimates = []
  state.firstPass = state.nextPass
  const builder = createHostTranscriptBuilder(transcript, sessionId, { usage: options.calibrate === true })
  const fixed = options.fixedTokens ?? counter.count(transcript.system ?? "")
  const tagsVisible = options.tagsVisible ?? true
  let last: ReduceContext | null = null
  let passes = 0
  let previousTags = new Set<number>()

  for (const turn of transcript.turns) {
    if (turn.role === "assistant") {
      options.beforeTurn?.(turn.index)
      const messages = builder.snapshot()
      if (messages.length > 0) {
        const result = session.pass({
          messages,
          counter,
          clock,
          trigger: "replay",
          tagsVisible,
          window,
          fixedTokens: fixed,
          now: turn.time ?? turn.index,
          smartDrops: options.smartDrops,
        })
        const promptTags = messages.flatMap((message) =>
          message.parts.flatMap((part) => state.tagsByPart.get(part.id)?.tag ?? []),
        )
        const newTags = promptTags.filter((tag) => !previousTags.has(tag)).sort((a, b) => a - b)
        previousTags = new Set(promptTags)
        last = reduceContextOf(result, window, messages)
        applyRenderedEdits(messages, result.rendered, result.edits)
        session.settle()
        passes += 1
        onTurn({
          turn: turn.index,
          pass: result.decision,
          reason: result.reason,
          band: result.band,
          messages: messages.length,
          tokens: result.breakdown,
          usageBefore: (result.usageBefore / window.usableTokens) * 100,
          prefixChanged: result.prefixChanged,
          firstDivergence: result.firstDivergence,
          dropped: result.dropped,
          nudge: result.nudge,
          history: history ? historyOf(history) : null,
          newTags,
          tagCount: promptTags.length,
          prompt: messages,
        })
      }
    }
    builder.append(turn)
    if (tagsVisible && last && turn.role === "assistant") {
      for (const part of turn.parts) {
        if (part.type !== "tool-call" || part.tool !== REDUCE_TOOL) continue
        const input = part.input !== null && typeof part.input === "object" ? (part.input as Record<string, unknown>) : {}
        queueReduceCall({ db, state, last, drop: input["drop"], now: turn.time ?? turn.index })
      }
    }
  }
  return { passes, sessionId }
}

function historyOf(planner: HistoryPlanner): ReplayTurn["history"] {
  const report = planner.report()
  if (!report) return null
  const { tiers, floorViolations, recalledLines, recalledTokens } = report
  return { tiers, floorViolations, switches: planner.switches(), recalledLines, recalledTokens }
}
