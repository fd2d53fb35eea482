import type { CanonicalRecord } from "./canonical-record.js"
import { criticalInvariant } from "./critical-invariant.js"
import { locationPath } from "./extract-locations.js"
import type { Fact, FactKind, Tier } from "./fidelity-types.js"
import { hasReasonClause, shortenKeepingReason, shortenText } from "./shorten-text.js"
import { ALL_RECOGNIZERS, type Recognizers } from "../session/recognizers.js"

/** Decisions, rejections, failures and open work are shortened to about this length in the compact tier. */
export const COMPACT_FACT_CHARS = 200

/**
 * A decision that gives its own reason stays whole in COMPACT up to this length (rule `whole-reasons`): shortened,
 * the cut lands inside the clause the reason is about.
 */
export const WHOLE_REASON_CHARS = 280

/** DENSE keeps the first this many narrative sentences of the assistant, each shortened to about this length. */
export const DENSE_NARRATIVE_SENTENCES = 16
export const DENSE_SENTENCE_CHARS = 300

/** COMPACT's key lines of tool output are shortened to about this length. */
export const KEY_LINE_CHARS = 160

/** The anchor's outcome is shortened to about this length. */
export const ANCHOR_OUTCOME_CHARS = 120

/** Section labels other modules read back from a rendered tier (compose-history.ts leaves repeated lines out). */
export const IDENTIFIERS_LABEL = "Identifiers"
export const INVARIANT_LABEL = "Invariant"

/** The four tier texts of a compartment: null where a tier adds nothing; the anchor always exists. */
export type TierTexts = Record<Tier, string | null> & { anchor: string }

/**
 * Renders the four tier views of a canonical record, each straight from the record (never from another tier's
 * text), following SURVIVAL_CONTRACTS: full is the episode's source (record.full); dense drops the raw tool output
 * and the user's words (they live in the pinned ledger) and keeps the assistant's narrative, the facts and what
 * tool output, attachments and edits said; compact drops the narrative and the output facts, shortens decisions
 * (keeping their reason; a reasoned one up to WHOLE_REASON_CHARS stays whole, rule `whole-reasons`), rejections and
 * failures and keeps paths without line numbers; anchor is one honest line. A tier that adds nothing to the next less
 * detailed one is null; the anchor never is. Deterministic: fixed labels, facts ordered by first tag then text, no
 * clock. `recognizers` are the named rules in use (the Lab switches some off).
 */
export function renderTiers(record: CanonicalRecord, recognizers: Recognizers = ALL_RECOGNIZERS): TierTexts {
  const invariant = criticalInvariant(record)
  const fromSource = record.full !== null && record.full.trim() !== ""
  const full = fromSource ? `${tierHeader(record)}\n${record.full}` : render(record, fullSections(record))
  const dense = render(record, denseSections(record, invariant))
  const compactSections = compactBody(record, recognizers.on("whole-reasons"))
  const compact = render(record, withOutcome(record, [invariantSection(invariant), ...compactSections]))
  // A tier no shorter than the source itself is pointless: FULL is the cheaper, complete view.
  const shorter = (text: string): boolean => !fromSource || text.length < full.length
  const anchor = renderAnchor(record, invariant)
  // An episode shorter than its own anchor is shown whole, on one line, at every tier.
  if (fromSource && full.length <= anchor.length) return { full: null, dense: null, compact: null, anchor: oneLine(full) }
  return {
    full: full === dense ? null : full,
    dense: dense !== compact && shorter(dense) ? dense : null,
    compact: compactSections.some((section) => section.lines.length > 0) && shorter(compact) ? compact : null,
    anchor,
  }
}

/** `[c12 §40§–§57§]`: the compartment id and its tag range, the first line of every tier. */
export function tierHeader(record: CanonicalRecord): string {
  const { firstTag, lastTag } = record.source
  if (firstTag === null || lastTag === null) return `[${record.compartmentId}]`
  return `[${record.compartmentId} §${firstTag}§–§${lastTag}§]`
}

