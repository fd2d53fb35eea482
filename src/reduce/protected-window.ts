/**
 * The protected recent window, by token mass. Unless `protected_tokens` is set it is derived from the usable
 * window by a power law through the seed's two anchor points, 200k -> 16k and 1M -> 50k:
 *
 *   protected = 16,000 * (usable / 200,000) ^ a,   a = ln(50/16) / ln(5) ~= 0.708
 *
 * so it grows with the window but more slowly: 32k -> 4,372, 64k -> 7,141, 128k -> 11,665, 200k -> 16,000,
 * 400k -> 26,136, 1M -> 50,000, 2M -> 81,675. Clamped to at least 2,000 tokens and at most a quarter of the
 * usable window. A configured `protected_tokens` is clamped to that quarter too: a protected window near the size of
 * the window leaves an execute pass nothing to free (32k usable with 1,000,000 protected peaked at 102%).
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

/** The protected window: the configured size, at most a quarter of the usable window, else the derived one. */
export function protectedWindow(options: { configured: number | null; usableTokens: number }): {
  tokens: number
  /** The configured size when it was over the quarter and clamped, else null. */
  clampedFrom: number | null
} {
  const { configured, usableTokens } = options
  if (configured === null) return { tokens: derivedProtectedTokens(usableTokens), clampedFrom: null }
  const most = Math.floor(usableTokens * PROTECTED_MAX_SHARE)
  return configured > most ? { tokens: most, clampedFrom: configured } : { tokens: configured, clampedFrom: null }
}

/** What a clamped protected window tells the user. */
export function protectedClampMessage(options: { clampedFrom: number; tokens: number; usableTokens: number }): string {
  const count = (value: number): string => value.toLocaleString("en-US")
  return (
    `protected_tokens ${count(options.clampedFrom)} is more than a quarter of the usable window ` +
    `(${count(options.usableTokens)} tokens); the protected window is clamped to ${count(options.tokens)} tokens, so ` +
    "an execute pass can still bring the prompt under the threshold"
  )
}
