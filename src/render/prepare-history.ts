import { compartmentDisplayId } from "../historian/compartment-id.js"
import { composeHistory, pinSearch, type EpisodeMemo, type OmittedEpisodes, type RenderedCompartment } from "../historian/compose-history.js"
import type { Tier } from "../historian/fidelity-types.js"
import { episodePinTokens, pinLine, splitLedger, type PinnedFact } from "../historian/pinned-ledger.js"
import type { LiveView } from "../session/live-view.js"
import type { MessageMemo } from "../session/message-memo.js"
import type { ReadyHistory } from "../session/session-state.js"
import type { HostMessage } from "../transcript/host-message.js"
import { relevanceOf } from "./episode-relevance.js"
import type { HistoryCaches } from "./history-caches.js"
import { historyReport, type HistoryReport } from "./history-report.js"
import { RECALL_BUDGET_SHARE, RECALL_TAIL_CHARS, recallByReference, referenceTail } from "./recall-by-reference.js"
import { recalledSection, type RecalledLine } from "../historian/recalled-lines.js"
import { selectTiers, type SelectableCompartment, type SelectionPolicy, type TierChoice } from "./select-tiers.js"

/**
 * What the Lab tells the planner (and nothing else ever does): the exact strings still to be needed from now on,
 * and those needed within the next few turns (an episode about to become relevant again).
 */
export type SelectionGuide = {
  needed(): readonly string[]
  neededSoon(): readonly string[]
}

/**
 * What selection reads of a compartment that never changes with it: its tiers (in the order their representations
 * were stored), their tokens, its floor and the identifiers relevance looks for; `text` gives a tier's text.
 */
export type CompartmentBasis = {
  tiers: readonly Tier[]
  tokens: Partial<Record<Tier, number>>
  floor: Tier
  identifiers: readonly string[]
  text(tier: Tier): string | undefined
}

/** A compartment as the history reads it: where it sits in the session, whether it is folded, and its basis. */
export type HistoryCompartment = {
  id: string
  seq: number
  firstTag: number | null
  lastTag: number | null
  lastMessageSeq: number
  status: "closed" | "folded"
  basis: CompartmentBasis
}

/** The applied selection: each compartment's applied tier (or omission), and those where floors yielded. */
export type AppliedSelections = { current: ReadonlyMap<string, Tier | "omitted">; yielded: ReadonlySet<string> }

/** A pin with the compartment that holds it (where the full ledger condenses it), oldest first. */
export type HistoryPin = PinnedFact & { compartmentId: string }

/** The budgets of one preparation (see `HistoryPlanner.prepare`). */
export type HistoryBudgets = {
  budgetTokens: number
  roomTokens?: number
  ceilingTokens?: number
  overflowTokens?: number
  pinBudgetTokens: number
}

/** A prepared history: the text an execute pass would fold in, each compartment's choice, and its report. */
export type PreparedHistory = { ready: ReadyHistory; choices: TierChoice[]; report: HistoryReport }

/**
 * The history an execute pass would fold in: a tier per compartment within the budgets (`selectTiers`), the pinned
 * ledger split between its section and the episodes, the working set, composed; null when it would change nothing
 * (every compartment folded already and no applied tier switches). Reads only its inputs; `caches` keeps what the
 * last preparation of the session made.
 */
