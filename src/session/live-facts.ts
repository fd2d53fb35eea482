import type { ToolInputFacts } from "./host-tools.js"
import type { KnownPart, TagRecord } from "./part-records.js"
import type { Trackable } from "../transcript/trackables.js"

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
  /**
   * What content-aware rules (smart drops) read of a tool's input, taken when the item is made: the host's input
   * object is not kept, nor anything a cache keyed by it holds.
   */
  input: ToolInputFacts | null
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

/**
 * How many leading facts of `current` are the same objects as `previous`'s (0 without it): those messages and their
 * records are unchanged since `previous` was made, so what was made from them then still holds.
 */
export function sameLeadingFacts(previous: readonly LiveFacts[] | null, current: readonly LiveFacts[]): number {
  if (previous === null) return 0
  if (previous === current) return current.length
  const limit = Math.min(previous.length, current.length)
  let same = 0
  while (same < limit && current[same] === previous[same]) same += 1
  return same
}

/** An earlier items array and how many leading items a later array shares with it (`MessageMemo.sharedItems`). */
export type SharedItems = { from: readonly LiveItem[]; count: number }
