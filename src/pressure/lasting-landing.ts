import type { TokenPrices } from "../session/price-lists.js"

/**
 * Where an execute pass lands under a cache write premium, in the units usage is measured in: the landing line
 * (`history_landing`), or lower, so that the break lasts until its premium is paid back.
 *
 * A pass that folds re-sends the prompt after its first changed byte once. Without a write premium that re-send costs
 * what the landing line already accepted. A premium (a cache write dearer than an uncached token: Anthropic's 1.25×
 * and 2×) adds `premium × (landing − fixed)` to every break, and the breaks come every `(threshold − landing) ÷
 * growth` calls. The pass lands as high as it may while what it frees below the threshold, read at each call until
 * the prompt grows back to the threshold, covers that premium:
 *
 *   read × (threshold − landing)² ÷ growth ≥ premium × (landing − fixed)
 *
 * the cost rule's own test (`execute-pays.ts`: forward savings against the break) on the part of the break the
 * premium adds. A landing lower saves reads and breaks alike, so the highest landing that passes is the one that
 * demotes least. No premium, an unknown growth (0) or a landing line that passes already: the landing line, unchanged.
 * Never below the fixed prompt; the history planner's budget and floors bound it further (they win over the room). Pure.
 */
export function lastingLanding(options: {
  /** The configured landing line (`WindowSettings.landingTokens`). */
  landingTokens: number
  thresholdTokens: number
  /** What a break never re-sends: the fixed prompt (and the calibration that counts with it). */
  fixedTokens: number
  /** The session's mean prompt growth per call (`growthPerCall`; 0: unknown). */
  growthPerCall: number
  prices: TokenPrices
}): number {
  const { landingTokens, thresholdTokens, fixedTokens, growthPerCall, prices } = options
  const premium = Math.max(prices.cacheWrite, prices.uncached) - prices.uncached
  if (premium <= 0 || growthPerCall <= 0 || prices.cachedRead <= 0) return landingTokens
  const span = thresholdTokens - fixedTokens
  if (span <= 0 || landingTokens <= fixedTokens) return landingTokens
  // With x = threshold − landing: read × x² ÷ growth ≥ premium × (span − x), i.e. x² + a·x − a·span ≥ 0, a = premium ×
  // growth ÷ read; the least x that passes is the positive root.
  const a = (premium * growthPerCall) / prices.cachedRead
  const least = (-a + Math.sqrt(a * a + 4 * a * span)) / 2
  const lasting = Math.floor(thresholdTokens - least)
  return Math.max(Math.ceil(fixedTokens), Math.min(landingTokens, lasting))
}
