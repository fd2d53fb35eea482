/**
 * An execute pass that only continues the drain, or that only folds ready history at the threshold, must free at least
 * the larger of these to be worth rewriting the prompt (and paying for the provider's cache again).
 */
export const MINIMUM_FREED_TOKENS = 1_000
export const MINIMUM_FREED_SHARE = 0.02

/** What such a pass must free, in tokens, for a usable window of this size: max(1,000, 2% of it). */
export function minimumFreedTokens(usableTokens: number): number {
  return Math.max(MINIMUM_FREED_TOKENS, usableTokens * MINIMUM_FREED_SHARE)
}
