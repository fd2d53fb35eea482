/**
 * The vocabulary of progressive fidelity (seed: "Let Old Context Fade"). Retention class says what may happen to
 * an item; fidelity level (tier) says which allowed representation is shown now. Floors come from the kind of
 * item, never from its age.
 */

/** The four tiers, most detailed first. Each is defined by a survival contract (SURVIVAL_CONTRACTS), not a size. */
export const TIERS = ["full", "dense", "compact", "anchor"] as const
export type Tier = (typeof TIERS)[number]

/** Higher is more detailed: full 3, dense 2, compact 1, anchor 0. */
export function tierRank(tier: Tier): number {
  return TIERS.length - 1 - TIERS.indexOf(tier)
}

export type RetentionClass = "PIN" | "COMPRESSIBLE" | "DISCARDABLE"

/** The kinds of fact the historian extracts (the probe kinds of the Lab map onto them). */
export type FactKind =
  | "constraint"
  | "decision"
  | "rejected_alternative"
  | "failure"
  | "identifier"
  | "location"
  | "open_work"
  | "incidental"

/**
 * The lowest representation an item may reach. `exact`: verbatim at every pressure (PIN, rendered in the pinned
 * ledger); otherwise the least detailed tier whose contract still carries the item; `none`: may disappear.
 */
export type Floor = "exact" | Tier | "none"

/** The floor of each kind (DESIGN.md "Floors per kind of item"). */
export const FLOOR_BY_KIND: Readonly<Record<FactKind, Floor>> = {
  constraint: "exact",
  decision: "compact",
  rejected_alternative: "compact",
  failure: "compact",
  identifier: "compact",
  location: "compact",
  open_work: "compact",
  incidental: "anchor",
}

/** The retention class of each kind by default (a config pattern or the agent can pin more). */
export const RETENTION_BY_KIND: Readonly<Record<FactKind, RetentionClass>> = {
  constraint: "PIN",
  decision: "COMPRESSIBLE",
  rejected_alternative: "COMPRESSIBLE",
  failure: "COMPRESSIBLE",
  identifier: "COMPRESSIBLE",
  location: "COMPRESSIBLE",
  open_work: "COMPRESSIBLE",
  incidental: "DISCARDABLE",
}

/** What each tier must carry (stored with every representation). */
export const SURVIVAL_CONTRACTS: Readonly<Record<Tier, string>> = {
  full:
    "the episode as the model saw it: user and assistant text with code blocks, reasoning, attached files, every tool " +
    "call with its input and its output or error (landed drops and pruned outputs as their markers; a part over " +
    "16,000 characters as its head and tail)",
  dense:
    "no raw tool output and no user words (pinned); the assistant's narrative (bounded), decisions with rationale, rejected alternatives with reasons, failures with the command, the " +
    "error line and its cause, identifiers, locations with line numbers, open work, outcome; and the facts of tool " +
    "output and attachments: error blocks, lines of read, fetched or attached documents that state rules, defaults, " +
    "limits, versions and decisions, result summaries, ids a tool returned, every edit's paths with added lines, " +
    "the assistant's code blocks (all bounded)",
  compact:
    "decisions with rationale, rejected alternatives with reasons, failures (error line), identifiers (paths, " +
    "versions, commands, config values, hashes), locations without line numbers, open work, outcome",
  anchor:
    "episode id, outcome, the critical invariant, entity names and the source range; nothing that pretends to more",
}

/** Where a fact came from: tags and message ids of the raw transcript. */
export type SourceRefs = { tags: number[]; messageIds: string[] }

/** One extracted fact. */
export type Fact = {
  kind: FactKind
  text: string
  retention: RetentionClass
  floor: Floor
  source: SourceRefs
}
