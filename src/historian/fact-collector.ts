import {
  FLOOR_BY_KIND,
  RETENTION_BY_KIND,
  type Fact,
  type FactKind,
  type SourceRefs,
} from "./fidelity-types.js"
import { isPathLike } from "./extract-identifiers.js"

/** Where one piece of text came from: the tag of its part (or of its message) and the message id. */
export type SourceRef = { tag: number | null; messageId: string }

/** Collects facts of one compartment, merging repeats (same kind and text) into one fact with all their sources. */
export type FactCollector = {
  add(kind: FactKind, text: string, refs: readonly SourceRef[]): void
  /** Every fact, identifiers deduplicated, sorted by first tag, then kind, then text. */
  facts(): Fact[]
}

/** Kinds in the order the record lists them within one tag. */
export const FACT_KIND_ORDER: readonly FactKind[] = [
  "constraint",
  "decision",
  "rejected_alternative",
  "failure",
  "identifier",
  "location",
  "open_work",
  "incidental",
]

/** Creates an empty collector. */
export function createFactCollector(): FactCollector {
  const entries = new Map<string, { kind: FactKind; text: string; refs: SourceRef[] }>()
  return {
    add(kind, text, refs) {
      const trimmed = text.trim()
      if (trimmed === "") return
      const key = `${kind}\u0000${trimmed}`
      const entry = entries.get(key)
      if (entry) entry.refs.push(...refs)
      else entries.set(key, { kind, text: trimmed, refs: [...refs] })
    },
    facts() {
      const all = [...entries.values()]
      const paths = all
        .filter((entry) => entry.kind === "identifier" && isPathLike(entry.text))
        .map((entry) => entry.text)
      return all
        .filter((entry) => entry.kind !== "identifier" || !isPathSuffixOfAnother(entry.text, paths))
        .map((entry) => toFact(entry.kind, entry.text, entry.refs))
        .sort(compareFacts)
    },
  }
}

/** Tags (ascending, unique) and message ids (first-seen order, unique) of a set of refs. */
export function toSourceRefs(refs: readonly SourceRef[]): SourceRefs {
  const tags = [...new Set(refs.map((ref) => ref.tag).filter((tag): tag is number => tag !== null))].sort(
    (left, right) => left - right,
  )
  return { tags, messageIds: [...new Set(refs.map((ref) => ref.messageId))] }
}

/** Orders facts by first tag (untagged last), then kind, then text (code-unit order, locale-free). */
export function compareFacts(left: Fact, right: Fact): number {
  const leftTag = left.source.tags[0] ?? Number.MAX_SAFE_INTEGER
  const rightTag = right.source.tags[0] ?? Number.MAX_SAFE_INTEGER
  if (leftTag !== rightTag) return leftTag - rightTag
  const kindOrder = FACT_KIND_ORDER.indexOf(left.kind) - FACT_KIND_ORDER.indexOf(right.kind)
  if (kindOrder !== 0) return kindOrder
  return compareText(left.text, right.text)
}

/** Code-unit comparison (no `localeCompare`: the same everywhere). */
export function compareText(left: string, right: string): number {
  if (left === right) return 0
  return left < right ? -1 : 1
}

function toFact(kind: FactKind, text: string, refs: readonly SourceRef[]): Fact {
  return { kind, text, retention: RETENTION_BY_KIND[kind], floor: FLOOR_BY_KIND[kind], source: toSourceRefs(refs) }
}

/** `match.c` is dropped when `src/libponyc/expr/match.c` is also an identifier: the longer path says more. */
function isPathSuffixOfAnother(text: string, paths: readonly string[]): boolean {
  if (!isPathLike(text)) return false
  return paths.some((path) => path !== text && path.endsWith(text) && path[path.length - text.length - 1] === "/")
}
