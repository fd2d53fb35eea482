/**
 * Rule `resolved-locations`: an agent names a place by its file name ("the retry loop at client.py:88") after a call of
 * the episode gave the file's path; a later step (an edit, a jump to the line) needs the path. A location whose path
 * is a bare name or a partial path is written with the one path of the episode that ends in it.
 */
import { isPathLike } from "./extract-identifiers.js"
import { locationPath } from "./extract-locations.js"
import type { Fact } from "./fidelity-types.js"

/**
 * The facts with each relative location whose path ends exactly one known path (read, written, named or located in
 * the episode; one file may be named at several depths) rewritten to that path, the longest spelling of it. A
 * location left ambiguous (two files of that name) or already whole is unchanged; a rewritten one that repeats an
 * existing location is merged into it.
 */
export function resolveLocations(facts: readonly Fact[]): Fact[] {
  const known = [
    ...new Set(
      facts.flatMap((fact) => {
        if (fact.kind === "identifier" && isPathLike(fact.text)) return [fact.text]
        if (fact.kind === "location") return [locationPath(fact.text)]
        return []
      }),
    ),
  ]
  const resolved: Fact[] = []
  for (const fact of facts) {
    const text = fact.kind === "location" ? resolvedText(fact.text, known) : fact.text
    const same = resolved.find((other) => other.kind === fact.kind && other.text === text)
    if (same === undefined) resolved.push(text === fact.text ? fact : { ...fact, text })
    else same.source = mergedSource(same, fact)
  }
  return resolved
}

function resolvedText(location: string, known: readonly string[]): string {
  const path = locationPath(location)
  if (/^(?:\/|~\/|\.\.?\/)/.test(path)) return location
  const longer = known.filter((other) => other.length > path.length && other.endsWith(`/${path}`))
  const longest = longer.reduce<string | null>((best, other) => (best === null || other.length > best.length ? other : best), null)
  if (longest === null) return location
  // Every candidate is the same file named from a different directory, or the name is ambiguous.
  if (!longer.every((other) => longest === other || longest.endsWith(`/${other}`))) return location
  return `${longest}${location.slice(path.length)}`
}

function mergedSource(left: Fact, right: Fact): Fact["source"] {
  const tags = [...new Set([...left.source.tags, ...right.source.tags])].sort((a, b) => a - b)
  return { tags, messageIds: [...new Set([...left.source.messageIds, ...right.source.messageIds])] }
}
