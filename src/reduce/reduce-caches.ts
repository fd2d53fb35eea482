import type { LiveItem, SharedItems } from "../session/live-facts.js"

/**
 * What is reclaimable in one items array, for one queue: the items, where each sits in the array, the tokens before
 * each and in all, and the kept newest results it was worked out with.
 */
export type Reclaimable = {
  queue: string
  items: readonly LiveItem[]
  at: readonly number[]
  tokensBefore: readonly number[]
  tokens: number
  kept: ReadonlySet<number>
}

/**
 * What reclaim keeps of one session's views, by items array: items are never changed once placed (a change is a new
 * item object in a new array), so an answer stands for as long as its array lives.
 */
export type ReduceCaches = {
  /**
   * The latest reclaimable items of each list of view items, and for which queued tags: a pass asks more than once
   * (the breakdown, the reminders), and a view that places every item as the last one did shares its items array, so
   * a pass over an unchanged session finds the last pass's answer.
   */
  reclaimable: WeakMap<readonly LiveItem[], Reclaimable>
  /** Per items array, the positions of the KEEP_NEWEST tools' results, ascending. */
  keptToolPositions: WeakMap<readonly LiveItem[], number[]>
  /**
   * Which items arrays the session's views made from an earlier one's, and how many leading items they share: the
   * memo's record (`MessageMemo.sharedItems`, written as views are built), read here.
   */
  sharedItems: ReadonlyWeakMap<readonly LiveItem[], SharedItems>
}

/** A WeakMap read only. */
type ReadonlyWeakMap<K extends WeakKey, V> = Pick<WeakMap<K, V>, "get" | "has">

/**
 * Empty reduce caches, for one session's passes (or one call that keeps nothing for a next). `sharedItems`: the memo's
 * record of the views' shared items (none: nothing is taken up from an earlier items array).
 */
export function createReduceCaches(sharedItems: ReadonlyWeakMap<readonly LiveItem[], SharedItems> = new WeakMap()): ReduceCaches {
  return { reclaimable: new WeakMap(), keptToolPositions: new WeakMap(), sharedItems }
}
