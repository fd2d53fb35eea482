import type { SessionState } from "./session-state.js"
import { isFinalPart, type HostMessage } from "../transcript/host-message.js"
import { entryAt, recordsConfirmed, recordWrites, syncedWith, type MessageMemo, type ViewCache } from "./message-memo.js"
import type { LiveFacts, LiveItem } from "./live-facts.js"
import { messageFacts } from "./message-facts.js"
import { leading } from "./leading.js"

export type { LiveFacts, LiveItem, SharedItems } from "./live-facts.js"

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
 * Where a view built for this pass's memo may take the last one's results up to: the leading messages that sit
 * where they sat (`MessageMemo.stable`), with no record written since (`firstWritten`), when the last view was
 * built from the same maps at the sync before and with the same history folded.
 */
function reusable(memo: MessageMemo, cache: ViewCache | null, folded: number, messages: readonly HostMessage[]): number {
  const { sync, validFrom, firstWritten } = memo.records
  if (cache === null || !cache.aligned || cache.sync !== sync - 1 || validFrom >= sync || cache.folded !== folded) return 0
  const stable = cache.generation === memo.generation ? cache.entries.length : cache.generation === memo.generation - 1 ? memo.stable : 0
  const limit = Math.min(stable, cache.entries.length, firstWritten, messages.length)
  // Only as far as the list given is the memo's (a caller may build a view of another).
  if (memo.current === messages) return limit
  let reuse = 0
  while (reuse < limit && memo.current[reuse] === messages[reuse]) reuse += 1
  return reuse
}

/** The items by tag number, built on first use (most passes never look an item up by its tag). */
export function tagIndex(items: readonly LiveItem[]): () => Map<number, LiveItem> {
  let byTag: Map<number, LiveItem> | null = null
  return () => (byTag ??= new Map(items.map((item) => [item.tag.tag, item])))
}

/**
 * How many leading live messages have their items placed as the last view placed them: an item keeps its place while
 * its message keeps its index, its side of the protected window (every message's, while the window starts where it
 * did) and whether it is the newest (the last view's newest stays so only while the count of live messages is the same).
 */
function placedAsLastTime(cache: ViewCache, liveReused: number, count: number, protectedFrom: number): number {
  const cachedCount = cache.facts.length
  const newestKept = count === cachedCount ? count : Math.min(count, cachedCount) - 1
  const windowKept = cache.protectedFrom === protectedFrom ? Number.POSITIVE_INFINITY : Math.min(cache.protectedFrom, protectedFrom)
  return Math.max(0, Math.min(liveReused, newestKept, windowKept))
}

/**
 * The live messages past the window's edges that have their items placed as the last view placed them, [from, to):
 * inside the protected window both times, at the same index, and the newest neither time. Empty when the window starts
 * where it did (`placedAsLastTime` covers those).
 */
function placedInWindow(cache: ViewCache, liveReused: number, count: number, protectedFrom: number): [number, number] {
  if (cache.protectedFrom === protectedFrom) return [0, 0]
  const from = Math.max(cache.protectedFrom, protectedFrom)
  const to = Math.min(liveReused, cache.facts.length - 1, count - 1)
  return from < to ? [from, to] : [0, 0]
}

/**
 * Builds the live view. The protected window is measured by token mass from the newest message back, in whole
 * messages: a message is protected while the messages newer than it hold fewer than `protectedTokens` tokens and
 * at least half of it lies inside that size, so the window's mass comes as near its size as whole messages allow.
 * The newest message is always in (unless the window is empty). Protecting the crossing message whole, however
 * large, kept a second file read raw at 32k: every later read then crossed the threshold (bench:e2e).
 */
