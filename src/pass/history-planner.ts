/*
 * Over 300 lines: the history planner is one closure over a session's compartments, applied tiers and counts (cut,
 * prepare, write, settle and the report share that state); its pure parts (cutting, selection, the ledger, composing)
 * already live in historian/ and render/, and the planner split is open.
 */
import { compartmentDisplayId, compartmentStoreId } from "../historian/compartment-id.js"
import { extractCanonicalRecord } from "../historian/canonical-record.js"
import { compartmentFloor } from "../historian/compartment-floor.js"
import { composeHistory, episodeMemo, pinSearch, type EpisodeMemo, type OmittedEpisodes, type PinSearch, type RenderedCompartment } from "../historian/compose-history.js"
import { cutCompartments, type CutMessage } from "../historian/cut-compartments.js"
import { SURVIVAL_CONTRACTS, TIERS, type Tier } from "../historian/fidelity-types.js"
import { renderTiers } from "../historian/render-tiers.js"
import { createTailSearch } from "../historian/tail-search.js"
import {
  copyWorkingFold,
  deriveWorkingSet,
  emptyWorkingFold,
  foldWorkingFacts,
  workingFacts,
  workingSetOf,
  type WorkingFacts,
  type WorkingFold,
  type WorkingSet,
  type WorkingSetSource,
} from "../historian/working-set.js"
import type { LiveView } from "../session/live-view.js"
import { currentEntry, isCurrentList, type MessageMemo, type MessageMemoEntry } from "../session/message-memo.js"
import {
  isYieldedReason,
  OMITTED_REASON,
  selectTiers,
  YIELDED_REASON,
  type SelectableCompartment,
  type SelectionPolicy,
  type TierChoice,
} from "../render/select-tiers.js"
import {
  currentSelections,
  insertCompartment,
  listCompartments,
  markCompartmentsFolded,
  recordSelections,
  type StoredCompartment,
} from "../store/compartment-repository.js"
import { ALL_RECOGNIZERS, type Recognizers } from "../session/recognizers.js"
import type { Database } from "../store/driver.js"
import { listPins } from "../store/pin-repository.js"
import { applyPinPatterns, type PinPattern } from "../historian/pin-patterns.js"
import { episodePinTokens, splitLedger, type PinnedFact } from "../historian/pinned-ledger.js"
import { createSectionCounter } from "../tokens/section-counter.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { ReadyHistory, SessionState } from "../session/session-state.js"
import { createPinHoming, type AgentPin } from "./homed-pins.js"

/**
 * What the Lab tells the planner (and nothing else ever does): the exact strings still to be needed from now on,
 * and those needed within the next few turns (an episode about to become relevant again).
 */
export type SelectionGuide = {
  needed(): readonly string[]
  neededSoon(): readonly string[]
}

/** Recorded with every selection, so a change of the selection rules is visible in the records. */
export const POLICY_VERSION = "selection-v1"

/** What the last prepared history would apply, for reports (replay, status, the Lab). */
export type HistoryReport = {
  /** Compartment display id -> selected tier (or "omitted"). */
  tiers: Record<string, Tier | "omitted">
  /** Compartments rendered below their floor (0 for the default policy by construction). */
  floorViolations: number
  /** Compartments whose tier differs from the one applied before (new compartments do not count). */
  switches: number
  historyTokens: number
  /** What the compartments were given: `history_budget`, or more where the landing line left room. */
  budgetTokens: number
  /** Tokens of the pinned ledger's section (never more than its budget). */
  pinTokens: number
  /** Older pins the full ledger condensed into their episodes (rendered there verbatim, in every tier). */
  condensedPins: number
  /** Compartments left out because even their least detailed tiers exceeded the ceiling, and the pins they held. */
  omittedCompartments: number
  hiddenPins: number
  /** Choices of this history where floors newly yielded to the ceiling (only an emergency pass makes any). */
  newlyYielded: number
}

/**
 * The historian's side of a pass: it cuts settled conversation into compartments as soon as it is settled (`cut`:
 * their tiers are written once, from the source, by the canonical record), and, when a fold is due, prepares the
 * history an execute pass would fold in (`prepare`, which reads only): a tier per compartment within the history
 * budget, the pinned ledger and the working set. Only an execute pass applies it (`write`, then `settle`).
 */