type Section = { label: string; lines: string[]; inline?: boolean }

function render(record: CanonicalRecord, sections: readonly Section[]): string {
  const body = sections.filter((section) => section.lines.length > 0).map(renderSection)
  return [tierHeader(record), ...body].join("\n")
}

function renderSection(section: Section): string {
  if (section.inline === true) return `${section.label}: ${section.lines.join(", ")}`
  return [`${section.label}:`, ...section.lines.map((line) => `- ${line}`)].join("\n")
}

function fullSections(record: CanonicalRecord): Section[] {
  const constraints = factsOf(record, "constraint")
  const objectiveShown =
    record.objective !== null && !constraints.some((fact) => fact.text.replace(/\s+/g, " ") === record.objective)
  return withOutcome(record, [
    { label: "Objective", lines: objectiveShown && record.objective !== null ? [record.objective] : [], inline: true },
    { label: "User", lines: constraints.map((fact) => `${tagMark(fact)}${fact.text.replace(/\n/g, "\n  ")}`) },
    { label: "Narrative", lines: record.narrative.map(oneLine) },
    { label: "Tool calls", lines: record.toolCalls.map(toolCallLine) },
    ...detailSections(record, (text) => oneLine(text)),
    { label: "Locations", lines: texts(record, "location"), inline: true },
    { label: "Open work", lines: texts(record, "open_work").map(oneLine) },
    { label: "Notes", lines: texts(record, "incidental").map(oneLine) },
  ])
}

function denseSections(record: CanonicalRecord, invariant: string | null): Section[] {
  const details = detailSections(record, (text) => oneLine(text))
  const written = details.flatMap((section) => section.lines)
  // An output line the failure or decision lines already quote is not repeated under the call.
  const results = record.toolResults.map((result) => ({ ...result, lines: result.lines.filter((line) => !written.some((said) => said.includes(line))) }))
  return withOutcome(record, [
    invariantSection(invariant),
    { label: "Narrative", lines: record.narrative.slice(0, DENSE_NARRATIVE_SENTENCES).map((sentence) => shortenText(sentence, DENSE_SENTENCE_CHARS)) },
    ...details,
    { label: "Locations", lines: texts(record, "location"), inline: true },
    { label: "Open work", lines: texts(record, "open_work").map(oneLine) },
    { label: "Tool results", lines: results.filter((result) => result.lines.length > 0 || result.added.some((file) => file.lines.length > 0)).map(toolResultLines) },
    { label: "Attached", lines: record.attachments.map((file) => [`${tagPrefix(file.tag)}${file.name}`, ...file.lines.map(indent)].join("\n")) },
    { label: "Code", lines: record.codeBlocks.map((block) => `${tagPrefix(block.tag)}${block.text.replace(/\n/g, "\n  ")}`) },
  ])
}

/** A call as DENSE shows it: its one-liner, then the kept output lines and each file it wrote with its added lines. */
function toolResultLines(result: CanonicalRecord["toolResults"][number]): string {
  const lines = [`${tagPrefix(result.tag)}${result.summary} (${result.status})`, ...result.lines.map(indent)]
  const single = result.added.length === 1 && result.summary.includes(result.added[0]?.path ?? "\u0000")
  for (const file of result.added) {
    if (file.lines.length === 0) continue
    if (single) lines.push(...file.lines.map((line) => `  + ${line}`))
    else lines.push(`  ${file.path}:`, ...file.lines.map((line) => `    + ${line}`))
  }
  return lines.join("\n")
}

function indent(line: string): string {
  return `  ${line}`
}

/**
 * The sections with the outcome line after them, unless one of their lines already says the outcome word for word
 * (it is often the episode's last decision or rejection): no tier says it twice.
 */
function withOutcome(record: CanonicalRecord, sections: readonly Section[]): Section[] {
  const outcome = outcomeSection(record)
  const said = outcome.lines[0]
  if (said !== undefined && sections.some((section) => section.lines.some((line) => line.includes(said)))) return [...sections]
  return [...sections, outcome]
}

