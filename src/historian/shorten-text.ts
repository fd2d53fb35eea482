import { findIdentifierSpans, mayHoldSpace } from "./extract-identifiers.js"
import { SO_CONSEQUENCE } from "./extract-patterns.js"

/** The mark a shortened text ends with. */
export const ELLIPSIS = "…"

/**
 * Shortens `text` to about `maxChars` at a word boundary, never cutting through an identifier (a path, a version,
 * a backticked name): a cut that would land inside one moves before it, or after it when moving back would drop more
 * than half the text. The result is one line (whitespace collapsed) with balanced backticks, so it can share a line
 * with other text without a stray backtick pairing across them.
 */
export function shortenText(text: string, maxChars: number): string {
  return shortenedLead(text, maxChars) ?? shortenWhole(text, maxChars)
}

/**
 * `shortenWhole` of a long text read only as far as its cut: without a backtick or a quoted absolute path no
 * identifier can hold a space (`mayHoldSpace`), so a cut at a space depends only on the one-line form's first
 * `maxChars` + 1 characters, which the text's first 2 × `maxChars` + 64 give unless they are mostly whitespace.
 * Null where that does not hold. (A long tool output shortened to a line was collapsed whole: most of the cut's
 * allocations.)
 */
function shortenedLead(text: string, maxChars: number): string | null {
  const window = maxChars * 2 + 64
  if (text.length <= window || mayHoldSpace(text)) return null
  // A prefix of the whole text's one-line form, ending on a character that is not a space.
  const lead = text.slice(0, window).replace(/\s+/g, " ").trim()
  if (lead.length <= maxChars + 1) return null
  const space = lead.lastIndexOf(" ", maxChars)
  if (space <= 0) return null
  return cutMarked(lead.slice(0, space).trimEnd())
}

/** The definition `shortenText` follows (exported for its tests). */
export function shortenWhole(text: string, maxChars: number): string {
  const single = balanceBackticks(text.replace(/\s+/g, " ").trim())
  if (single.length <= maxChars) return single
  const space = single.lastIndexOf(" ", maxChars)
  const wordCut = space > 0 ? space : maxChars
  // A cut at a space falls inside an identifier only if the identifier holds a space.
  const inside = space <= 0 || mayHoldSpace(single)
    ? findIdentifierSpans(single, "prose").find((span) => span.start < wordCut && wordCut < span.end)
    : undefined
  const cut = inside === undefined ? wordCut : moveOutOf(inside, maxChars)
  const head = balanceBackticks(single.slice(0, cut)).trimEnd()
  if (head.length >= single.length) return single
  return cutMarked(head)
}

/** A cut text's head without the separators it ended on, and the ellipsis. */
function cutMarked(head: string): string {
  return `${head.replace(/[\s,;:(\[{-]+$/, "")}${ELLIPSIS}`
}

/** Before the identifier when that keeps at least half the budget, else after it. */
function moveOutOf(span: { start: number; end: number }, maxChars: number): number {
  return span.start > maxChars / 2 ? span.start : span.end
}

/** Drops the last backtick when a text has an odd number of them. */
function balanceBackticks(text: string): string {
  const count = text.split("`").length - 1
  if (count % 2 === 0) return text
  const last = text.lastIndexOf("`")
  return `${text.slice(0, last)}${text.slice(last + 1)}`
}

/** Words that open the reason of a decision or a rejection ("…, because the registry would need its own lock"). */
const REASON_START = new RegExp(
  `[,;:]?\\s+(?:because|since|so that|which (?:is|means|would|keeps)|otherwise|due to|as (?:it|the|that)|given that|in order to|${SO_CONSEQUENCE}|—|--)\\s`,
  "i",
)

/** True when a decision or rejection has a clause that opens its reason (", because …", ", so the …", " — …"). */
export function hasReasonClause(text: string): boolean {
  return REASON_START.test(text.replace(/\s+/g, " "))
}

/**
 * Shortens a decision or rejection to about `maxChars` keeping both halves of its contract: the start of what was
 * decided and the whole reason (up to 60% of the budget), joined by an ellipsis. Without a reason, or when the text
 * fits, it is `shortenText`.
 */
export function shortenKeepingReason(text: string, maxChars: number): string {
  const single = text.replace(/\s+/g, " ").trim()
  if (single.length <= maxChars) return shortenText(single, maxChars)
  const match = REASON_START.exec(single.slice(Math.floor(maxChars * 0.3)))
  if (match === null) return shortenText(single, maxChars)
  const at = Math.floor(maxChars * 0.3) + match.index
  const reason = single.slice(at).replace(/^[,;:]\s*/, "").trim()
  const reasonBudget = Math.floor(maxChars * 0.6)
  const head = shortenText(single.slice(0, at), maxChars - Math.min(reason.length, reasonBudget) - 3)
  const tail = shortenText(reason, reasonBudget)
  return `${head.endsWith(ELLIPSIS) ? head : `${head} ${ELLIPSIS}`} ${tail}`
}
