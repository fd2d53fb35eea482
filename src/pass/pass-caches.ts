import { createReduceCaches, type ReduceCaches } from "../reduce/reduce-caches.js"
import { createRenderCaches, type RenderCaches } from "../render/render-caches.js"
import { createMessageMemo, type MessageMemo } from "../session/message-memo.js"
import type { SessionState } from "../session/session-state.js"
import { createTokenCaches, type TokenCaches } from "../tokens/counted-text-cache.js"

/**
 * The estimates worked out for each list of a pass's view items (the last two: a pass asks with and without the fold),
 * with the inputs besides the items they were made from: the key of the numbers and tags, and the applied state's
 * placements and history (the measure reads them).
 */
export type FreedEstimates = WeakMap<
  readonly unknown[],
  { key: string; placements: SessionState["applied"]["placements"]; history: SessionState["applied"]["history"]; freed: number }[]
>

/**
 * Everything one session's passes keep in memory to reuse from pass to pass, made together and handed explicitly to
 * the view, the measure, the renderer, the serialization, reclaim and the token counts. Nothing in them decides an
 * output: each entry is checked against what it was made from, so fresh caches give the same pass, only slower.
 */
export type PassCaches = {
  /** Per message, what the latest passes made of it (`session/message-memo.ts`). */
  memo: MessageMemo
  render: RenderCaches
  reduce: ReduceCaches
  tokens: TokenCaches
  /** What an execute pass would free (`estimateFreedTokens`). */
  estimates: FreedEstimates
}

/** Empty caches for one session. */
export function createPassCaches(): PassCaches {
  const memo = createMessageMemo()
  return { memo, render: createRenderCaches(), reduce: createReduceCaches(memo.sharedItems), tokens: createTokenCaches(), estimates: new WeakMap() }
}
