import type { Fact } from "../historian/fidelity-types.js"
import { createTailSearch } from "../historian/tail-search.js"
import type { LiveView } from "../session/live-view.js"
import type { HostPart } from "../transcript/host-message.js"
import { newestText } from "./newest-text.js"

/** How much of the newest protected text relevance looks at. */
const RELEVANCE_TAIL_CHARS = 40_000
/** How many of an episode's identifiers in the tail make it wholly relevant. */
const RELEVANCE_FULL_HITS = 3
/** An identifier shorter than this says too little to make its episode relevant. */
const RELEVANCE_MIN_CHARS = 6

/** An episode as relevance reads it: its id and the identifiers its facts name (`relevanceIdentifiers`). */
export type RelevantEpisode = { id: string; identifiers: readonly string[] }

/**
 * How much the live tail is about each compartment again: 1 when the agent expanded it; otherwise the share of
 * its identifiers (paths, commands, names; up to three count) that occur in the protected recent messages.
 */
export function relevanceOf(episodes: readonly RelevantEpisode[], view: LiveView, expanded: ReadonlySet<string>): Map<string, number> {
  const tail = newestText(view.messages.slice(view.protectedFrom), RELEVANCE_TAIL_CHARS, relevanceText)
  const result = new Map<string, number>()
  const search = createTailSearch(tail, RELEVANCE_MIN_CHARS)
  for (const episode of episodes) {
    if (expanded.has(episode.id)) {
      result.set(episode.id, 1)
      continue
    }
    let hits = 0
    for (const identifier of episode.identifiers) {
      if (search.occurs(identifier)) hits += 1
      if (hits === RELEVANCE_FULL_HITS) break
    }
    result.set(episode.id, hits / RELEVANCE_FULL_HITS)
  }
  return result
}

/** The identifiers relevance looks for among a compartment's facts (those long enough to say something). */
export function relevanceIdentifiers(facts: readonly Fact[]): string[] {
  return facts.filter((fact) => fact.kind === "identifier" && fact.text.length >= RELEVANCE_MIN_CHARS).map((fact) => fact.text)
}

/** A part's text as relevance reads it: text, or a tool call's input as JSON. */
function relevanceText(part: HostPart): string {
  return part.type === "text" ? part.text : part.type === "tool" ? JSON.stringify(part.state.input) : ""
}
