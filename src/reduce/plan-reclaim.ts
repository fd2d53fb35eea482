import { hostTool, type HostToolRow } from "../session/host-tools.js"
import type { LiveItem, LiveView } from "../session/live-view.js"
import type { Reclaimable, ReduceCaches } from "./reduce-caches.js"

/**
 * How hard reclaim works. `age` is normal operation (seed: "Reclaim old tool output automatically"); `force` is
 * the force band and the emergency drain; `emergency` is the 95% band, where the protections yield.
 */
export type ReclaimMode = "age" | "force" | "emergency"

/** Tool arcs (call + output) below this many tokens are not worth a marker. */
export const MIN_RECLAIM_ARC_TOKENS = 250
/**
 * The newest results of these tools are kept: the plan and the agent's own reductions. The one definition: reclaim
 * never takes them and smart drops drop the older ones.
 */
export const KEEP_NEWEST: Readonly<Record<string, number>> = { todowrite: 1, ctx_reduce: 3 }
/** A reclaim category of the host tool table (session/host-tools.ts): edit, search or navigation. */
export type ReclaimCategory = NonNullable<HostToolRow["category"]>
/**
 * In the force band, the newest outputs of each category (the host tool table's `category`) are kept: the newest
 * one always, then newer ones while they fit within this share of the category's finished output tokens.
 */
export const RESERVED_SHARE = 0.25

/**
 * Which tool outputs reclaim takes. In every mode: only finished tool outputs, arcs of at least 250 tokens, not
 * already dropped, never the newest todowrite or the newest three ctx_reduce results.
 * - `age`: only output from before the last execute boundary (`boundarySeq`), outside the protected window.
 * - `force`: any age, outside the protected window, keeping the reserved newest share of edit, search and
 *   navigation output (each tool's category is the host tool table's).
 * - `emergency`: both protections yield; only the newest message (the results the model is about to read) stays.
 */
export function planReclaim(options: { view: LiveView; mode: ReclaimMode; boundarySeq: number }): number[] {
  const { view, mode, boundarySeq } = options
  const kept = keptNewest(view.items)
  const reserved = mode === "force" ? reservedNewest(view.items) : new Set<number>()
  return view.items
    .filter((item) => {
      if (item.tag.kind !== "tool" || item.tag.status !== "live" || !item.final) return false
      if (item.contentTokens + item.callTokens < MIN_RECLAIM_ARC_TOKENS) return false
      if (kept.has(item.tag.tag) || reserved.has(item.tag.tag)) return false
      if (mode === "emergency") return !item.newest
      if (item.protected) return false
      return mode === "force" || item.messageSeq <= boundarySeq
    })
    .map((item) => item.tag.tag)
}

/** Tags queued for dropping: a set of them, or the session's queue by tag. */
export type QueuedTags = ReadonlySet<number> | ReadonlyMap<number, unknown>

/**
 * What is reclaimable now (the one definition the breakdown, the reminders and the status share): finished tool
 * output outside the protected window, not queued already, not among the kept newest results, arcs of at least
 * MIN_RECLAIM_ARC_TOKENS.
 */
export function reclaimableItems(view: LiveView, queued: QueuedTags, caches: ReduceCaches): readonly LiveItem[] {
  return reclaimableOf(view, queued, caches).items
}

/** The tokens of `reclaimableItems`' arcs (output and call). */
export function reclaimableTokens(view: LiveView, queued: QueuedTags, caches: ReduceCaches): number {
  return reclaimableOf(view, queued, caches).tokens
}

/**
 * The reclaimable items of the view for `queued`, from the caches while they hold for its items array; the leading
 * items an earlier view shared (the caches' `sharedItems`) keep that view's answer.
 */
function reclaimableOf(view: LiveView, queued: QueuedTags, caches: ReduceCaches): Reclaimable {
  const reclaimableOfItems = caches.reclaimable
  const queue = [...queued.keys()].sort((a, b) => a - b).join(",")
  const known = reclaimableOfItems.get(view.items)
  if (known?.queue === queue) return known
  const kept = keptNewestOf(view, caches)
  // The leading items an earlier view shared keep that view's answer while the queue and the kept results are the
  // same: only the items after them are looked at (a call that adds an exchange looks at what it moved and added).
  const shared = caches.sharedItems.get(view.items)
  const last = shared ? reclaimableOfItems.get(shared.from) : undefined
  const from = shared && last && last.queue === queue && sameTags(last.kept, kept) ? shared.count : 0
  const taken = last && from > 0 ? countBelow(last.at, from) : 0
  const items = last && taken > 0 ? last.items.slice(0, taken) : []
  const at = last && taken > 0 ? last.at.slice(0, taken) : []
  const tokensBefore = last && taken > 0 ? last.tokensBefore.slice(0, taken + 1) : [0]
  let tokens = tokensBefore[taken] ?? 0
  for (let index = from; index < view.items.length; index += 1) {
    const item = view.items[index] as LiveItem
    if (!isReclaimable(item, queued, kept)) continue
    items.push(item)
    at.push(index)
    tokens += item.contentTokens + item.callTokens
    tokensBefore.push(tokens)
  }
  const made = { queue, items, at, tokensBefore, tokens, kept }
  reclaimableOfItems.set(view.items, made)
  return made
}

