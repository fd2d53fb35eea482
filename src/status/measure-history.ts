import { HISTORY_CLOSE, omittedEpisodesOf, WORKING_SET_HEADING } from "../historian/compose-history.js"
import { RECALLED_HEADING } from "../historian/recalled-lines.js"
import { condensedPinsOf, PINNED_HEADING } from "../historian/pinned-ledger.js"
import { TIERS, type Tier } from "../historian/fidelity-types.js"

/** What the applied history (the message that replaces folded conversation) is made of, for the status report. */
export type HistoryMeasure = {
  /** The history message's stored count. */
  tokens: number
  /**
   * The pinned ledger's share of it. Estimated: no count of the ledger alone is stored, so what the compartments
   * leave of the count is split between the ledger and the rest (working set, headings) by their characters.
   */
  ledgerTokens: number
  /** Entries of the pinned ledger: the compartments' pinned facts and the agent's pins that are folded. */
  pinnedFacts: number
  /** Older pins the full ledger moved into their episodes (the ledger's own notice says how many). */
  condensedPins: number
  /** Episodes the history leaves out because even their anchors did not fit the window (its line says how many). */
  omittedEpisodes: number
  /** The compartments rendered in it, by tier (most detailed first; only tiers that have compartments). */
  tiers: { tier: Tier; compartments: number; tokens: number }[]
}

/** A folded compartment as the store has it: its current tier, its representations, its pinned facts. */
export type MeasuredCompartment = {
  tier: Tier | null
  representations: readonly { tier: Tier; strategy: string; content: string; tokens: number }[]
  pinnedFacts: readonly { text: string; tags: readonly number[] }[]
}

// The headings composeHistory writes around the pinned ledger, as they stand in the text.
const LEDGER_HEADING = `\n\n${PINNED_HEADING}\n`
const WORKING_SET = `\n\n${WORKING_SET_HEADING}`
const RECALLED = `\n\n${RECALLED_HEADING}\n`
const HISTORY_END = `\n${HISTORY_CLOSE}`

/**
 * Splits the applied history into the pinned ledger and the compartments by tier. A compartment counts at its
 * current tier when that tier's representation is in the history text (an omitted compartment keeps its last
 * selection in the store but is not rendered); its tokens are the representation's stored count, scaled by how much
 * the history left out of it or added to it (its condensed pins; `renderedBlock`). The rest of the
 * count is the ledger, the working set and the headings. Pure.
 */
export function measureHistory(options: {
  history: { text: string; tokens: number }
  compartments: readonly MeasuredCompartment[]
  /** The agent's pins (ctx_pin), by tag. */
  agentPins: readonly { tag: number; text: string }[]
}): HistoryMeasure {
  const { history } = options
  const rendered = options.compartments.flatMap((compartment) => {
    const block = renderedBlock(compartment, history.text)
    return block ? [block] : []
  })
  const ledger = ledgerText(history.text)
  const compartmentTokens = rendered.reduce((sum, entry) => sum + entry.tokens, 0)
  const restTokens = history.tokens - compartmentTokens
  const renderedChars = rendered.reduce((sum, entry) => sum + entry.block.length, 0)
  const restChars = history.text.length - renderedChars
  const ledgerTokens = restTokens > 0 && restChars > 0 ? Math.round((restTokens * ledger.length) / restChars) : 0
  return {
    tokens: history.tokens,
    ledgerTokens,
    pinnedFacts: ledgerEntries(options).filter((entry) => `${ledger}\n`.includes(`\n${entry}\n`)).length,
    condensedPins: condensedPinsOf(history.text),
    omittedEpisodes: omittedEpisodesOf(history.text),
    tiers: TIERS.flatMap((tier) => {
      const atTier = rendered.filter((entry) => entry.representation.tier === tier)
      if (atTier.length === 0) return []
      const tokens = atTier.reduce((sum, entry) => sum + entry.tokens, 0)
      return [{ tier, compartments: atTier.length, tokens }]
    }),
  }
}

/** A compartment as the history renders it: its representation, and the block of the history text it became. */
type RenderedBlock = { representation: MeasuredCompartment["representations"][number]; block: string; tokens: number }

/**
 * The representation of the compartment's current tier that the history carries (a model historian's first), found
 * by its first line (`[cN §a§–§b§]`, unique per compartment): composeHistory may leave out lines another part of the
 * history already says (an identifier listed before, an invariant the ledger holds) and adds the pins the full ledger
 * condensed into the episode, so the block can be shorter or longer than the representation. Its tokens are the
 * stored count scaled by that (an estimate when the block differs).
 */
function renderedBlock(compartment: MeasuredCompartment, text: string): RenderedBlock | null {
  if (compartment.tier === null) return null
  const candidates = compartment.representations
    .filter((representation) => representation.tier === compartment.tier && representation.content.length > 0)
    .sort((a, b) => Number(b.strategy === "source-grounded-model") - Number(a.strategy === "source-grounded-model"))
  for (const representation of candidates) {
    const firstLine = representation.content.split("\n")[0] as string
    const start = text.indexOf(`\n\n${firstLine}`)
    if (start < 0) continue
    const from = start + 2
    const next = text.indexOf("\n\n", from)
    const end = next >= 0 ? next : text.lastIndexOf(HISTORY_END)
    const block = text.slice(from, end >= from ? end : undefined)
    const scale = block.length / representation.content.length
    return { representation, block, tokens: Math.round(representation.tokens * scale) }
  }
  return null
}

/**
 * The pinned ledger section with its heading ("" when the history has none): from its heading, which follows the
 * episodes, up to the working set's heading that follows it (a pin's own text cannot end the ledger early: the
 * working set's heading is the last one in the history).
 */
function ledgerText(text: string): string {
  const start = text.indexOf(LEDGER_HEADING)
  if (start < 0) return ""
  const recalled = text.indexOf(RECALLED)
  const workingSet = text.lastIndexOf(WORKING_SET)
  const end = recalled > start ? recalled : workingSet > start ? workingSet : text.lastIndexOf(HISTORY_END)
  return end > start ? text.slice(start, end) : text.slice(start)
}

/** The ledger lines composeHistory writes for these pins: compartments' facts once per text, then the agent's. */
function ledgerEntries(options: {
  compartments: readonly MeasuredCompartment[]
  agentPins: readonly { tag: number; text: string }[]
}): string[] {
  const seen = new Set<string>()
  const entries: string[] = []
  for (const fact of options.compartments.flatMap((compartment) => compartment.pinnedFacts)) {
    if (seen.has(fact.text)) continue
    seen.add(fact.text)
    entries.push(`- ${fact.tags[0] === undefined ? "" : `§${fact.tags[0]}§ `}${fact.text}`)
  }
  for (const pin of options.agentPins) entries.push(`- §${pin.tag}§ ${pin.text}`)
  return entries
}