export function prepareHistory(options: {
  compartments: readonly HistoryCompartment[]
  selections: AppliedSelections
  pins: readonly HistoryPin[]
  view: LiveView
  messages: readonly HostMessage[]
  memo: MessageMemo
  budgets: HistoryBudgets
  policy: SelectionPolicy
  expanded: ReadonlySet<string>
  guide: SelectionGuide | null
  /** Bring back source lines of condensed episodes that the recent conversation names again (`recallByReference`). */
  recall: boolean
  caches: HistoryCaches
}): PreparedHistory | null {
  const { compartments: known, selections, budgets, policy, guide, caches } = options
  const last = known[known.length - 1]
  if (last === undefined) return null
  const relevance = relevanceOf(
    known.map((compartment) => ({ id: compartment.id, identifiers: compartment.basis.identifiers })),
    options.view,
    options.expanded,
  )
  const ledger = splitLedger({ pins: options.pins, budgetTokens: budgets.pinBudgetTokens, count: caches.countOnce })
  const episodePins = new Map<string, PinnedFact[]>()
  for (const pin of ledger.condensed) episodePins.set(pin.compartmentId, [...(episodePins.get(pin.compartmentId) ?? []), pin])
  const selectable = known.map((compartment): SelectableCompartment => {
    const pins = episodePins.get(compartment.id) ?? NO_PINS
    const basis = compartment.basis
    // A condensed pin is in every tier of its episode.
    const tiers = pins.length === 0 ? basis.tokens : withPinTokens(basis, pins, caches)
    const guided = guide ? guidedBy(guide, basis, pins) : null
    return {
      id: compartment.id,
      tiers,
      floor: basis.floor,
      relevance: guided?.soon ? 1 : (relevance.get(compartment.id) ?? 0),
      current: selections.current.get(compartment.id) ?? null,
      yielded: selections.yielded.has(compartment.id),
      holdsPins: pins.length > 0,
      ...(guided ? { carriesNeeds: guided.carriesNeeds } : {}),
    }
  })
  const workingSet = caches.workingSetFor(options.messages, options.memo)
  caches.ledgerSearch = pinSearch(ledger.ledger, caches.ledgerSearch)
  const search = caches.ledgerSearch
  const compose = (rendered: readonly RenderedCompartment[], omitted: OmittedEpisodes | null, memo?: EpisodeMemo, recalled?: readonly RecalledLine[]): string =>
    composeHistory({
      workingSet,
      pins: ledger.ledger,
      condensedPins: ledger.condensed.length,
      compartments: rendered,
      omitted,
      pinSearch: search,
      ...(memo ? { memo } : {}),
      ...(recalled ? { recalled } : {}),
    })
  const frameOf = (omitted: OmittedEpisodes | null): number => caches.frameCounter.count(compose([], omitted))
  const frame = budgets.roomTokens === undefined ? 0 : frameOf(null)
  const budgetTokens = Math.max(budgets.budgetTokens, Math.round((budgets.roomTokens ?? 0) - frame))
  // The ceiling keeps room for the line about omitted episodes, in its longest form.
  const omittedLine = budgets.ceilingTokens === undefined ? 0 : frameOf(widestOmitted(known))
  const ceiling =
    budgets.ceilingTokens === undefined
      ? {}
      : {
          ceilingTokens: Math.max(budgetTokens, budgets.ceilingTokens - omittedLine),
          ...(budgets.overflowTokens === undefined ? {} : { overflowTokens: Math.max(budgetTokens, budgets.overflowTokens - omittedLine) }),
        }
  const choices = selectTiers({ compartments: selectable, budgetTokens, ...ceiling, policy })
  const unfolded = known.filter((compartment) => compartment.status !== "folded").length
  const current = selections.current
  const switches = choices.filter((choice) => current.has(choice.id) && current.get(choice.id) !== choice.tier).length
  if (unfolded === 0 && switches === 0) return null

  const rendered: RenderedCompartment[] = []
  choices.forEach((choice, index) => {
    const compartment = known[index] as HistoryCompartment
    if (choice.tier === "omitted") return
    const text = compartment.basis.text(choice.tier)
    const pins = episodePins.get(compartment.id) ?? NO_PINS
    if (text) rendered.push({ id: compartment.id, tier: choice.tier, text, pins })
  })
  // The truncation baseline omits without saying so (as it always did); the default says what it left out.
  const omitted = policy === "default" ? omittedEpisodes(known, choices) : null
  const recalled = options.recall ? recallFor(known, choices, selectable, budgetTokens, options.view, caches) : []
  const text = compose(rendered, omitted, caches.composedEpisodes, recalled)
  const tokens = caches.historyCounter.count(text)
  const report = historyReport({
    displayIds: known.map(displayId),
    choices,
    switches,
    historyTokens: tokens,
    budgetTokens,
    pinTokens: ledger.tokens,
    condensed: ledger.condensed,
    recalled: { lines: recalled.length, tokens: recalled.length === 0 ? 0 : caches.count(recalledSection(recalled).join("\n")) },
  })
  return { ready: { foldThroughSeq: last.lastMessageSeq, text, tokens }, choices, report }
}