/** Reclaimable: a finished live tool output outside the protected window, not queued, not kept, worth a marker. */
function isReclaimable(item: LiveItem, queued: QueuedTags, kept: ReadonlySet<number>): boolean {
  return (
    item.tag.kind === "tool" &&
    item.tag.status === "live" &&
    item.final &&
    !item.protected &&
    !queued.has(item.tag.tag) &&
    !kept.has(item.tag.tag) &&
    item.contentTokens + item.callTokens >= MIN_RECLAIM_ARC_TOKENS
  )
}

/** How many of the ascending positions `at` are below `limit`. */
function countBelow(at: readonly number[], limit: number): number {
  let low = 0
  let high = at.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((at[middle] as number) < limit) low = middle + 1
    else high = middle
  }
  return low
}

function sameTags(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a.size !== b.size) return false
  for (const tag of a) if (!b.has(tag)) return false
  return true
}

/** Tags of the newest results of the tools in KEEP_NEWEST. */
export function keptNewest(items: readonly LiveItem[]): Set<number> {
  return newestOfKeptTools(items, null)
}

/**
 * `keptNewest` of a view's items, from where its KEEP_NEWEST tools' results sit (the caches' `keptToolPositions`): a view that
 * shares an earlier view's leading items takes their positions from there and looks only at the items after them.
 */
function keptNewestOf(view: LiveView, caches: ReduceCaches): Set<number> {
  const { keptToolPositions } = caches
  const known = keptToolPositions.get(view.items)
  const shared = caches.sharedItems.get(view.items)
  const last = known === undefined && shared ? keptToolPositions.get(shared.from) : undefined
  let positions = known
  if (positions === undefined) {
    const from = last && shared ? shared.count : 0
    const made = last ? last.slice(0, countBelow(last, from)) : []
    for (let index = from; index < view.items.length; index += 1) {
      const tool = (view.items[index] as LiveItem).tag.tool
      if (tool !== null && Object.hasOwn(KEEP_NEWEST, tool)) made.push(index)
    }
    keptToolPositions.set(view.items, made)
    positions = made
  }
  return newestOfKeptTools(view.items, positions)
}

/** The tags of each KEEP_NEWEST tool's newest results among the items at `positions` (ascending; null: every item). */
function newestOfKeptTools(items: readonly LiveItem[], positions: readonly number[] | null): Set<number> {
  const kept = new Set<number>()
  const seen = new Map<string, number>()
  // One walk from the newest item back, counting each kept tool's results.
  for (let at = (positions ?? items).length - 1; at >= 0; at -= 1) {
    const index = positions === null ? at : (positions[at] as number)
    const tool = (items[index] as LiveItem).tag.tool
    if (tool === null || !Object.hasOwn(KEEP_NEWEST, tool)) continue
    const count = seen.get(tool) ?? 0
    if (count >= (KEEP_NEWEST[tool] ?? 0)) continue
    seen.set(tool, count + 1)
    kept.add((items[index] as LiveItem).tag.tag)
  }
  return kept
}

/** The newest outputs of each category, up to RESERVED_SHARE of the category's tokens (at least one). */
function reservedNewest(items: readonly LiveItem[]): Set<number> {
  const reserved = new Set<number>()
  for (const members of categoryMembers(items).values()) {
    // The share is of the category's finished output, the protected part included (it is the newest).
    const share = members.reduce((sum, item) => sum + item.contentTokens, 0) * RESERVED_SHARE
    let covered = 0
    for (const [index, item] of [...members].reverse().entries()) {
      // The newest always; then newer outputs while they fit in the share (a large older one does not stretch it).
      if (index > 0 && covered + item.contentTokens > share) break
      reserved.add(item.tag.tag)
      covered += item.contentTokens
    }
  }
  return reserved
}

/** The finished live tool outputs of each category, oldest first. */
function categoryMembers(items: readonly LiveItem[]): Map<ReclaimCategory, LiveItem[]> {
  const members = new Map<ReclaimCategory, LiveItem[]>()
  for (const item of items) {
    if (item.tag.status !== "live" || !item.final || item.tag.tool === null) continue
    const category = hostTool(item.tag.tool).category
    if (category === null) continue
    const list = members.get(category) ?? []
    list.push(item)
    members.set(category, list)
  }
  return members
}
