import type { Tier } from "../historian/fidelity-types.js"
import { representationContent, type RepresentationStrategy } from "../store/compartment-repository.js"
import type { Database } from "../store/driver.js"

/**
 * Tier texts read from the store when the history needs them, the most recently used kept up to `maxChars`
 * characters: a fold reads the tiers it renders (and, for an episode holding condensed pins, all of its tiers), so a
 * long session holds about one history's worth of tier texts instead of every tier of every episode.
 */
export type TierTexts = {
  text(compartmentId: string, tier: Tier, strategy: RepresentationStrategy): string | undefined
  /** Forgets every text (the compartments are read from the store again). */
  clear(): void
}

/** What a session's tier texts keep at most: a few histories of the largest windows. */
export const TIER_TEXTS_MAX_CHARS = 4_000_000

export function createTierTexts(db: Database, maxChars: number = TIER_TEXTS_MAX_CHARS): TierTexts {
  // Insertion order is use order: a hit moves its entry to the end, and the oldest go first.
  let kept = new Map<string, string>()
  let chars = 0
  return {
    text(compartmentId, tier, strategy) {
      const key = `${compartmentId}\n${tier}\n${strategy}`
      const known = kept.get(key)
      if (known !== undefined) {
        kept.delete(key)
        kept.set(key, known)
        return known
      }
      const content = representationContent(db, compartmentId, tier, strategy)
      if (content === null) return undefined
      kept.set(key, content)
      chars += content.length
      for (const [oldest, text] of kept) {
        if (chars <= maxChars) break
        kept.delete(oldest)
        chars -= text.length
      }
      return content
    },
    clear() {
      kept = new Map()
      chars = 0
    },
  }
}
