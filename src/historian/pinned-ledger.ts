/**
 * A pinned fact: rendered verbatim at every pressure. `binding` marks what the ledger keeps longest: a constraint, or
 * a pin the agent or the user chose (ctx_pin).
 */
export type PinnedFact = { text: string; tags: number[]; binding?: boolean }

/** The ledger's heading (the status report finds the ledger by it). */
export const PINNED_HEADING = "## Pinned (verbatim; these still apply)"

/** How an episode lists the pins the full ledger moved into it. */
export const EPISODE_PINS_LABEL = "Pinned (verbatim; these still apply)"

/**
 * Splits the pins (oldest first) between the pinned ledger and their episodes. The ledger keeps every pin while its
 * section (heading and notice included, counted as rendered) fits `budgetTokens`; past that it lets pins go in a
 * stated order: those that are not binding, oldest first, then binding ones, oldest first. A pin let go is condensed
 * into the episode that holds it, where `withEpisodePins` renders it verbatim in every tier. So the ledger never
 * exceeds its budget, however long the session, no pin is shortened, and constraints stay in the ledger longest.
 * Kept pins stay in their order. Pure and deterministic.
 */
export function splitLedger<Pin extends PinnedFact>(options: {
  pins: readonly Pin[]
  budgetTokens: number
  count: (text: string) => number
}): { ledger: Pin[]; condensed: Pin[]; tokens: number } {
  const { pins, budgetTokens, count } = options
  const binding = pins.filter((pin) => pin.binding === true)
  const loose = pins.filter((pin) => pin.binding !== true)
  // Kept: every binding pin and the newest `looseKept` others; or, when even the binding ones do not all fit, the
  // newest `bindingKept` of them.
  const keptOf = (bindingKept: number, looseKept: number): Pin[] => {
    const kept = new Set<Pin>([...binding.slice(binding.length - bindingKept), ...loose.slice(loose.length - looseKept)])
    return pins.filter((pin) => kept.has(pin))
  }
  const section = (kept: readonly Pin[]): string => ledgerLines(kept, pins.length - kept.length).join("\n")
  const fits = (kept: readonly Pin[]): boolean => kept.length === 0 || count(section(kept)) <= budgetTokens
  if (fits(pins)) return { ledger: [...pins], condensed: [], tokens: pins.length === 0 ? 0 : count(section(pins)) }
  const frame = count(PINNED_HEADING) + count(condensedNotice(pins.length)) + 2
  const allBinding = fits(keptOf(binding.length, 0))
  const kept = allBinding
    ? keptOf(binding.length, mostThatFit(loose, budgetTokens - frame - linesCost(binding, count), count, (n) => fits(keptOf(binding.length, n))))
    : keptOf(mostThatFit(binding, budgetTokens - frame, count, (n) => fits(keptOf(n, 0))), 0)
  const keptSet = new Set(kept)
  const tokens = kept.length === 0 ? 0 : count(section(kept))
  return { ledger: kept, condensed: pins.filter((pin) => !keptSet.has(pin)), tokens }
}

/**
 * The most of the newest `pins` for which `fits` holds (it holds for fewer whenever it holds for more): an estimate
 * from the lines' own counts in `room` (a token per line break) brackets the search, and the count of the section as
 * rendered decides, searched between 0 and twice the estimate (the estimate over-counts line breaks, so it rarely
 * under-counts by more). A ledger of thousands of pins is counted a few times, not once per pin.
 */
function mostThatFit(pins: readonly PinnedFact[], room: number, count: (text: string) => number, fits: (kept: number) => boolean): number {
  let used = 0
  let estimate = 0
  for (let index = pins.length - 1; index >= 0; index -= 1) {
    const cost = count(pinLine(pins[index] as PinnedFact)) + 1
    if (used + cost > room) break
    used += cost
    estimate += 1
  }
  let low = 0
  let high = Math.min(pins.length, 2 * estimate + 8)
  if (fits(estimate)) low = estimate
  else high = estimate - 1
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (fits(middle)) low = middle
    else high = middle - 1
  }
  return low
}

function linesCost(pins: readonly PinnedFact[], count: (text: string) => number): number {
  return pins.reduce((sum, pin) => sum + count(pinLine(pin)) + 1, 0)
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
  return `${CONDENSED_OPENING}${condensed} pins it let go, oldest first and constraints last, are kept verbatim ${where}.)`
}