const NO_PINS: readonly PinnedFact[] = []

/**
 * The lines recall by reference brings back, within what the chosen tiers left of the compartments' budget (at most
 * RECALL_BUDGET_SHARE of it): recall never takes room from a tier.
 */
function recallFor(
  known: readonly HistoryCompartment[],
  choices: readonly TierChoice[],
  selectable: readonly SelectableCompartment[],
  budgetTokens: number,
  view: LiveView,
  caches: HistoryCaches,
): RecalledLine[] {
  let used = 0
  choices.forEach((choice, index) => {
    if (choice.tier !== "omitted") used += selectable[index]?.tiers[choice.tier] ?? 0
  })
  const room = Math.min(budgetTokens - used, Math.floor(budgetTokens * RECALL_BUDGET_SHARE))
  if (room <= 0) return []
  const episodes = known.map((compartment, index) => {
    const tier = choices[index]?.tier ?? "omitted"
    const basis = compartment.basis
    return {
      displayId: displayId(compartment),
      tier,
      source: () => (basis.tiers.includes("full") ? basis.text("full") : undefined),
      shown: () => (tier === "omitted" ? "" : (basis.text(tier) ?? "")),
      key: basis,
    }
  })
  const tail = referenceTail(view.messages.slice(view.protectedFrom), RECALL_TAIL_CHARS)
  return recallByReference({ episodes, tail, budgetTokens: room, count: caches.count, filters: caches.recallFilters })
}

/**
 * The tokens of each tier with the condensed pins it does not say already (they are rendered under it), kept per
 * compartment while its pins are the same: an episode's pins rarely change, and its tier texts are then not read.
 */
function withPinTokens(basis: CompartmentBasis, pins: readonly PinnedFact[], caches: HistoryCaches): Partial<Record<Tier, number>> {
  const key = pins.map(pinLine).join("\n")
  const known = caches.pinnedTiers.get(basis)
  if (known !== undefined && known.key === key) return known.tiers
  const tiers: Partial<Record<Tier, number>> = {}
  for (const tier of basis.tiers) tiers[tier] = (basis.tokens[tier] ?? 0) + episodePinTokens(basis.text(tier) ?? "", pins, caches.countOnce)
  caches.pinnedTiers.set(basis, { key, tiers })
  return tiers
}

/**
 * The Lab's guide on one compartment: whether what is about to be needed is in it, and which tiers carry what will be
 * needed (the FULL tier is the episode's whole source; a condensed pin is in every tier).
 */
function guidedBy(guide: SelectionGuide, basis: CompartmentBasis, pins: readonly PinnedFact[]): { soon: boolean; carriesNeeds: (tier: Tier) => boolean } {
  const full = basis.tiers.map((tier) => basis.text(tier) ?? "").join("\n")
  const pinned = (text: string): boolean => pins.some((pin) => pin.text.includes(text))
  const neededHere = guide.needed().filter((text) => full.includes(text) || pinned(text))
  return {
    soon: guide.neededSoon().some((text) => full.includes(text)),
    carriesNeeds: (tier) => neededHere.every((text) => (basis.text(tier) ?? "").includes(text) || pinned(text)),
  }
}

/** The omitted compartments (the default policy leaves out only the oldest) as one range, or null when none is. */
function omittedEpisodes(compartments: readonly HistoryCompartment[], choices: readonly TierChoice[]): OmittedEpisodes | null {
  const omitted = compartments.filter((_, index) => choices[index]?.tier === "omitted")
  const first = omitted[0]
  const last = omitted[omitted.length - 1]
  if (!first || !last) return null
  const range = { first: displayId(first), last: displayId(last), firstTag: first.firstTag, lastTag: last.lastTag }
  return { count: omitted.length, ...range }
}

/** The longest line about omitted episodes these compartments could need. */
function widestOmitted(compartments: readonly HistoryCompartment[]): OmittedEpisodes {
  const last = compartments[compartments.length - 1]
  const id = last ? displayId(last) : "c1"
  const tag = last?.lastTag ?? 1
  return { count: compartments.length, first: id, last: id, firstTag: tag, lastTag: tag }
}

function displayId(compartment: HistoryCompartment): string {
  return compartmentDisplayId(compartment.seq)
}
