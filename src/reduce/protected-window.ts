/**
 * The protected recent window, by token mass. Unless `protected_tokens` is set it is derived from the usable
 * window by a power law through the seed's two anchor points, 200k -> 16k and 1M -> 50k:
 *
 *   protected = 16,000 * (usable / 200,000) ^ a,   a = ln(50/16) / ln(5) ~= 0.708
 *
 * so it grows with the window but more slowly: 32k -> 4,372, 64k -> 7,141, 128k -> 11,665, 200k -> 16,000,
 * 400k -> 26,136, 1M -> 50,000, 2M -> 81,675. Clamped to at least 2,000 tokens and at most a quarter of the
 * usable window.
 */
export const PROTECTED_ANCHOR_WINDOW = 200_000
export const PROTECTED_ANCHOR_TOKENS = 16_000
export const PROTECTED_EXPONENT = Math.log(50_000 / 16_000) / Math.log(1_000_000 / 200_000)
export const PROTECTED_MIN_TOKENS = 2_000
export const PROTECTED_MAX_SHARE = 0.25

/** The derived protected window for a usable window, in tokens (an integer). */
export function derivedProtectedTokens(usableTokens: number): number {
  if (usableTokens <= 0) return 0
  const raw = PROTECTED_ANCHOR_TOKENS * Math.pow(usableTokens / PROTECTED_ANCHOR_WINDOW, PROTECTED_EXPONENT)
  const clamped = Math.min(Math.max(raw, PROTECTED_MIN_TOKENS), usableTokens * PROTECTED_MAX_SHARE)
  return Math.round(clamped)
}
