/** A pinned fact: rendered verbatim at every pressure. */
export type PinnedFact = { text: string; tags: number[] }

/** The ledger's heading (the status report finds the ledger by it). */
export const PINNED_HEADING = "## Pinned (verbatim; these still apply)"

/** How an episode lists the pins the full ledger moved into it. */
export const EPISODE_PINS_LABEL = "Pinned (verbatim; these still apply)"

/**
 * Splits the pins (oldest first) between the pinned ledger and their episodes: the ledger keeps the newest pins
 * whose section (heading and notice included, counted as rendered) fits `budgetTokens`; the older ones are
 * condensed into the episode that holds them, where `withEpisodePins` renders them verbatim in every tier. So the
 * ledger never exceeds its budget, however long the session, and no pin is shortened. Pure and deterministic.
 */
export function splitLedger<Pin extends PinnedFact>(options: {
  pins: readonly Pin[]
  budgetTokens: number
  count: (text: string) => number
}): { ledger: Pin[]; condensed: Pin[]; tokens: number } {
  const { pins, budgetTokens, count } = options
  const section = (kept: number): string => ledgerLines(pins.slice(pins.length - kept), pins.length - kept).join("\n")
  // An estimate from the lines' own counts (with the longest notice, a token per line break) brackets how many fit ...
  let used = count(PINNED_HEADING) + count(condensedNotice(pins.length)) + 2
  let estimate = 0
  for (let index = pins.length - 1; index >= 0; index -= 1) {
    const cost = count(pinLine(pins[index] as Pin)) + 1
    if (used + cost > budgetTokens) break
    used += cost
    estimate += 1
  }
  // ... and the count of the section as rendered decides: the most pins whose section fits, searched between the
  // estimate and twice it (the estimate over-counts line breaks, so it rarely under-counts by more).
  const fits = (kept: number): boolean => kept === 0 || count(section(kept)) <= budgetTokens
  let low = 0
  let high = Math.min(pins.length, 2 * estimate + 8)
  if (fits(estimate)) low = estimate
  else high = estimate - 1
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (fits(middle)) low = middle
    else high = middle - 1
  }
  const kept = low
  const tokens = kept === 0 ? 0 : count(section(kept))
  return { ledger: pins.slice(pins.length - kept), condensed: pins.slice(0, pins.length - kept), tokens }
}

/** The ledger section as the history renders it: nothing without pins; else the heading, the notice, the pins. */
export function ledgerLines(pins: readonly PinnedFact[], condensed: number): string[] {
  if (pins.length === 0) return []
  return [PINNED_HEADING, ...(condensed > 0 ? [condensedNotice(condensed)] : []), ...pins.map(pinLine)]
}

/**
 * A tier's text with the episode's condensed pins that it does not already contain word for word (FULL holds the
 * user's own words) appended under EPISODE_PINS_LABEL: every tier of the episode carries them, so the pins' floor
 * (exact) holds whatever tier is selected.
 */
export function withEpisodePins(text: string, pins: readonly PinnedFact[]): string {
  const missing = pins.filter((pin) => !text.includes(pin.text))
  if (missing.length === 0) return text
  return [text, `${EPISODE_PINS_LABEL}:`, ...missing.map(pinLine)].join("\n")
}

/** What `withEpisodePins` adds to a tier, in tokens, from the lines' own counts (memoized by the caller). */
export function episodePinTokens(text: string, pins: readonly PinnedFact[], count: (text: string) => number): number {
  const missing = pins.filter((pin) => !text.includes(pin.text))
  if (missing.length === 0) return 0
  return missing.reduce((sum, pin) => sum + count(pinLine(pin)) + 1, count(`${EPISODE_PINS_LABEL}:`) + 1)
}

/** One pin as a line: its first tag and its text, verbatim (also across lines: an exact match must find it). */
export function pinLine(pin: PinnedFact): string {
  return `- ${pin.tags.length > 0 ? `§${pin.tags[0]}§ ` : ""}${pin.text}`
}

/** How many pins a history's ledger says it condensed into their episodes (0 when it says none). */
export function condensedPinsOf(historyText: string): number {
  return numberAfter(historyText, `${PINNED_HEADING}\n${CONDENSED_OPENING}`)
}

/** The whole number right after the first `marker` in `text` (0 when there is none). */
export function numberAfter(text: string, marker: string): number {
  const at = text.indexOf(marker)
  if (at < 0) return 0
  const digits = /^\d+/.exec(text.slice(at + marker.length, at + marker.length + 16))
  return digits ? Number(digits[0]) : 0
}

const CONDENSED_OPENING = "(The ledger is full: the "

function condensedNotice(condensed: number): string {
  const where = `in the episodes that hold them, under "${EPISODE_PINS_LABEL}"`
  return `${CONDENSED_OPENING}${condensed} oldest pins are kept verbatim ${where}.)`
}