/** What a cut reads: the pass's messages and view, and where the cut must stop besides the protected window. */
export type CutInput = {
  messages: readonly HostMessage[]
  view: LiveView
  state: SessionState
  pass: number
  now: number
  /**
   * The first message the cut leaves alone whatever the protected window says: the running turn's, where the
   * provider binds that turn's reasoning to its calls (`reasoning-rules.ts`). Absent: none.
   */
  fenceSeq?: number
  /**
   * Leave reasoning parts out of the episodes' source: the provider signs or encrypts reasoning, and its text stays
   * in the message it was made for (`reasoning-rules.ts`), never in the history message.
   */
  withoutReasoning?: boolean
}

export type HistoryPlanner = {
  /**
   * Cuts the conversation settled since the last cut into compartments and stores their tiers (the canonical record,
   * from the source), in a transaction of its own: a pass's only write besides ingest and its commit. With
   * `deferCuts` the tiers are made and stored later, from the messages as this pass read them, when the planner is
   * next asked about its compartments or told to (`settleCuts`): the same compartments, off the request path.
   */
  cut(input: CutInput): void
  /**
   * Stores the compartments cut but not stored yet (`deferCuts`), oldest first: all of them, or at most `limit` (a
   * slice, so a long owed cut leaves the event loop free between slices). True while some are still owed.
   */
  settleCuts(limit?: number): boolean
  /** True while compartments cut are not stored yet (`deferCuts`). */
  owesCuts(): boolean
  prepare(input: {
    messages: readonly HostMessage[]
    view: LiveView
    state: SessionState
    pass: number
    now: number
    /**
     * Prepare a fold: usage is at or above the execute threshold, or the cost rule may find one below it that pays
     * for its prefix break. Otherwise history does not change (null).
     */
    fold: boolean
    /** The least the compartments may use (`history_budget`). */
    budgetTokens: number
    /**
     * The room below the landing line the pass leaves for the whole history message (pins and working set included);
     * the compartments get what is left of it when that is more than `budgetTokens`. Absent: `budgetTokens` alone.
     */
    roomTokens?: number
    /**
     * The room below the line history must never push the prompt over (the drain's exit line): past it floors yield,
     * oldest first (`selectTiers`). Absent: no limit.
     */
    ceilingTokens?: number
    /** The room below the line past which the prompt overflows: floors yield only when held they would cross it. */
    overflowTokens?: number
    pinBudgetTokens: number
  }): ReadyHistory | null
  /**
   * Writes what the execute pass applied, inside the pass's commit transaction: the selections (with the pass's
   * divergence) and the folded compartments. The planner's memory follows only at `settle`, once that committed.
   */
  write(input: CommitInput): void
  /** Makes the prepared history the applied one in memory, after `write`'s transaction committed. */
  settle(): void
  /** `write` in a transaction of its own, then `settle`. */
  commit(input: CommitInput): void
  /** What the history currently applied looks like (null before the first fold). */
  report(): HistoryReport | null
  /** Tier switches applied so far (a compartment changing tier; new compartments do not count). */
  switches(): number
  /** Forgets the cached compartments (a model historian stored new tiers); the next prepare reloads them. */
  invalidate(): void
  /** What a fold would free at most, from the compartments cut so far and not folded (`FoldGains`). */
  foldGains(): FoldGains
}

/**
 * Bounds on what a fold below the threshold would free, from stored counts only (no selection): `quiet`, with room
 * (new episodes kept at FULL), their source's tokens less their FULL tier's; `budgeted`, held to the history budget
 * (new episodes below FULL), their source's tokens less their anchors'.
 */
export type FoldGains = { quiet: number; budgeted: number }

/** The gains of a session without a planner. */
export const NO_FOLD_GAINS: FoldGains = { quiet: 0, budgeted: 0 }

export type CommitInput = { pass: number; passId: number | null; pressure: number; firstDivergence: number | null; radius: number | null; now: number }

