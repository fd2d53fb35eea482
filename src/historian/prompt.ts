import { TIERS, SURVIVAL_CONTRACTS } from "./fidelity-types.js"

/** Recorded with every representation a model writes, so a prompt change is visible in the lineage. */
export const HISTORIAN_PROMPT_VERSION = "historian-v1"

/** The hidden agent's system prompt: it writes tiers, never acts. */
export const HISTORIAN_SYSTEM_PROMPT =
  "You are magic-context's historian. You condense episodes of a coding-agent session into fixed tiers of detail. " +
  "You never use tools, never continue the session's work and never address the user. You answer with one JSON object."

/** One episode of raw source, as the historian reads it. */
export type HistorianEpisode = { id: string; source: string }

/**
 * The request for one batch of episodes. The data comes first and the instructions after it (models follow
 * instructions placed after long data more reliably), ending with the exact output shape.
 */
export function historianRequest(episodes: readonly HistorianEpisode[]): string {
  const data = episodes.map((episode) => `<episode id="${episode.id}">\n${episode.source}\n</episode>`).join("\n\n")
  const contracts = TIERS.map((tier) => `- ${tier}: ${SURVIVAL_CONTRACTS[tier]}`).join("\n")
  return [
    "HISTORIAN-REQUEST",
    data,
    "",
    "Write, for EACH episode above, four tiers of the same episode, each written from the episode's source (not from",
    "another tier). A tier is defined by what it must carry, not by its length:",
    contracts,
    "",
    "Rules:",
    "- Copy identifiers exactly as they appear in the source (paths, versions, commands, error lines, config values,",
    "  hashes). Never invent an identifier, a number or a decision that is not in the source.",
    "- Keep the reason with every decision and every rejected approach.",
    "- The user's instructions and constraints are kept verbatim elsewhere; do not paraphrase them into the tiers.",
    "- The anchor is one short line; it must not pretend to hold detail it lacks.",
    "- Use null for full or dense when it would say nothing more than the next tier down.",
    "- In facts, list the decisions, rejected alternatives, failures and identifiers, each with the §N§ tag numbers of",
    "  the source it came from.",
    "",
    "Answer with exactly one JSON object and nothing else:",
    '{"episodes":[{"id":"<episode id>","tiers":{"full":string|null,"dense":string|null,"compact":string,"anchor":string},' +
      '"facts":[{"kind":"decision"|"rejected_alternative"|"failure"|"identifier"|"location"|"open_work","text":string,"tags":[number]}]}]}',
  ].join("\n")
}

/** The repair request after an answer that did not parse or validate: the problem, then the same instruction. */
export function historianRepairRequest(problem: string): string {
  return (
    `Your answer could not be used: ${problem}. Answer again with exactly one JSON object of the shape asked for, ` +
    "covering every episode id, with no text before or after it."
  )
}
