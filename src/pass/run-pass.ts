import { applyPlanToState, isEmptyPlan, planIngest } from "./plan-ingest.js"
import type { SessionState } from "./session-state.js"
import type { Database } from "../store/driver.js"
import { writeIngestPlan } from "../store/ingest-repository.js"
import { recordPass, type PassTrigger } from "../store/pass-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { HostMessage } from "../transcript/host-message.js"
import { measureComposition, type Composition } from "../render/composition.js"
import type { Edit } from "../render/edit.js"
import { planTagEdits } from "../render/plan-tag-edits.js"

export type Clock = { now(): number; elapsedMs(since: number): number; mark(): number }

export type PassOptions = {
  db: Database
  state: SessionState
  /** The host's messages. Read only: the caller applies the returned edits. */
  messages: readonly HostMessage[]
  counter: TokenCounter
  clock: Clock
  trigger: PassTrigger
  /** Whether `§N§` prefixes are written into the prompt. */
  tagsVisible: boolean
}

export type PassResult = {
  seq: number
  edits: Edit[]
  composition: Composition
  newTags: number[]
  newParts: number
  durationMs: number
}

/**
 * One pass: store what is new (raw content first, in one transaction), then render the tag prefixes and
 * measure the rendered prompt, then record the pass. Later stages (reductions, compartments) plug in between
 * render and record.
 */
export function runPass(options: PassOptions): PassResult {
  const { db, state, messages, counter, clock, trigger, tagsVisible } = options
  const started = clock.mark()
  const startedAt = clock.now()

  const plan = planIngest({ state, messages: messages as HostMessage[], counter })
  if (!isEmptyPlan(plan)) {
    db.transaction(() => writeIngestPlan(db, plan, startedAt))
    applyPlanToState(state, plan)
  }

  const edits = tagsVisible ? planTagEdits({ messages, tagsByPart: state.tagsByPart }) : []
  const composition = measureComposition({ messages, state, tagsRendered: tagsVisible })
  const durationMs = clock.elapsedMs(started)
  const seq = state.nextPass
  state.nextPass += 1
  const newTags = plan.tags.map((tag) => tag.tag)
  recordPass(db, {
    sessionId: state.sessionId,
    seq,
    startedAt,
    durationMs,
    trigger,
    decision: "replay",
    band: null,
    usageTokens: composition.total,
    windowTokens: null,
    messageCount: messages.length,
    newParts: plan.parts.length,
    newTags: newTags.length,
    renderedTokens: composition.total,
    renderedHash: null,
    firstDivergence: null,
    detail: { composition, newTags },
    error: null,
  })
  return { seq, edits, composition, newTags, newParts: plan.parts.length, durationMs }
}
