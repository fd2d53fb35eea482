import { inlinedFileRuns } from "../transcript/inlined-file-runs.js"
import type { KnownPart, SessionState, TagRecord } from "./session-state.js"
import { isFinalPart, type HostMessage } from "../transcript/host-message.js"
import { entryAt, recordWrites, type MessageMemo, type MessageMemoEntry } from "./message-memo.js"
import { listTrackables, type Trackable } from "../transcript/trackables.js"
import { isPrunedTool } from "../transcript/part-content.js"

/** One tagged item as it stands in the live message list. */
export type LiveItem = {
  tag: TagRecord
  messageId: string
  messageIndex: number
  /** The message's ingest sequence number (0 when unknown). */
  messageSeq: number
  role: "user" | "assistant"
  /** Tokens of the item's content: its text, a file's inlined content, or a tool's output. */
  contentTokens: number
  /** Tokens of a tool call (name and input); 0 for other items. */
  callTokens: number
  /** A tool part that has finished (or any other item). Unfinished tools are never dropped or reclaimed. */
  final: boolean
  /** A tool whose output the host pruned (it sends its own marker: no prefix is written on it). */
  pruned: boolean
  /** The item is in the newest message of the list. */
  newest: boolean
  /** The item is inside the protected recent window. */
  protected: boolean
  /** The tool's input, for content-aware rules (smart drops); null for other items. */
  toolInput: Record<string, unknown> | null
}

/** What the live view knows of one message, and the stored records it was made from (kept in the memo). */
export type LiveFacts = {
  seq: number
  trackables: readonly Trackable[]
  parts: readonly (KnownPart | undefined)[]
  tags: readonly (TagRecord | undefined)[]
  /** Tokens of all the message's parts. */
  tokens: number
  /** Its tagged items, as last placed. */
  items: LiveItem[]
}

/** The live message list seen through the stored state: what can be dropped, reclaimed or nudged about. */
export type LiveView = {
  items: LiveItem[]
  byTag: Map<number, LiveItem>
  /** Tokens of every part of every live message (before rendering). */
  liveTokens: number
  /** Index (in `messages`) of the oldest message inside the protected window (messages.length when it is empty). */
  protectedFrom: number
  /**
   * The lowest ingest sequence in the protected window (Infinity when it is empty; a message not stored yet counts
   * as 0, so nothing passes for settled before it is stored). Not the first message's: after the host's compaction
   * the tail it kept follows the summary, so list order is not sequence order.
   */
  protectedFromSeq: number
  /** The live messages: the host's list without the messages folded into history. */
  messages: readonly HostMessage[]
  /** Each live message's facts, by position in `messages` (read from the records of the state the view was built from). */
  facts: readonly LiveFacts[]
  /** The host list's position of the first live message when the live messages are the list from there on, else null. */
  liveFrom: number | null
  /** How many of the host's messages are folded into history (the history message is rendered only when > 0). */
  foldedCount: number
  /** The newest message is an assistant message with a tool call still waiting for its result. */
  midTool: boolean
  newestSeq: number
}

/**
 * Builds the live view. The protected window is measured by token mass from the newest message back, in whole
 * messages: a message is protected while the messages newer than it hold fewer than `protectedTokens` tokens and
 * at least half of it lies inside that size, so the window's mass comes as near its size as whole messages allow.
 * The newest message is always in (unless the window is empty). Protecting the crossing message whole, however
 * large, kept a second file read raw at 32k: every later read then crossed the threshold (bench:e2e, issue 11).
 */
export function buildLiveView(options: {
  messages: readonly HostMessage[]
  state: SessionState
  protectedTokens: number
  /** The pass's memo (`beginPass` ran for these messages): each message's items are listed once per change. */
  memo?: MessageMemo
}): LiveView {
  const { state, protectedTokens, memo } = options
  // Messages folded into history are not in the prompt any more.
  const folded = state.applied.history?.foldedThroughSeq ?? 0
  // A message whose records were confirmed at the memo's last sync, and none written since, keeps its facts unchecked.
  const writes = memo ? recordWrites(memo, [state.parts, state.tagsByPart, state.messageSeq]) : null
  const messages: HostMessage[] = []
  const facts: LiveFacts[] = []
  let liveFrom: number | null = 0
  options.messages.forEach((message, index) => {
    const entry = memo ? entryAt(memo, index, message) : null
    const confirmed = entry !== null && writes !== null && writes.known && entry.confirmedAt === writes.sync - 1 && entry.writtenAt !== writes.sync
    const seq = confirmed ? entry.seq : state.messageSeq.get(message.info.id)
    if ((seq ?? Number.POSITIVE_INFINITY) <= folded) {
      // Folded messages before the first live one keep the live ones a tail of the list; one after them breaks it.
      if (liveFrom === index) liveFrom = index + 1
      else liveFrom = null
    } else {
      if (liveFrom !== null && liveFrom + messages.length !== index) liveFrom = null
      messages.push(message)
      facts.push(messageFacts(message, state, entry, seq ?? 0, confirmed))
    }
    if (entry && writes) {
      entry.seq = seq
      entry.confirmedAt = writes.sync
    }
  })
  let protectedFrom = messages.length
  let newer = 0
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (newer >= protectedTokens) break
    const tokens = facts[index]?.tokens ?? 0
    // The message that crosses the line is in when most of it is (the window's mass then comes nearest its size).
    if (index < messages.length - 1 && newer + tokens / 2 > protectedTokens) break
    protectedFrom = index
    newer += tokens
  }

  const items: LiveItem[] = []
  facts.forEach((fact, messageIndex) => {
    const newest = messageIndex === messages.length - 1
    const inWindow = messageIndex >= protectedFrom
    fact.items.forEach((item, at) => {
      // An item keeps its object while it stays where it was; the memo keeps the placed one for the next pass.
      const placed =
        item.messageIndex === messageIndex && item.newest === newest && item.protected === inWindow
          ? item
          : { ...item, messageIndex, newest, protected: inWindow }
      fact.items[at] = placed
      items.push(placed)
    })
  })

  const newestMessage = messages[messages.length - 1]
  const midTool =
    newestMessage?.info.role === "assistant" && newestMessage.parts.some((part) => part.type === "tool" && !isFinalPart(part))
  // Most passes never look an item up by its tag: the index is built on first use.
  let byTag: Map<number, LiveItem> | null = null
  return {
    items,
    get byTag() {
      byTag ??= new Map(items.map((item) => [item.tag.tag, item]))
      return byTag
    },
    messages,
    facts,
    liveFrom: messages.length === 0 ? options.messages.length : liveFrom,
    foldedCount: options.messages.length - messages.length,
    liveTokens: facts.reduce((sum, fact) => sum + fact.tokens, 0),
    protectedFrom,
    protectedFromSeq: facts.slice(protectedFrom).reduce((lowest, fact) => Math.min(lowest, fact.seq), Number.POSITIVE_INFINITY),
    midTool,
    newestSeq: facts[facts.length - 1]?.seq ?? 0,
  }
}

