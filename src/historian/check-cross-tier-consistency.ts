import type { CanonicalRecord } from "./canonical-record.js"
import { extractIdentifiers } from "./extract-identifiers.js"
import { locationPath } from "./extract-locations.js"
import { TIERS, tierRank, type Fact, type Tier } from "./fidelity-types.js"

/** One cross-tier problem of a compartment's tiers. */
export type TierInconsistency = { kind: "missing-in-higher" | "identifier-mismatch"; tier: Tier; detail: string }

/** How much of a fact's text serves as its key when it names no identifier. */
const KEY_CHARS = 60

/**
 * Checks a compartment's tiers against its record. `missing-in-higher`: a fact shown in a less detailed tier is
 * absent from a more detailed non-null tier (tiers must nest). `identifier-mismatch`: a tier names an identifier
 * the record does not hold (an invented path or version). Constraints are exempt from nesting: they live in the
 * pinned ledger and only the full tier quotes them. Empty for the canonical record's own tiers; it exists to check
 * tiers a model wrote.
 */
export function checkCrossTierConsistency(
  tiers: Readonly<Record<Tier, string | null>>,
  record: CanonicalRecord,
): TierInconsistency[] {
  const present = TIERS.flatMap((tier) => {
    const text = tiers[tier]
    return text === null ? [] : [{ tier, text: normalize(text), raw: text }]
  })
  return [...missingInHigher(present, record), ...identifierMismatches(present, record)]
}

/** `text` with whitespace collapsed (for matching), `raw` as rendered (for finding identifiers line by line). */
type TierText = { tier: Tier; text: string; raw: string }

function missingInHigher(present: readonly TierText[], record: CanonicalRecord): TierInconsistency[] {
  const problems: TierInconsistency[] = []
  for (const fact of record.facts) {
    if (fact.kind === "constraint") continue
    const shownIn = present.filter((tier) => isShown(fact, tier.text))
    const lowest = shownIn.reduce<TierText | null>(
      (low, tier) => (low === null || tierRank(tier.tier) < tierRank(low.tier) ? tier : low),
      null,
    )
    if (lowest === null) continue
    for (const higher of present) {
      if (tierRank(higher.tier) <= tierRank(lowest.tier) || isShown(fact, higher.text)) continue
      const detail = `${fact.kind} "${keyOf(fact)}" is in ${lowest.tier} but not in ${higher.tier}`
      problems.push({ kind: "missing-in-higher", tier: higher.tier, detail })
    }
  }
  return problems
}

function identifierMismatches(present: readonly TierText[], record: CanonicalRecord): TierInconsistency[] {
  const vocabulary = normalize(recordVocabulary(record))
  return present.flatMap((tier) =>
    extractIdentifiers(tier.raw, "prose")
      .filter((identifier) => !vocabulary.includes(normalize(identifier)))
      .map((identifier) => ({
        kind: "identifier-mismatch" as const,
        tier: tier.tier,
        detail: `"${identifier}" is not in the record of ${record.compartmentId}`,
      })),
  )
}

/** A fact is shown in a tier when its key text, or every identifier it names, appears there. */
function isShown(fact: Fact, tierText: string): boolean {
  if (tierText.includes(normalize(keyOf(fact)))) return true
  if (fact.kind === "identifier" || fact.kind === "location") return false
  const markers = extractIdentifiers(fact.text, "prose")
  return markers.length > 0 && markers.every((marker) => tierText.includes(normalize(marker)))
}

/** Identifiers and locations by their text (a location by its path: line numbers may decay); others by a prefix. */
function keyOf(fact: Fact): string {
  if (fact.kind === "identifier") return fact.text
  if (fact.kind === "location") return locationPath(fact.text)
  const single = normalize(fact.text)
  if (single.length <= KEY_CHARS) return single
  const cut = single.lastIndexOf(" ", KEY_CHARS)
  return single.slice(0, cut > KEY_CHARS / 2 ? cut : KEY_CHARS)
}

/** Every string the record holds: what a tier may legitimately name. */
function recordVocabulary(record: CanonicalRecord): string {
  return [
    record.compartmentId,
    record.objective ?? "",
    record.outcome ?? "",
    ...record.facts.map((fact) => fact.text),
    ...record.toolCalls.map((call) => call.summary),
    ...record.narrative,
    ...record.entities,
  ].join("\n")
}

function normalize(text: string): string {
  return text.replace(/\s+/g, " ")
}
