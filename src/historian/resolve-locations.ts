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
  // Each known path with the sources that give it: a resolved location cites them too (it quotes the path).
  const known = new Map<string, Fact["source"]>()
  for (const fact of facts) {
    const path = fact.kind === "location" ? locationPath(fact.text) : fact.kind === "identifier" && isPathLike(fact.text) ? fact.text : null
    if (path === null) continue
    const source = known.get(path)
    known.set(path, source === undefined ? fact.source : mergedSource(source, fact.source))
  }
  const resolved: Fact[] = []
  for (const fact of facts) {
    const path = fact.kind === "location" ? resolvedPath(locationPath(fact.text), [...known.keys()]) : null
    const pathSource = path === null ? undefined : known.get(path)
    const located =
      path === null || pathSource === undefined
        ? fact
        : { ...fact, text: `${path}${fact.text.slice(locationPath(fact.text).length)}`, source: mergedSource(fact.source, pathSource) }
    // A repeat is merged into a new fact: the facts given may be shared (memoized readings), never changed in place.
    const at = resolved.findIndex((other) => other.kind === located.kind && other.text === located.text)
    const same = resolved[at]
    if (same === undefined) resolved.push(located)
    else resolved[at] = { ...same, source: mergedSource(same.source, located.source) }
  }
  return resolved
}

/** The one longer path ending in `path` (its longest spelling), or null: whole already, unknown or ambiguous. */
function resolvedPath(path: string, known: readonly string[]): string | null {
  if (/^(?:\/|~\/|\.\.?\/)/.test(path)) return null
  const longer = known.filter((other) => other.length > path.length && other.endsWith(`/${path}`))
  const longest = longer.reduce<string | null>((best, other) => (best === null || other.length > best.length ? other : best), null)
  if (longest === null) return null
  // Every candidate is the same file named from a different directory, or the name is ambiguous.
  return longer.every((other) => longest === other || longest.endsWith(`/${other}`)) ? longest : null
}

function mergedSource(left: Fact["source"], right: Fact["source"]): Fact["source"] {
  const tags = [...new Set([...left.tags, ...right.tags])].sort((a, b) => a - b)
  return { tags, messageIds: [...new Set([...left.messageIds, ...right.messageIds])] }
}
