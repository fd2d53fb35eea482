import type { Placement, SessionState } from "../session/session-state.js"
import type { HostMessage } from "../transcript/host-message.js"
import { listTrackables } from "../transcript/trackables.js"
import type { Edit, PlacedEdits } from "../session/edit.js"
import { contentPartPositions, factEdits, memoizedMessageEdits, messageEdits } from "./message-edits.js"
import { foldedHistoryMessage, renderedSteers, steerMessage } from "./inserted-messages.js"
import { entryAt, type MessageMemo } from "../session/message-memo.js"
import type { LiveView } from "../session/live-view.js"
import { sameLeadingFacts } from "../session/live-facts.js"
import { createRenderCaches, type RenderCaches } from "./render-caches.js"

/**
 * Renders the applied state onto the live messages, as edits: each tagged item gets its `§N§ ` prefix (when tags
 * are visible), each dropped item becomes its marker, and the reminders placed in this epoch are written where
 * they were placed. A pure function of (messages, stored state): the same inputs always give the same edits, so
 * between execute passes every message renders to the same bytes and the prompt only grows at its end.
 */
export function renderPrompt(options: RenderOptions): readonly Edit[] {
  return renderPromptPlaced(options).edits
}

type RenderOptions = {
  messages: readonly HostMessage[]
  state: SessionState
  tagsVisible: boolean
  placements: readonly Placement[]
  /** Per-message results of earlier passes (`beginPass` ran for these messages); the edits are the same with or without it. */
  memo?: MessageMemo
  /**
   * The live view of `messages` built from `state`, when the caller has it: the folded messages and each live
   * message's records are read from it, and the memo keeps a message's edits while its facts are the same object.
   */
  view?: LiveView
  /** The session's render caches, kept with the memo: a render without them keeps nothing for a next. */
  caches?: RenderCaches
}

/**
 * `renderPrompt`, with where its live messages' edits land (`PlacedEdits`) when they were rendered from the view's
 * live tail (null otherwise): the shell writes those into the pass's own messages without looking parts up by id.
 */
export function renderPromptPlaced(options: RenderOptions): { edits: readonly Edit[]; placed: PlacedEdits | null } {
  const { messages, state, tagsVisible, placements, memo, view } = options
  const caches = options.caches ?? createRenderCaches()
  const { foldedHeads } = caches
  const nudges = new Map<string, string[]>()
  for (const placement of placements) {
    if (placement.kind !== "nudge") continue
    nudges.set(placement.anchorId, [...(nudges.get(placement.anchorId) ?? []), placement.text])
  }
  const history = state.applied.history
  const liveFrom = view?.liveFrom ?? null
  const isFolded = (message: HostMessage): boolean =>
    history !== null && (state.messageSeq.get(message.info.id) ?? Number.POSITIVE_INFINITY) <= history.foldedThroughSeq
  const folded = view && liveFrom !== null ? messages.slice(0, liveFrom) : messages.filter(isFolded)
  const historyMessage = history !== null && folded.length > 0 ? foldedHistoryMessage(messages, history.text, history.foldedThroughSeq) : null
  // The folded head of the last pass, when its messages sit where they sat under the same history: the same edits.
  const last = view && liveFrom !== null && memo ? foldedHeads.get(state.parts) : undefined
  const samePlace = last !== undefined && memo !== undefined && last.generation === memo.generation - 1 && last.liveFrom === liveFrom
  const sitting = samePlace && memo.current === messages && memo.stable >= folded.length
  const head = sitting && last.history === history && sameHistoryMessage(last.inserted, historyMessage) ? last : null
  const headEdits: readonly Edit[] = head ? head.edits : foldedEdits(folded, historyMessage)
  // Rendered without a view's live tail: every live message's edits, after the head.
  const body: Edit[] = []
  let live: readonly Edit[] = []
  let run: LiveRun | null = null
  if (view && liveFrom !== null) {
    run = liveEdits({ state, tagsVisible, nudges, memo, view, liveFrom, liveRuns: caches.liveRuns })
    live = run.edits
  }
  else {
    messages.forEach((message, index) => {
      if (isFolded(message)) return
      const entry = entryAt(memo, index, message)
      body.push(...(entry ? memoizedMessageEdits(entry, message, state, tagsVisible, nudges) : messageEdits(message, listTrackables(message), state, tagsVisible, nudges)))
    })
  }
  const steers: Edit[] = []
  for (const placement of renderedSteers({ messages, state, placements })) {
    const steer = steerMessage(messages, placement)
    if (steer) steers.push(steer)
  }
  // The live run's places, and the folded messages' removals at the head (the list's first `liveFrom`, in order).
  const placed: PlacedEdits | null =
    run !== null && liveFrom !== null
      ? { offset: headEdits.length, liveFrom, targets: run.targets, removed: folded.length, run: run.edits, kept: run.kept, keptFrom: run.keptFrom }
      : null
  // A session with nothing folded and no steer renders its live messages' edits alone: they are not copied.
  if (headEdits.length === 0 && body.length === 0 && steers.length === 0) return { edits: live, placed }
  // The last pass's whole list, when its head and its live edits are this pass's and there is no steer: a replay of a
  // folded session keeps the very list (the serialization then takes the last prompt as it is).
  if (head && steers.length === 0 && head.live === live) {
    if (memo) foldedHeads.set(state.parts, { ...head, generation: memo.generation })
    return { edits: head.whole, placed }
  }
  const whole = headEdits.concat(body, live, steers)
  // A render without the memo leaves the memo's records alone.
  if (memo && history !== null && liveFrom !== null && steers.length === 0) {
    foldedHeads.set(state.parts, { generation: memo.generation, history, liveFrom, inserted: historyMessage, edits: headEdits, live, whole })
  } else if (memo) foldedHeads.delete(state.parts)
  return { edits: whole, placed }
}

