import { inlinedFileRuns } from "../transcript/inlined-file-runs.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { contentHash } from "../transcript/content-hash.js"
import { isFinalPart, type HostMessage, type HostPart } from "../transcript/host-message.js"
import { partText } from "../transcript/part-content.js"
import { tagPrefix } from "../transcript/tag-format.js"
import { listTrackables } from "../transcript/trackables.js"
import { entryAt, type MessageMemo, type MessageMemoEntry } from "./message-memo.js"
import type { KnownPart, PartKind, SessionState, TagRecord } from "./session-state.js"

/** How much of its parts' JSON a plan keeps (characters): a few calls' new parts, never a whole long session. */
export const KEPT_JSON_CHARS = 1_000_000

export type NewMessage = { id: string; seq: number; role: string; createdAt: number | null; infoJson: string }

export type NewPart = KnownPart & {
  id: string
  position: number
  type: string
  tool: string | null
  status: string | null
  /**
   * The part as the host sent it, written as its JSON by the write that follows the plan (`ingestMessages`, before
   * the host can change it). The plan holds the part, not its JSON: a first pass over a long session would otherwise
   * hold the whole session's JSON at once.
   */
  content: HostPart
  /**
   * The part's JSON as planned, kept while the plan's kept JSON is under `KEPT_JSON_CHARS` (the new parts of a call,
   * not a long session's first pass): the write takes it instead of serializing the part again, and a plan whose
   * every part has it can be written after the host changed its parts (`owed-rows.ts`).
   */
  contentJson?: string
  /** True when the part was stored before in a non-final state and now reached its final content. */
  replacesNonFinal: boolean
}

/** Everything one pass adds to the store. Empty lists when the pass saw nothing new. */
export type IngestPlan = {
  sessionId: string
  messages: NewMessage[]
  parts: NewPart[]
  tags: TagRecord[]
  nextTag: number
  nextSeq: number
}

/**
 * Decides what of `messages` is new: messages never stored, parts never stored or that just became final, and
 * tags for trackable items that have none. Known material is skipped by id, never by looking at its text, so a
 * tool output that itself contains `§5§` cannot be mistaken for a tagged item. Counts tokens of new parts only.
 */
export function planIngest(options: {
  state: SessionState
  messages: HostMessage[]
  counter: TokenCounter
  /** The pass's memo (`beginPass` ran for these messages): a message it already knows stored whole is not looked at. */
  memo?: MessageMemo
}): IngestPlan {
  const { state, messages, counter } = options
  const memo = options.memo ?? null
  let nextTag = state.nextTag
  let nextSeq = state.nextSeq
  const plan: IngestPlan = { sessionId: state.sessionId, messages: [], parts: [], tags: [], nextTag, nextSeq }
  const seenInPlan = new Set<string>()
  let keptJson = 0

  // The leading messages the last pass found stored whole, where they still sit, are not looked at.
  const skip = memo === null ? 0 : storedLeadingKept(memo, messages)
  for (let index = skip; index < messages.length; index += 1) {
    const message = messages[index] as HostMessage
    if (memo !== null && storedWhole(memo, state, message, index)) continue
    const info = message.info
    if (!state.messageSeq.has(info.id) && !seenInPlan.has(info.id)) {
      seenInPlan.add(info.id)
      plan.messages.push({
        id: info.id,
        seq: nextSeq,
        role: info.role,
        createdAt: info.time?.created ?? null,
        infoJson: JSON.stringify(info),
      })
      nextSeq += 1
    }

    let changed = false
    // Most messages are known whole: their parts' kinds are worked out only when one of them is new.
    let kinds: PartKind[] | null = null
    message.parts.forEach((part, position) => {
      const known = state.parts.get(part.id)
      const final = isFinalPart(part)
      if (known && (known.final || !final)) return
      if (seenInPlan.has(part.id)) return
      seenInPlan.add(part.id)
      changed = true
      const contentJson = JSON.stringify(part)
      const text = partText(part)
      keptJson += contentJson.length
      plan.parts.push({
        id: part.id,
        messageId: info.id,
        position,
        type: part.type,
        kind: (kinds ??= partKinds(message))[position] ?? "none",
        tool: part.type === "tool" ? part.tool : null,
        status: part.type === "tool" ? part.state.status : null,
        final,
        hash: contentHash(contentJson),
        content: part,
        ...(keptJson <= KEPT_JSON_CHARS ? { contentJson } : {}),
        tokens: counter.count(text.content),
        callTokens: counter.count(text.call),
        replacesNonFinal: known !== undefined,
      })
    })
    if (!changed) continue

    for (const trackable of listTrackables(message)) {
      if (state.tagsByPart.has(trackable.partId) || seenInPlan.has(`tag:${trackable.partId}`)) continue
      seenInPlan.add(`tag:${trackable.partId}`)
      plan.tags.push({
        tag: nextTag,
        kind: trackable.kind,
        messageId: info.id,
        partId: trackable.partId,
        tool: trackable.tool,
        status: "live",
        droppedReason: null,
        supersededBy: null,
        prefixTokens: counter.count(tagPrefix(nextTag)),
      })
      nextTag += 1
    }
  }
  if (memo !== null) recordStoredLeading(memo, messages, skip)
  plan.nextTag = nextTag
  plan.nextSeq = nextSeq
  return plan
}