/**
 * One message's tokens and tagged items, as of its stored parts and tags. With the pass's memo they are reused while
 * the message (its entry) is unchanged and its records are: `confirmed` when the memo knows none was written since
 * they were last read, else checked one by one (ingest replaces a part's record when it changes, an execute pass a
 * tag's).
 */
function messageFacts(message: HostMessage, state: SessionState, entry: MessageMemoEntry | null, seq: number, confirmed: boolean): LiveFacts {
  const trackables = entry?.trackables ?? listTrackables(message)
  const cached = entry?.live
  if (cached && cached.seq === seq && (confirmed || sameRecords(cached, message, trackables, state))) return cached
  const partsById = new Map(message.parts.map((part) => [part.id, part]))
  const runTokens = fileRunTokens(message, state)
  const items: LiveItem[] = []
  for (const trackable of trackables) {
    const tag = state.tagsByPart.get(trackable.partId)
    if (!tag) continue
    const part = partsById.get(trackable.partId)
    const known = state.parts.get(trackable.partId)
    const contentTokens =
      trackable.kind === "file"
        ? (runTokens.get(trackable.partId) ?? 0)
        : trackable.kind === "message"
          ? messageTextTokens(message, state, runTokens)
          : (known?.tokens ?? 0)
    items.push({
      tag,
      messageId: message.info.id,
      // Placed by the view (index, newest, protected window).
      messageIndex: -1,
      messageSeq: seq,
      role: message.info.role,
      contentTokens,
      callTokens: known?.callTokens ?? 0,
      final: part ? isFinalPart(part) : true,
      pruned: part?.type === "tool" && isPrunedTool(part),
      newest: false,
      protected: false,
      toolInput: part?.type === "tool" ? (part.state.input as Record<string, unknown>) : null,
    })
  }
  const facts: LiveFacts = {
    seq,
    trackables,
    parts: message.parts.map((part) => state.parts.get(part.id)),
    tags: trackables.map((trackable) => state.tagsByPart.get(trackable.partId)),
    tokens: message.parts.reduce((sum, part) => sum + partTokens(state.parts.get(part.id)), 0),
    items,
  }
  if (entry) entry.live = facts
  return facts
}

function sameRecords(facts: LiveFacts, message: HostMessage, trackables: readonly Trackable[], state: SessionState): boolean {
  if (facts.parts.length !== message.parts.length || facts.tags.length !== trackables.length) return false
  for (let index = 0; index < message.parts.length; index += 1) {
    if (facts.parts[index] !== state.parts.get(message.parts[index]?.id ?? "")) return false
  }
  for (let index = 0; index < trackables.length; index += 1) {
    if (facts.tags[index] !== state.tagsByPart.get(trackables[index]?.partId ?? "")) return false
  }
  return true
}

function partTokens(known: KnownPart | undefined): number {
  return known ? known.tokens + known.callTokens : 0
}

/** Tokens of each inlined file's synthetic content run, keyed by the file part id. */
function fileRunTokens(message: HostMessage, state: SessionState): Map<string, number> {
  const totals = new Map<string, number>()
  for (const [fileId, run] of inlinedFileRuns(message.parts)) {
    totals.set(fileId, run.reduce((sum, part) => sum + (state.parts.get(part.id)?.tokens ?? 0), 0))
  }
  return totals
}

/** Tokens of a message's own text parts (not reasoning, not a file's inlined content). */
function messageTextTokens(message: HostMessage, state: SessionState, runTokens: Map<string, number>): number {
  const fileRunTotal = [...runTokens.values()].reduce((sum, tokens) => sum + tokens, 0)
  const textTotal = message.parts
    .filter((part) => part.type === "text")
    .reduce((sum, part) => sum + (state.parts.get(part.id)?.tokens ?? 0), 0)
  return Math.max(0, textTotal - fileRunTotal)
}
