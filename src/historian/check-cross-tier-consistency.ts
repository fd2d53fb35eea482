import type { CanonicalRecord } from "./canonical-record.js"
import { FULL_CUT_NOTE } from "./episode-full.js"
import { extractIdentifiers } from "./extract-identifiers.js"
import { splitSentences } from "./extract-patterns.js"
import { locationPath } from "./extract-locations.js"
import { TIERS, tierRank, type Fact, type Tier } from "./fidelity-types.js"
import { PLAN_LABEL, REASONING_MARK } from "./reasoning-plans.js"
import { DESIGN_LABEL } from "./reasoning-design.js"

/** One cross-tier problem of a compartment's tiers. */
export type TierInconsistency = { kind: "missing-in-higher" | "identifier-mismatch"; tier: Tier; detail: string }

/** How much of a fact's text serves as its key when it names no identifier. */
const KEY_CHARS = 60

/**
 * Checks a compartment's tiers against its record. `missing-in-higher`: a fact shown in a less detailed tier is
 * absent from a more detailed non-null tier (tiers must nest). `identifier-mismatch`: a tier names an identifier
 * the record does not hold (an invented path or version). Constraints are exempt from nesting: they live in the
 * pinned ledger and only the full tier quotes them. A FULL rendered from the source (`record.full`) is the episode
 * itself: it names what the source names, and it carries a fact when it holds the fact's identifiers (a fact's own
 * wording, `cmd → error`, is the record's, not the source's). Empty for the canonical record's own tiers; it exists
 * to check tiers a model wrote.
 */
export function checkCrossTierConsistency(
  tiers: Readonly<Record<Tier, string | null>>,
  record: CanonicalRecord,
): TierInconsistency[] {
  const present = TIERS.flatMap((tier) => {
    const text = tiers[tier]
    return text === null ? [] : [{ tier, text: normalize(text), raw: text }]
  })
  const named = record.full === null ? present : present.filter((tier) => tier.tier !== "full")
  return [...missingInHigher(present, record), ...identifierMismatches(named, record)]
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
      if (higher.tier === "full" && record.full !== null && isInSource(fact, higher.text)) continue
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

/** The source carries a fact when it holds the fact's identifiers (or, naming none, its first words). */
function isInSource(fact: Fact, sourceText: string): boolean {
  if (fact.kind === "location") return sourceText.includes(normalize(locationPath(fact.text)))
  const markers = fact.kind === "identifier" ? [fact.text] : extractIdentifiers(fact.text, "prose")
  if (sourceText.includes(FULL_CUT_NOTE)) return true
  if (markers.length > 0) return markers.every((marker) => sourceText.includes(normalize(marker)))
  return quotedWords(fact).every((words) => sourceText.includes(normalize(words).slice(0, 24)))
}

/**
 * The source's own words in a fact: a failure reads `call → error lines`, and a fact taken from reasoning begins with
 * the record's mark (and a plan's or a design's label), its steps joined from the source's lines: their first sentence.
 */
function quotedWords(fact: Fact): string[] {
  if (fact.kind === "failure") return (fact.text.split(" → ")[1] ?? fact.text).split(" | ")
  if (!fact.text.startsWith(REASONING_MARK)) return [fact.text]
  const said = fact.text.slice(REASONING_MARK.length).replace(PLAN_LABEL, "").replace(DESIGN_LABEL, "")
  return [splitSentences(said)[0] ?? said]
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
    // DENSE's quotes of the source: output lines, added lines, attachments and code blocks, verbatim.
    ...record.toolResults.flatMap((result) => [result.summary, ...result.lines, ...result.added.flatMap((file) => [file.path, ...file.lines])]),
    ...record.attachments.flatMap((file) => [file.name, ...file.lines]),
    ...record.codeBlocks.map((block) => block.text),
  ].join("\n")
}

function normalize(text: string): string {
  return text.replace(/\s+/g, " ")
}