/** The head of a folded session's edits: each folded message removed, in order, then the history message at the start. */
function foldedEdits(folded: readonly HostMessage[], historyMessage: HostMessage | null): Edit[] {
  const edits: Edit[] = folded.map((message) => ({ type: "remove-message", messageId: message.info.id }))
  if (historyMessage) edits.push({ type: "insert-message", afterMessageId: null, message: historyMessage })
  return edits
}

/** True when two history messages say the same: the same id, session, time, agent, model and text. */
function sameHistoryMessage(a: HostMessage | null, b: HostMessage | null): boolean {
  if (a === null || b === null) return a === b
  const [first, second] = [a.info, b.info]
  if (first.id !== second.id || first.sessionID !== second.sessionID || first.time.created !== second.time.created) return false
  if (first.role !== "user" || second.role !== "user") return false
  if (first.agent !== second.agent || first.model.providerID !== second.model.providerID || first.model.modelID !== second.model.modelID) return false
  const [textA, textB] = [a.parts[0], b.parts[0]]
  return textA?.type === "text" && textB?.type === "text" && textA.text === textB.text && a.parts.length === b.parts.length
}

/** The live messages' edits, where they land, and how many leading messages kept the edits of the earlier run `keptFrom`. */
type LiveRun = { edits: readonly Edit[]; targets: Int32Array; kept: number; keptFrom: readonly Edit[] | null }

/**
 * The edits of the view's live messages, in order. The leading messages rendered last time with the same facts
 * (the message and its records unchanged), tag visibility and reminders keep their edits without being looked at.
 */
function liveEdits(options: {
  state: SessionState
  tagsVisible: boolean
  nudges: ReadonlyMap<string, string[]>
  memo: MessageMemo | undefined
  view: LiveView
  liveFrom: number
  liveRuns: RenderCaches["liveRuns"]
}): LiveRun {
  const { state, tagsVisible, nudges, memo, view, liveFrom, liveRuns } = options
  const reminders = [...nudges].map(([anchor, texts]) => `${anchor}\u0000${texts.join("\u0000")}`).join("\u0001")
  const last = liveRuns.get(state.parts)
  const same = last !== undefined && last.tagsVisible === tagsVisible && last.reminders === reminders
  const reused = sameLeadingFacts(same ? last.facts : null, view.facts)
  // Every message as last time: the last run's edits stand (a run's edits are never changed once kept).
  if (last && reused > 0 && reused === view.messages.length && last.before.length === reused + 1) {
    if (memo) liveRuns.set(state.parts, { ...last, facts: view.facts })
    return { edits: last.edits, targets: last.targets, kept: reused, keptFrom: last.edits }
  }
  const before = last && reused > 0 ? last.before.slice(0, reused + 1) : [0]
  const edits = last && reused > 0 ? last.edits.slice(0, before[reused]) : []
  // Where the new messages' edits land: per edit, the live message's index and the part's position.
  const placing: number[] = []
  const nudged = nudgedMessages(state, nudges)
  for (let index = reused; index < view.messages.length; index += 1) {
    const message = view.messages[index] as HostMessage
    const facts = view.facts[index]
    const entry = entryAt(memo, liveFrom + index, message)
    const own = facts && entry ? factEdits(entry, facts, message, state, tagsVisible, nudges, nudged) : messageEdits(message, listTrackables(message), state, tagsVisible, nudges)
    const partAt = entry?.rendered?.edits === own ? entry.rendered.partAt : contentPartPositions(message, own)
    for (let at = 0; at < own.length; at += 1) {
      edits.push(own[at] as Edit)
      placing.push(index, partAt[at] ?? -1)
    }
    before.push(edits.length)
  }
  // The leading messages' edits are the last run's, and so are their places (a message's index is its facts').
  const kept = edits.length - placing.length / 2
  const targets = new Int32Array(edits.length * 2)
  if (last && kept > 0) targets.set(last.targets.subarray(0, kept * 2))
  targets.set(placing, kept * 2)
  if (memo) liveRuns.set(state.parts, { facts: view.facts, tagsVisible, reminders, edits, before, targets })
  return { edits, targets, kept: last ? reused : 0, keptFrom: last && reused > 0 ? last.edits : null }
}

/**
 * The messages holding the parts reminders are anchored on (the keys of `nudges`), or null when an anchor has no
 * stored record (then every message is looked at).
 */
export function nudgedMessages(state: SessionState, nudges: ReadonlyMap<string, unknown>): ReadonlySet<string> | null {
  const messages = new Set<string>()
  for (const anchor of nudges.keys()) {
    const known = state.parts.get(anchor)
    if (!known) return null
    messages.add(known.messageId)
  }
  return messages
}