/**
 * True when the message and every part of it are stored, each part final: a plan would add nothing for it. Worked out
 * once per unchanged message (its memo entry remembers it: stored records are never taken back).
 */
function storedWhole(memo: MessageMemo, state: SessionState, message: HostMessage, index: number): boolean {
  const entry = entryAt(memo, index, message)
  if (entry === null || entry.final === null) return false
  if (entry.stored) return true
  entry.stored = state.messageSeq.has(message.info.id) && message.parts.every((part) => state.parts.get(part.id)?.final === true)
  return entry.stored
}

/**
 * How many leading messages of this pass's list are known stored whole: those the last pass's list had stored whole,
 * as far as the entries sit where they sat (`MessageMemo.stable`), when the memo's list is this one.
 */
function storedLeadingKept(memo: MessageMemo, messages: readonly HostMessage[]): number {
  const { generation, count } = memo.storedLeading
  if (memo.current !== messages || generation !== memo.generation - 1) return 0
  return Math.min(count, memo.stable)
}

/** Leaves for the next pass how many leading messages of this one's list are stored whole (`skip` are known to be). */
function recordStoredLeading(memo: MessageMemo, messages: readonly HostMessage[], skip: number): void {
  let count = skip
  if (memo.current === messages) while (count < memo.list.length && (memo.list[count] as MessageMemoEntry).stored) count += 1
  memo.storedLeading = { generation: memo.generation, count: memo.current === messages ? count : 0 }
}

/** True when the plan adds nothing. */
export function isEmptyPlan(plan: IngestPlan): boolean {
  return plan.messages.length === 0 && plan.parts.length === 0 && plan.tags.length === 0
}

/** True when every new part of the plan kept its JSON: the plan no longer reads the host's objects. */
export function keptWhole(plan: IngestPlan): boolean {
  return plan.parts.every((part) => part.contentJson !== undefined)
}

/** Folds a written plan into the in-memory state. */
export function applyPlanToState(state: SessionState, plan: IngestPlan): void {
  for (const message of plan.messages) state.messageSeq.set(message.id, message.seq)
  for (const part of plan.parts) {
    const { messageId, kind, final, hash, tokens, callTokens } = part
    state.parts.set(part.id, { messageId, kind, final, hash, tokens, callTokens })
  }
  for (const tag of plan.tags) {
    state.tagsByPart.set(tag.partId, tag)
    state.tagsByNumber.set(tag.tag, tag)
  }
  state.nextTag = plan.nextTag
  state.nextSeq = plan.nextSeq
}

/** The composition kind of each part of a message (what the model reads it as). */
export function partKinds(message: HostMessage): PartKind[] {
  const parts = message.parts
  const inFile = new Set([...inlinedFileRuns(parts).values()].flat().map((part) => part.id))
  return parts.map((part) => (inFile.has(part.id) ? "file" : basicKind(part, message.info.role)))
}

function basicKind(part: HostPart, role: string): PartKind {
  switch (part.type) {
    case "text":
    case "compaction":
    case "subtask":
      return role === "user" ? "user" : "assistant"
    case "reasoning":
      return "reasoning"
    case "tool":
      return "tool"
    case "file":
      return "file"
    default:
      return "none"
  }
}