/** Creates the planner of one session. */
export function createHistoryPlanner(options: {
  db: Database
  sessionId: string
  counter: TokenCounter
  policy: SelectionPolicy
  /** Facts these match are pinned (config `pins`). */
  pinPatterns?: readonly PinPattern[]
  /** Compartments the agent expanded (ctx_expand): relevant again. */
  expanded?: ReadonlySet<string>
  /** The Lab only: what will be needed (for the oracle), or what is about to be needed again (promotion). */
  guide?: SelectionGuide | null
  /** The Lab only: the named rules in use (`lab --without`, `lab --folds`); all by default. */
  recognizers?: Recognizers
  /** Store a cut's compartments when they are next read (`settleCuts`), not at once: the shells settle them after the pass. */
  deferCuts?: boolean
}): HistoryPlanner {
  const { db, sessionId, counter, policy } = options
  const pinPatterns = options.pinPatterns ?? []
  let compartments: StoredCompartment[] | null = null
  let current = new Map<string, Tier | "omitted">()
  // Compartments whose applied choice is where floors yielded to the ceiling (kept until promotion has room).
  let yielded = new Set<string>()
  // What prepare would apply: its choices, the changes of applied tiers among them, the compartments it folds.
  let pending: { choices: TierChoice[]; changes: TierChoice[]; fold: string[]; report: HistoryReport } | null = null
  let lastReport: HistoryReport | null = null
  let gainsMemo: { of: readonly StoredCompartment[]; length: number; gains: FoldGains } | null = null
  let totalSwitches = 0
  // Pin lines recur on every pressured pass (a long session holds thousands): each is counted once.
  const counted = new Map<string, number>()
  // The composed history changes by a few episodes per fold: its unchanged episodes are not counted again.
  const historyCounter = createSectionCounter(counter)
  // The history's frame (ledger and working set, without episodes) is counted twice a fold, mostly the same each time.
  const frameCounter = createSectionCounter(counter)
  // Which invariant lines the ledger already says, while its texts stay the same (one search per line, not per pass).
  let ledgerSearch: PinSearch | undefined
  // The compartments' pins, read from each compartment's facts once.
  const homePins = createPinHoming()
  // The last composed history's episodes: a fold changes a few, and the leading ones that stayed are not composed again.
  const composedEpisodes = episodeMemo()
  const countOnce = (text: string): number => {
    const known = counted.get(text)
    if (known !== undefined) return known
    const tokens = counter.count(text)
    counted.set(text, tokens)
    return tokens
  }

  // Each message's working facts, kept while its memo entry stands for it (the host sends new objects every call).
  const workingFactsOf = new WeakMap<MessageMemoEntry, WorkingFacts>()
  const memoizedWorkingFacts = (memo: MessageMemo): WorkingSetSource => (message) => {
    const entry = currentEntry(memo, message)
    if (entry === null) return workingFacts(message)
    const known = workingFactsOf.get(entry)
    if (known !== undefined) return known
    const facts = workingFacts(message)
    workingFactsOf.set(entry, facts)
    return facts
  }

  // The working set's fold over the last prepared list, with that list's memo entries: a list that starts with the
  // same entries folds only the messages after them.
  let workingFold: { entries: readonly MessageMemoEntry[]; fold: WorkingFold } | null = null
  const workingSetFor = (messages: readonly HostMessage[], memo: MessageMemo): WorkingSet => {
    const factsOf = memoizedWorkingFacts(memo)
    const list = memo.list
    // The memo's entries stand for these messages only when they are its current list.
    if (!isCurrentList(memo, messages)) {
      workingFold = null
      return deriveWorkingSet(messages, factsOf)
    }
    const last = workingFold
    const resumes = last !== null && last.entries.length <= list.length && last.entries.every((entry, index) => entry === list[index])
    const fold = resumes ? copyWorkingFold(last.fold) : emptyWorkingFold()
    for (let index = resumes ? last.entries.length : 0; index < messages.length; index += 1) foldWorkingFacts(fold, factsOf(messages[index] as HostMessage))
    workingFold = { entries: list, fold }
    return workingSetOf(fold)
  }

  // The cuts not written yet (`deferCuts`), oldest first: written before anything reads the compartments.
  let owing: OwedCut[] = []
  const load = (): StoredCompartment[] => {
    const known = stored()
    if (owing.length > 0) settle(known, Number.POSITIVE_INFINITY)
    return known
  }
  /**
   * Writes up to `limit` owed episodes after the compartments `known`, oldest first; what is left of the oldest owed
   * cut stays first. A write that fails forgets everything owed: the next cut takes up the same messages again.
   */
  const settle = (known: StoredCompartment[], limit: number): void => {
    let left = limit
    while (left > 0 && owing.length > 0) {
      const owed = owing[0] as OwedCut
      const slice = owed.episodes.slice(0, left)
      const rest = owed.episodes.slice(left)
      if (rest.length > 0) owing[0] = { ...owed, episodes: rest }
      else owing.shift()
      try {
        writeCut({ ...owed, episodes: slice }, known)
      } catch (error) {
        owing = []
        throw error
      }
      left -= slice.length
    }
  }
  const stored = (): StoredCompartment[] => {
    if (compartments) return compartments
    compartments = listCompartments(db, sessionId)
    const selections = currentSelections(db, sessionId)
    current = new Map([...selections].map(([id, selection]) => [id, selection.tier]))
    yielded = new Set([...selections].filter(([, selection]) => isYieldedReason(selection.reason)).map(([id]) => id))
    return compartments
  }
  // The truncation baseline's omissions are not applied tiers (it recomputes them every time); the default
  // policy's are, so that a later pass keeps them until there is room.
  const appliedChanges = (choices: readonly TierChoice[]): TierChoice[] =>
    choices.filter((choice) => current.get(choice.id) !== choice.tier && (choice.tier !== "omitted" || choice.reason === OMITTED_REASON))

  const planner: HistoryPlanner = {
    foldGains() {
      const known = load()
      // The bounds change only with the list: a cut appends to it (the compartments it had keep their bounds), a fold
      // or a reload replaces it.
      const from = gainsMemo !== null && gainsMemo.of === known && gainsMemo.length <= known.length ? gainsMemo.length : 0
      if (gainsMemo !== null && from === known.length) return gainsMemo.gains
      const gains: FoldGains = from > 0 && gainsMemo !== null ? { ...gainsMemo.gains } : { quiet: 0, budgeted: 0 }
      for (let index = from; index < known.length; index += 1) {
        const compartment = known[index] as StoredCompartment
        if (compartment.status !== "closed") continue
        const tokensAt = (tier: Tier): number | undefined =>
          compartment.representations.find((representation) => representation.tier === tier)?.tokens
        gains.quiet += Math.max(0, compartment.sourceTokens - (tokensAt("full") ?? compartment.sourceTokens))
        gains.budgeted += Math.max(0, compartment.sourceTokens - (tokensAt("anchor") ?? compartment.sourceTokens))
      }
      gainsMemo = { of: known, length: known.length, gains }
      return gains
    },
    cut(input) {
      const known = load()
      const owed = owedCut({ ...input, known })
      if (owed === null) return
      if (options.deferCuts === true) owing.push(owed)
      else writeCut(owed, known)
    },
    owesCuts: () => owing.length > 0,
    settleCuts(limit = Number.POSITIVE_INFINITY) {
      if (owing.length === 0) return false
      settle(stored(), limit)
      return owing.length > 0
    },
    prepare(input) {
      pending = null
      // Without a fold the compartments are not read (a cut this pass owes stays owed).
      if (!input.fold) return null
      const known = load()
      if (known.length === 0) return null
      const relevance = relevanceOf(known, input.view, options.expanded ?? new Set())
      const guide = options.guide ?? null
      const foldThrough = known[known.length - 1]?.lastMessageSeq ?? 0
      const ledger = splitLedger({
        pins: homePins(known, agentPins(db, input.state, foldThrough)),
        budgetTokens: input.pinBudgetTokens,
        count: countOnce,
      })
      const episodePins = new Map<string, PinnedFact[]>()
      for (const pin of ledger.condensed) episodePins.set(pin.compartmentId, [...(episodePins.get(pin.compartmentId) ?? []), pin])
      const selectable = known.map((compartment): SelectableCompartment => {
        const pins = episodePins.get(compartment.id) ?? NO_PINS
        const basis = basisOf(compartment)
        // A condensed pin is in every tier of its episode.
        const tiers = pins.length === 0 ? basis.tokens : withPinTokens(basis, pins, countOnce)
        const guided = guide ? guidedBy(guide, basis, pins) : null
        return {
          id: compartment.id,
          tiers,
          floor: basis.floor,
          relevance: guided?.soon ? 1 : (relevance.get(compartment.id) ?? 0),
          current: current.get(compartment.id) ?? null,
          yielded: yielded.has(compartment.id),
          holdsPins: pins.length > 0,
          ...(guided ? { carriesNeeds: guided.carriesNeeds } : {}),
        }
      })
      const workingSet = workingSetFor(input.messages, input.state.messageMemo)
      ledgerSearch = pinSearch(ledger.ledger, ledgerSearch)
      const search = ledgerSearch
      const compose = (rendered: readonly RenderedCompartment[], omitted: OmittedEpisodes | null, memo?: EpisodeMemo): string =>
        composeHistory({ workingSet, pins: ledger.ledger, condensedPins: ledger.condensed.length, compartments: rendered, omitted, pinSearch: search, ...(memo ? { memo } : {}) })
      const frameOf = (omitted: OmittedEpisodes | null): number => frameCounter.count(compose([], omitted))
      const frame = input.roomTokens === undefined ? 0 : frameOf(null)
      const budgetTokens = Math.max(input.budgetTokens, Math.round((input.roomTokens ?? 0) - frame))
      // The ceiling keeps room for the line about omitted episodes, in its longest form.
      const omittedLine = input.ceilingTokens === undefined ? 0 : frameOf(widestOmitted(known))
      const ceiling =
        input.ceilingTokens === undefined
          ? {}
          : {
              ceilingTokens: Math.max(budgetTokens, input.ceilingTokens - omittedLine),
              ...(input.overflowTokens === undefined ? {} : { overflowTokens: Math.max(budgetTokens, input.overflowTokens - omittedLine) }),
            }
      const choices = selectTiers({ compartments: selectable, budgetTokens, ...ceiling, policy })
      const unfolded = known.filter((compartment) => compartment.status !== "folded").map((compartment) => compartment.id)
      const switches = choices.filter((choice) => current.has(choice.id) && current.get(choice.id) !== choice.tier).length
      if (unfolded.length === 0 && switches === 0) return null

      const rendered: RenderedCompartment[] = []
      choices.forEach((choice, index) => {
        const compartment = known[index] as StoredCompartment
        if (choice.tier === "omitted") return
        const text = basisOf(compartment).texts.get(choice.tier)
        const pins = episodePins.get(compartment.id) ?? NO_PINS
        if (text) rendered.push({ id: compartment.id, tier: choice.tier, text, pins })
      })
      // The truncation baseline omits without saying so (as it always did); the default says what it left out.
      const omitted = policy === "default" ? omittedEpisodes(known, choices) : null
      const text = compose(rendered, omitted, composedEpisodes)
      const tokens = historyCounter.count(text)
      const omittedIds = new Set(choices.filter((choice) => choice.tier === "omitted").map((choice) => choice.id))
      const report: HistoryReport = {
        tiers: Object.fromEntries(choices.map((choice, index) => [displayId(known[index] as StoredCompartment), choice.tier])),
        floorViolations: choices.filter((choice) => choice.belowFloor).length,
        switches,
        historyTokens: tokens,
        budgetTokens,
        pinTokens: ledger.tokens,
        condensedPins: ledger.condensed.length,
        omittedCompartments: omittedIds.size,
        hiddenPins: ledger.condensed.filter((pin) => omittedIds.has(pin.compartmentId)).length,
        newlyYielded: choices.filter((choice) => choice.reason === YIELDED_REASON || choice.reason === OMITTED_REASON).length,
      }
      pending = { choices, changes: appliedChanges(choices), fold: unfolded, report }
      const last = known[known.length - 1] as StoredCompartment
      return { foldThroughSeq: last.lastMessageSeq, text, tokens }
    },

    write(input) {
      if (!pending || !compartments) return
      recordSelections(
        db,
        pending.changes.map((choice) => ({
          sessionId,
          passId: input.passId,
          compartmentId: choice.id,
          tier: choice.tier,
          previousTier: current.get(choice.id) ?? null,
          reason: choice.reason,
          pressure: input.pressure,
          firstDivergence: input.firstDivergence,
          mutationRadius: input.radius,
          policyVersion: POLICY_VERSION,
          appliedAt: input.now,
        })),
      )
      markCompartmentsFolded(db, pending.fold, input.pass)
    },

    settle() {
      if (!pending || !compartments) return
      const known = compartments
      for (const choice of pending.changes) {
        current.set(choice.id, choice.tier)
        if (isYieldedReason(choice.reason)) yielded.add(choice.id)
        else yielded.delete(choice.id)
      }
      // A truncated compartment has no applied tier any more: staying omitted is no switch at the next pass.
      for (const choice of pending.choices) {
        if (choice.tier === "omitted" && choice.reason !== OMITTED_REASON && !yielded.has(choice.id)) current.delete(choice.id)
      }
      const folded = new Set(pending.fold)
      compartments = known.map((compartment) => (folded.has(compartment.id) ? { ...compartment, status: "folded" } : compartment))
      lastReport = pending.report
      totalSwitches += pending.report.switches
      pending = null
    },

    commit(input) {
      db.transaction(() => planner.write(input))
      planner.settle()
    },

    report: () => lastReport,
    switches: () => totalSwitches,
    invalidate() {
      compartments = null
    },
  }
  return planner

  /**
   * What the newly settled messages owe: their cuts into compartments, with what writing their tiers reads taken now
   * (`OwedCut`); null when nothing settled since the last cut.
   */
  function owedCut(input: CutInput & { known: StoredCompartment[] }): OwedCut | null {
    const { view, state, known } = input
    const protectedFromSeq = view.protectedFromSeq
    const newest = view.messages[view.messages.length - 1]
    const newestSeq = newest ? (state.messageSeq.get(newest.info.id) ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY
    const coveredThroughSeq = Math.max(known[known.length - 1]?.lastMessageSeq ?? 0, state.applied.history?.foldedThroughSeq ?? 0)
    // Never the newest message: the prompt keeps its tail whatever the protected window says.
    const settledBefore = Math.min(protectedFromSeq, newestSeq, input.fenceSeq ?? Number.POSITIVE_INFINITY)
    // Only what follows the covered conversation can be cut (cutCompartments reads nothing before it), and of the
    // protected messages only the first: it says whether the last settled turn has ended.
    const uncovered: HostMessage[] = []
    let settled = 0
    let protectedSeen = false
    for (let index = 0; index < view.messages.length; index += 1) {
      const message = view.messages[index] as HostMessage
      // The view's facts hold each live message's sequence number (0: not stored).
      const seq = view.facts[index]?.seq ?? 0
      if (seq <= coveredThroughSeq) continue
      if (seq < settledBefore) settled += 1
      else if (protectedSeen) continue
      else protectedSeen = true
      uncovered.push(message)
    }
    if (settled === 0) return null
    const cutMessages: CutMessage[] = uncovered.map((message) => ({
      id: message.info.id,
      seq: state.messageSeq.get(message.info.id) ?? 0,
      role: message.info.role,
      tokens: message.parts.reduce((sum, part) => {
        const stored = state.parts.get(part.id)
        return sum + (stored ? stored.tokens + stored.callTokens : 0)
      }, 0),
      authoredUser: message.info.role === "user" && message.parts.some((part) => part.type === "text" && !part.synthetic && !part.ignored),
    }))
    const cuts = cutCompartments({ messages: cutMessages, coveredThroughSeq, protectedFromSeq: settledBefore })
    if (cuts.length === 0) return null
    // A cut names only uncovered messages. Each is kept as it reads now: the shell writes the pass's edits (tags,
    // markers) into the host's objects once the pass returns, and the tiers are made from the source.
    const byId = new Map(uncovered.map((message) => [message.info.id, message]))
    const tags = new Map<string, { tag: number; dropped: boolean }>()
    const episodes = cuts.map((cut) => ({
      cut,
      messages: cut.messageIds.flatMap((id) => {
        const message = byId.get(id)
        if (!message) return []
        for (const part of message.parts) {
          const tag = state.tagsByPart.get(part.id)
          if (tag) tags.set(part.id, { tag: tag.tag, dropped: tag.status === "dropped" })
        }
        return [sourceCopy(message, input.withoutReasoning === true)]
      }),
    }))
    return { episodes, tags, pass: input.pass, now: input.now }
  }

  /** Writes an owed cut's compartments and their canonical tiers, in a transaction, after the compartments `known`. */
  function writeCut(owed: OwedCut, known: StoredCompartment[]): void {
    // A failed write leaves no compartment it began with in memory: they are read again from the store.
    try {
      writeCutTransaction(owed, known)
    } catch (error) {
      compartments = null
      throw error
    }
  }

  function writeCutTransaction(owed: OwedCut, known: StoredCompartment[]): void {
    db.transaction(() => {
      for (const { cut, messages } of owed.episodes) {
        const seq = (known[known.length - 1]?.seq ?? 0) + 1
        const display = compartmentDisplayId(seq)
        const extracted = extractCanonicalRecord({
          compartmentId: display,
          messages,
          tagOf: (partId) => owed.tags.get(partId)?.tag ?? null,
          recognizers: options.recognizers ?? ALL_RECOGNIZERS,
          droppedOf: (partId) => owed.tags.get(partId)?.dropped === true,
        })
        const record = { ...extracted, facts: applyPinPatterns(extracted.facts, pinPatterns) }
        const tiers = renderTiers(record)
        const representations = TIERS.flatMap((tier) => {
          const content = tiers[tier]
          if (content === null) return []
          return [
            {
              tier,
              strategy: "canonical-record" as const,
              content,
              tokens: counter.count(content),
              generatorModel: null,
              promptVersion: null,
              survivalContract: SURVIVAL_CONTRACTS[tier],
              sourceRefs: { tags: record.source.tags, messageIds: record.source.messageIds },
            },
          ]
        })
        const compartment = {
          id: compartmentStoreId(sessionId, seq),
          sessionId,
          seq,
          firstMessageSeq: cut.firstSeq,
          lastMessageSeq: cut.lastSeq,
          firstTag: record.source.firstTag,
          lastTag: record.source.lastTag,
          outcome: record.outcome,
          sourceTokens: cut.tokens,
          representations,
          facts: record.facts,
          createdPass: owed.pass,
          createdAt: owed.now,
        }
        insertCompartment(db, compartment)
        known.push({ ...compartment, status: "closed" })
      }
    })
  }
}

/**
 * A cut the planner owes its store (`HistoryPlanner.cut` with `deferCuts`): the episodes cut, each with copies of its
 * messages as the pass read them, their parts' tags and whether each was dropped then, and the pass that cut them.
 */
type OwedCut = {
  episodes: { cut: ReturnType<typeof cutCompartments>[number]; messages: HostMessage[] }[]
  tags: ReadonlyMap<string, { tag: number; dropped: boolean }>
  pass: number
  now: number
}

/**
 * A message as it reads now, apart from the host's objects: its parts copied one level (a tool's state two), which is
 * where the shell writes edits (a text, a tool's output or error; a tool's input it replaces, never mutates).
 */
function sourceCopy(message: HostMessage, withoutReasoning: boolean): HostMessage {
  const kept = withoutReasoning ? message.parts.filter((part) => part.type !== "reasoning") : message.parts
  const parts = kept.map((part) => (part.type === "tool" ? { ...part, state: { ...part.state } } : { ...part }))
  return { info: message.info, parts } as HostMessage
}

/**
 * The representations selection uses: a model historian's dense, compact and anchor when it wrote a complete set,
 * else the canonical record's; FULL is always the canonical one, the episode's source itself.
 */
function preferred(compartment: StoredCompartment): StoredCompartment["representations"] {
  const canonical = compartment.representations.filter((representation) => representation.strategy === "canonical-record")
  const model = compartment.representations.filter((representation) => representation.strategy === "source-grounded-model")
  if (!model.some((representation) => representation.tier === "anchor")) return canonical
  return [...canonical.filter((representation) => representation.tier === "full"), ...model.filter((representation) => representation.tier !== "full")]
}

/** What selection reads of a compartment that never changes with it: its preferred tiers' texts and tokens, its floor. */
type CompartmentBasis = { texts: ReadonlyMap<Tier, string>; tokens: Partial<Record<Tier, number>>; floor: Tier }

/** Each compartment's basis, kept while its representations stand (a fold copies the compartment, not them). */
const basisByRepresentations = new WeakMap<StoredCompartment["representations"], CompartmentBasis>()
function basisOf(compartment: StoredCompartment): CompartmentBasis {
  const known = basisByRepresentations.get(compartment.representations)
  if (known !== undefined) return known
  const texts = new Map<Tier, string>()
  const tokens: Partial<Record<Tier, number>> = {}
  for (const representation of preferred(compartment)) {
    texts.set(representation.tier, representation.content)
    tokens[representation.tier] = representation.tokens
  }
  const basis = { texts, tokens, floor: compartmentFloor(compartment.facts) }
  basisByRepresentations.set(compartment.representations, basis)
  return basis
}

const NO_PINS: readonly PinnedFact[] = []

/** The tokens of each tier with the condensed pins it does not say already (they are rendered under it). */
function withPinTokens(basis: CompartmentBasis, pins: readonly PinnedFact[], count: (text: string) => number): Partial<Record<Tier, number>> {
  const tiers: Partial<Record<Tier, number>> = {}
  for (const [tier, text] of basis.texts) tiers[tier] = (basis.tokens[tier] ?? 0) + episodePinTokens(text, pins, count)
  return tiers
}

/**
 * The Lab's guide on one compartment: whether what is about to be needed is in it, and which tiers carry what will be
 * needed (the FULL tier is the episode's whole source; a condensed pin is in every tier).
 */
function guidedBy(
  guide: SelectionGuide,
  basis: CompartmentBasis,
  pins: readonly PinnedFact[],
): { soon: boolean; carriesNeeds: (tier: Tier) => boolean } {
  const full = [...basis.texts.values()].join("\n")
  const pinned = (text: string): boolean => pins.some((pin) => pin.text.includes(text))
  const neededHere = guide.needed().filter((text) => full.includes(text) || pinned(text))
  return {
    soon: guide.neededSoon().some((text) => full.includes(text)),
    carriesNeeds: (tier) => neededHere.every((text) => (basis.texts.get(tier) ?? "").includes(text) || pinned(text)),
  }
}

/** The agent's pins (ctx_pin) whose message is folded into history (until then the message itself is live). */
function agentPins(db: Database, state: SessionState, foldThrough: number): AgentPin[] {
  return listPins(db, state.sessionId).flatMap((pin) => {
    const tag = state.tagsByNumber.get(pin.tag)
    const seq = (tag && state.messageSeq.get(tag.messageId)) ?? Number.POSITIVE_INFINITY
    return seq <= foldThrough ? [{ pin: { text: pin.text, tags: [pin.tag] }, seq }] : []
  })
}

/**
 * How much the live tail is about each compartment again: 1 when the agent expanded it; otherwise the share of
 * its identifiers (paths, commands, names; up to three count) that occur in the protected recent messages.
 */
function relevanceOf(compartments: readonly StoredCompartment[], view: LiveView, expanded: ReadonlySet<string>): Map<string, number> {
  const tail = newestText(view.messages.slice(view.protectedFrom), RELEVANCE_TAIL_CHARS)
  const result = new Map<string, number>()
  const search = createTailSearch(tail, RELEVANCE_MIN_CHARS)
  for (const compartment of compartments) {
    if (expanded.has(compartment.id)) {
      result.set(compartment.id, 1)
      continue
    }
    let hits = 0
    for (const identifier of relevanceIdentifiers(compartment)) {
      if (search.occurs(identifier)) hits += 1
      if (hits === RELEVANCE_FULL_HITS) break
    }
    result.set(compartment.id, hits / RELEVANCE_FULL_HITS)
  }
  return result
}

/** How much of the newest protected text relevance looks at. */
const RELEVANCE_TAIL_CHARS = 40_000
/** How many of an episode's identifiers in the tail make it wholly relevant. */
const RELEVANCE_FULL_HITS = 3
/** An identifier shorter than this says too little to make its episode relevant. */
const RELEVANCE_MIN_CHARS = 6

/**
 * The last `chars` characters of the messages' texts and tool inputs, each part's on a line of its own: read from
 * the newest part back, only as far as needed (the protected window of a large model holds megabytes).
 */
function newestText(messages: readonly HostMessage[], chars: number): string {
  const texts: string[] = []
  let length = -1
  for (let index = messages.length - 1; index >= 0 && length < chars; index -= 1) {
    const parts = messages[index]?.parts ?? []
    for (let at = parts.length - 1; at >= 0 && length < chars; at -= 1) {
      const part = parts[at]
      const text = part?.type === "text" ? part.text : part?.type === "tool" ? JSON.stringify(part.state.input) : ""
      texts.push(text)
      length += text.length + 1
    }
  }
  return texts.reverse().join("\n").slice(-chars)
}

/** The identifiers relevance looks for, per stored compartment (its facts never change). */
const identifiersOf = new WeakMap<StoredCompartment, string[]>()
function relevanceIdentifiers(compartment: StoredCompartment): string[] {
  const known = identifiersOf.get(compartment)
  if (known !== undefined) return known
  const identifiers = compartment.facts.filter((fact) => fact.kind === "identifier" && fact.text.length >= RELEVANCE_MIN_CHARS).map((fact) => fact.text)
  identifiersOf.set(compartment, identifiers)
  return identifiers
}

/** The omitted compartments (the default policy leaves out only the oldest) as one range, or null when none is. */
function omittedEpisodes(
  compartments: readonly StoredCompartment[],
  choices: readonly TierChoice[],
): OmittedEpisodes | null {
  const omitted = compartments.filter((_, index) => choices[index]?.tier === "omitted")
  const first = omitted[0]
  const last = omitted[omitted.length - 1]
  if (!first || !last) return null
  const range = { first: displayId(first), last: displayId(last), firstTag: first.firstTag, lastTag: last.lastTag }
  return { count: omitted.length, ...range }
}

/** The longest line about omitted episodes these compartments could need. */
function widestOmitted(compartments: readonly StoredCompartment[]): OmittedEpisodes {
  const last = compartments[compartments.length - 1]
  const id = last ? displayId(last) : "c1"
  const tag = last?.lastTag ?? 1
  return { count: compartments.length, first: id, last: id, firstTag: tag, lastTag: tag }
}

function displayId(compartment: StoredCompartment): string {
  return compartmentDisplayId(compartment.seq)
}