/** The compact tier's body: shortened texts, identifiers, paths of locations not already listed, open work. */
function compactBody(record: CanonicalRecord, wholeReasons: boolean): Section[] {
  const shorten = (text: string): string => shortenText(text, COMPACT_FACT_CHARS)
  const keepReason = (text: string, kind: FactKind): string =>
    wholeReasons && kind === "decision" && text.length <= WHOLE_REASON_CHARS && hasReasonClause(text)
      ? oneLine(text)
      : shortenKeepingReason(text, COMPACT_FACT_CHARS)
  const identifiers = new Set(texts(record, "identifier"))
  const paths = [...new Set(texts(record, "location").map(locationPath))].filter((path) => !identifiers.has(path))
  const written = detailSections(record, keepReason)
  const said = written.flatMap((section) => section.lines)
  return [
    ...written,
    { label: "Noted", lines: record.keyLines.filter((line) => !said.some((other) => other.includes(line))).map((line) => shortenText(line, KEY_LINE_CHARS)) },
    { label: "Locations", lines: paths, inline: true },
    { label: "Open work", lines: texts(record, "open_work").map(shorten) },
  ]
}

/**
 * Failures, decisions, rejected alternatives and identifiers: the sections every tier but the anchor carries. An
 * identifier already written out verbatim in one of the tier's other lines, or inside a longer identifier of the
 * list, is not listed again: the tier still contains it word for word, at no cost.
 */
function detailSections(record: CanonicalRecord, format: (text: string, kind: FactKind) => string): Section[] {
  const sections = [
    { label: "Failures", lines: texts(record, "failure").map((text) => format(text, "failure")) },
    { label: "Decisions", lines: texts(record, "decision").map((text) => format(text, "decision")) },
    { label: "Rejected alternatives", lines: texts(record, "rejected_alternative").map((text) => format(text, "rejected_alternative")) },
  ]
  const written = sections.flatMap((section) => section.lines)
  const identifiers = texts(record, "identifier")
  const listed = identifiers.filter(
    (identifier) =>
      !written.some((line) => line.includes(identifier)) &&
      !identifiers.some((other) => other !== identifier && other.includes(identifier)),
  )
  return [...sections, { label: IDENTIFIERS_LABEL, lines: listed, inline: true }]
}

function toolCallLine(call: CanonicalRecord["toolCalls"][number]): string {
  return `${tagPrefix(call.tag)}${call.summary} (${call.status})`
}

function invariantSection(invariant: string | null): Section {
  return { label: INVARIANT_LABEL, lines: invariant === null ? [] : [invariant], inline: true }
}

function outcomeSection(record: CanonicalRecord): Section {
  return { label: "Outcome", lines: record.outcome === null ? [] : [oneLine(record.outcome)], inline: true }
}

function renderAnchor(record: CanonicalRecord, invariant: string | null): string {
  const outcome = shortenText(record.outcome ?? "(no outcome)", ANCHOR_OUTCOME_CHARS)
  const clauses = [`${tierHeader(record)} ${outcome}`]
  if (invariant !== null) clauses.push(`invariant: ${invariant}`)
  if (record.entities.length > 0) clauses.push(`entities: ${record.entities.join(", ")}`)
  return clauses.join("; ")
}

/** The facts of one kind in record order (first tag, then text). */
function factsOf(record: CanonicalRecord, kind: FactKind): Fact[] {
  return record.facts.filter((fact) => fact.kind === kind)
}

function texts(record: CanonicalRecord, kind: FactKind): string[] {
  return factsOf(record, kind).map((fact) => fact.text)
}

function tagMark(fact: Fact): string {
  return tagPrefix(fact.source.tags[0] ?? null)
}

function tagPrefix(tag: number | null): string {
  return tag === null ? "" : `§${tag}§ `
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim()
}