export function buildLiveView(options: {
  messages: readonly HostMessage[]
  state: SessionState
  protectedTokens: number
  /** The pass's memo (`beginPass` ran for these messages): each message's items are listed once per change. */
  memo?: MessageMemo
  /**
   * Read the memo's confirmed facts and leave the memo as it was: a view of another state over the same records as the
   * pass's own view (history folded further, for an estimate), so the pass's view keeps the memo for the next pass.
   */
  readOnly?: boolean
}): LiveView {
  const { state, protectedTokens } = options
  const readOnly = options.readOnly === true
  // The memo a view writes to; a read-only view reads it only where the pass's own view confirmed it.
  const memo = readOnly ? undefined : options.memo
  // Messages folded into history are not in the prompt any more.
  const folded = state.applied.history?.foldedThroughSeq ?? 0
  const maps = [state.parts, state.tagsByPart, state.messageSeq]
  // A message whose records were confirmed and none written since keeps its facts unchecked.
  if (memo) recordWrites(memo, maps)
  const reader = options.memo && (memo || syncedWith(options.memo, maps)) ? options.memo : undefined
  const cache = memo ? memo.view : null
  // The leading messages the last view saw as they are keep its results; the rest are looked at one by one.
  const reuse = memo ? reusable(memo, cache, folded, options.messages) : 0
  const liveReused = reuse > 0 && cache ? (cache.liveBefore[reuse] ?? 0) : 0
  // Every message as the last view saw it: its arrays are this view's (nothing is added to them below).
  const whole = reuse === options.messages.length
  // The arrays only views read (not the view's own `facts`, `items`, `messages`) go on from the last view's when it
  // saw all of them: nothing reads that view's once this one is built. Until then the memo has no view, so a build
  // that fails leaves the next one to start afresh rather than from arrays it had begun to add to.
  if (memo) memo.view = null
  const entries = cache && reuse > 0 ? leading(cache.entries, reuse, true) : []
  const seqs = cache && reuse > 0 ? leading(cache.seqs, reuse, true) : []
  const live = cache && reuse > 0 ? leading(cache.live, reuse, true) : []
  const liveBefore = cache && reuse > 0 ? leading(cache.liveBefore, reuse + 1, true) : [0]
  const facts = cache && reuse > 0 ? leading(cache.facts, liveReused, whole) : []
  const liveSeqs = cache && reuse > 0 ? leading(cache.liveSeqs, liveReused, true) : []
  const tokensBefore = cache && reuse > 0 ? leading(cache.tokensBefore, liveReused + 1, true) : [0]
  let aligned = true
  let liveFrom: number | null = 0
  // The reused messages all live: they are the list's leading ones.
  const messages: HostMessage[] = liveReused === reuse ? options.messages.slice(0, reuse) : []
  for (let index = messages.length; index < reuse; index += 1) {
    if (live[index]) {
      if (liveFrom !== null && liveFrom + messages.length !== index) liveFrom = null
      messages.push(options.messages[index] as HostMessage)
    } else liveFrom = liveFrom === index ? index + 1 : null
  }
  for (let index = reuse; index < options.messages.length; index += 1) {
    const message = options.messages[index] as HostMessage
    const found = reader ? entryAt(reader, index, message) : null
    const confirmed = reader !== undefined && found !== null && recordsConfirmed(reader, found)
    // A read-only view takes only the facts the memo holds as confirmed; others it makes afresh, keeping them nowhere.
    const entry = readOnly && !(confirmed && found.live?.seq === found.seq) ? null : found
    const seq = confirmed ? found.seq : state.messageSeq.get(message.info.id)
    const isLive = (seq ?? Number.POSITIVE_INFINITY) > folded
    if (!isLive) {
      // Folded messages before the first live one keep the live ones a tail of the list; one after them breaks it.
      liveFrom = liveFrom === index ? index + 1 : null
    } else {
      if (liveFrom !== null && liveFrom + messages.length !== index) liveFrom = null
      messages.push(message)
      const fact = messageFacts(message, state, entry, seq ?? 0, confirmed)
      facts.push(fact)
      liveSeqs.push(fact.seq)
      tokensBefore.push((tokensBefore[tokensBefore.length - 1] ?? 0) + fact.tokens)
    }
    aligned &&= entry !== null && entry === memo?.list[index]
    entries.push(entry)
    seqs.push(seq)
    live.push(isLive)
    liveBefore.push(messages.length)
    if (entry && memo) {
      entry.seq = seq
      entry.confirmedAt = memo.records.sync
    }
  }

  const count = messages.length
  const tokensOf = (index: number): number => (tokensBefore[index + 1] ?? 0) - (tokensBefore[index] ?? 0)
  let protectedFrom = count
  let newer = 0
  for (let index = count - 1; index >= 0; index -= 1) {
    if (newer >= protectedTokens) break
    const tokens = tokensOf(index)
    // The message that crosses the line is in when most of it is (the window's mass then comes nearest its size).
    if (index < count - 1 && newer + tokens / 2 > protectedTokens) break
    protectedFrom = index
    newer += tokens
  }

  const placedAsBefore = cache && reuse > 0 ? placedAsLastTime(cache, liveReused, count, protectedFrom) : 0
  const placedAll = placedAsBefore === count
  const itemsBefore = cache && placedAsBefore > 0 ? leading(cache.itemsBefore, placedAsBefore + 1, placedAll) : [0]
  const items: LiveItem[] = cache && placedAsBefore > 0 ? leading(cache.items, itemsBefore[placedAsBefore] ?? 0, placedAll) : []
  if (memo && cache && items.length > 0 && items !== cache.items) memo.sharedItems.set(items, { from: cache.items, count: items.length })
  // After a moved window's edge, the messages inside the window both times keep their items too (`placedInWindow`).
  const [keptFrom, keptTo] = cache && reuse > 0 ? placedInWindow(cache, liveReused, count, protectedFrom) : [0, 0]
  for (let messageIndex = placedAsBefore; messageIndex < count; messageIndex += 1) {
    if (cache && messageIndex === keptFrom && keptFrom < keptTo) {
      const end = cache.itemsBefore[keptTo] ?? 0
      for (let at = cache.itemsBefore[keptFrom] ?? 0; at < end; at += 1) items.push(cache.items[at] as LiveItem)
      for (let kept = keptFrom; kept < keptTo; kept += 1) itemsBefore.push(cache.itemsBefore[kept + 1] ?? 0)
      messageIndex = keptTo - 1
      continue
    }
    const fact = facts[messageIndex] as LiveFacts
    const newest = messageIndex === count - 1
    const inWindow = messageIndex >= protectedFrom
    // A read-only view places items on its own copy of the facts: the memo's stay as the pass's view placed them.
    let placing = fact
    fact.items.forEach((item, at) => {
      // An item keeps its object while it stays where it was; the memo keeps the placed one for the next pass.
      if (item.messageIndex !== messageIndex || item.newest !== newest || item.protected !== inWindow) {
        if (readOnly && placing === fact) {
          placing = { ...fact, items: [...fact.items] }
          facts[messageIndex] = placing
        }
        placing.items[at] = { ...item, messageIndex, newest, protected: inWindow }
      }
      items.push(placing.items[at] as LiveItem)
    })
    itemsBefore.push(items.length)
  }
  if (memo) {
    const made: ViewCache = { generation: memo.generation, aligned, sync: memo.records.sync, folded, entries, seqs, live, liveBefore, facts, liveSeqs, tokensBefore, itemsBefore, items, protectedFrom }
    memo.view = made
  }

  const newestMessage = messages[count - 1]
  const midTool =
    newestMessage?.info.role === "assistant" && newestMessage.parts.some((part) => part.type === "tool" && !isFinalPart(part))
  let lowestProtected = Number.POSITIVE_INFINITY
  for (let index = protectedFrom; index < count; index += 1) lowestProtected = Math.min(lowestProtected, liveSeqs[index] ?? 0)
  const byTag = tagIndex(items)
  return {
    items,
    get byTag() {
      return byTag()
    },
    messages,
    facts,
    liveFrom: count === 0 ? options.messages.length : liveFrom,
    foldedCount: options.messages.length - count,
    liveTokens: tokensBefore[count] ?? 0,
    protectedFrom,
    protectedFromSeq: lowestProtected,
    midTool,
    newestSeq: liveSeqs[count - 1] ?? 0,
  }
}
