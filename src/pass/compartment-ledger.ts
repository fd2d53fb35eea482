import { compartmentFloor } from "../historian/compartment-floor.js"
import type { Tier } from "../historian/fidelity-types.js"
import type { PinPattern } from "../historian/pin-patterns.js"
import { relevanceIdentifiers } from "../render/episode-relevance.js"
import type { AppliedSelections, CompartmentBasis, HistoryCompartment, HistoryPin } from "../render/prepare-history.js"
import { isYieldedReason, OMITTED_REASON, type TierChoice } from "../render/select-tiers.js"
import type { Recognizers } from "../session/recognizers.js"
import type { SessionState } from "../session/session-state.js"
import {
  currentSelections,
  listCompartmentOutlines,
  markCompartmentsFolded,
  recordSelections,
  type CompartmentOutline,
  type RepresentationStrategy,
} from "../store/compartment-repository.js"
import type { Database } from "../store/driver.js"
import { listPins } from "../store/pin-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { createPinHoming, type AgentPin } from "./homed-pins.js"
import { cutBounds, owedCut, writeCut, type CutInput, type OwedCut } from "./owed-cut.js"
import { createTierTexts, type TierTexts } from "./tier-texts.js"

/** Recorded with every selection, so a change of the selection rules is visible in the records. */
export const POLICY_VERSION = "selection-v1"

/**
 * Bounds on what a fold below the threshold would free, from stored counts only (no selection): `quiet`, with room
 * (new episodes kept at FULL), their source's tokens less their FULL tier's; `budgeted`, held to the history budget
 * (new episodes below FULL), their source's tokens less their anchors'.
 */
export type FoldGains = { quiet: number; budgeted: number }

/** What an execute pass applies of a prepared history: its choices, the applied tiers they change, what it folds. */
export type PendingSelection = { choices: readonly TierChoice[]; changes: TierChoice[]; fold: string[] }

export type CommitInput = { pass: number; passId: number | null; pressure: number; firstDivergence: number | null; radius: number | null; now: number }

/**
 * One session's compartments as stored, and the tiers applied to them: loaded from the store once (again after
 * `invalidate`), kept in step by the cuts it writes and the selections it settles. It owes the cuts it was told to
 * defer, oldest first, and writes them before anything reads the compartments; a write that fails forgets what it
 * owed and what it had loaded (the next cut takes up the same messages again). Tier texts stay in the store and are
 * read when the history renders them (`createTierTexts`).
 */
export type CompartmentLedger = {
  /** The compartments, oldest first, with what selection reads of each; owed cuts are written first. */
  compartments(): readonly HistoryCompartment[]
  /** The tier applied to each compartment, and where floors yielded (loaded with the compartments). */
  selections(): AppliedSelections
  /** Every pin of the compartments and the agent's pins whose message they hold, homed, oldest first. */
  pins(state: SessionState): readonly HistoryPin[]
  cut(input: CutInput): void
  settleCuts(limit: number): boolean
  owesCuts(): boolean
  foldGains(): FoldGains
  /** What applying `choices` changes: the applied tiers they switch and the compartments not folded yet. */
  pendingOf(choices: readonly TierChoice[]): PendingSelection
  /** Records the pending selection and the fold, in the caller's transaction (the pass's commit). */
  write(pending: PendingSelection, input: CommitInput): void
  /** Takes the pending selection into memory, once `write`'s transaction committed. */
  settle(pending: PendingSelection): void
  invalidate(): void
}

export function createCompartmentLedger(options: {
  db: Database
  sessionId: string
  counter: TokenCounter
  recognizers: Recognizers
  pinPatterns: readonly PinPattern[]
  deferCuts: boolean
  /** Runs before a cut's compartments are written, outside their transaction. */
  beforeWrite?: () => void
}): CompartmentLedger {
  const { db, sessionId } = options
  const writer = { db, sessionId, counter: options.counter, recognizers: options.recognizers, pinPatterns: options.pinPatterns }
  const texts = createTierTexts(db)
  let outlines: CompartmentOutline[] | null = null
  let current = new Map<string, Tier | "omitted">()
  // Compartments whose applied choice is where floors yielded to the ceiling (kept until promotion has room).
  let yielded = new Set<string>()
  // The cuts not written yet (`deferCuts`), oldest first: written before anything reads the compartments.
  let owing: OwedCut[] = []
  let gainsMemo: { of: readonly CompartmentOutline[]; length: number; gains: FoldGains } | null = null
  // The last cut that found nothing to cut, and what it read: the same live facts (the same messages, in the same
  // places, with the same records) within the same bounds find nothing again (a replay pass looks at no message).
  let nothingCut: { facts: readonly unknown[]; covered: number; settled: number } | null = null
  // Each compartment as the history reads it, kept while its representations stand (a fold copies the compartment,
  // not them); its pins, read from each compartment's facts once.
  const basisByRepresentations = new WeakMap<CompartmentOutline["representations"], CompartmentBasis>()
  const homePins = createPinHoming()
  const tierLists = new Map<string, readonly Tier[]>()

  const stored = (): CompartmentOutline[] => {
    if (outlines) return outlines
    texts.clear()
    outlines = listCompartmentOutlines(db, sessionId)
    const selections = currentSelections(db, sessionId)
    current = new Map([...selections].map(([id, selection]) => [id, selection.tier]))
    yielded = new Set([...selections].filter(([, selection]) => isYieldedReason(selection.reason)).map(([id]) => id))
    return outlines
  }
  const load = (): CompartmentOutline[] => {
    const known = stored()
    if (owing.length > 0) settle(known, Number.POSITIVE_INFINITY)
    return known
  }
  /**
   * Writes up to `limit` owed episodes after the compartments `known`, oldest first; what is left of the oldest owed
   * cut stays first. A write that fails forgets everything owed: the next cut takes up the same messages again.
   */
  const settle = (known: CompartmentOutline[], limit: number): void => {
    let left = limit
    while (left > 0 && owing.length > 0) {
      const owed = owing[0] as OwedCut
      const slice = owed.episodes.slice(0, left)
      const rest = owed.episodes.slice(left)
      if (rest.length > 0) owing[0] = { ...owed, episodes: rest }
      else owing.shift()
      try {
        write({ ...owed, episodes: slice }, known)
      } catch (error) {
        owing = []
        throw error
      }
      left -= slice.length
    }
  }
  /** A failed write leaves no compartment it began with in memory: they are read again from the store. */
  const write = (owed: OwedCut, known: CompartmentOutline[]): void => {
    try {
      options.beforeWrite?.()
      writeCut(writer, owed, known)
    } catch (error) {
      outlines = null
      throw error
    }
  }
  const basisOf = (compartment: CompartmentOutline): CompartmentBasis => {
    const known = basisByRepresentations.get(compartment.representations)
    if (known !== undefined) return known
    const strategies: Partial<Record<Tier, RepresentationStrategy>> = {}
    const tiers: Tier[] = []
    const tokens: Partial<Record<Tier, number>> = {}
    for (const representation of preferred(compartment)) {
      if (strategies[representation.tier] === undefined) tiers.push(representation.tier)
      strategies[representation.tier] = representation.strategy
      tokens[representation.tier] = representation.tokens
    }
    // Nearly every compartment has the same tiers: they share one list.
    const tierKey = tiers.join(" ")
    const sharedTiers = tierLists.get(tierKey) ?? tiers
    tierLists.set(tierKey, sharedTiers)
    const basis = new StoredBasis(texts, compartment.id, strategies, sharedTiers, tokens, compartmentFloor(compartment.facts), relevanceIdentifiers(compartment.facts))
    basisByRepresentations.set(compartment.representations, basis)
    return basis
  }

  return {
    compartments: () => load().map((compartment) => ({ ...compartment, basis: basisOf(compartment) })),
    selections: () => ({ current, yielded }),
    pins(state) {
      const known = load()
      return homePins(known, agentPins(db, state, known[known.length - 1]?.lastMessageSeq ?? 0))
    },
    cut(input) {
      const known = load()
      const { coveredThroughSeq, settledBefore } = cutBounds({ ...input, known })
      const facts = input.view.facts
      if (nothingCut?.facts === facts && nothingCut.covered === coveredThroughSeq && nothingCut.settled === settledBefore) return
      const owed = owedCut({ ...input, known })
      nothingCut = owed === null ? { facts, covered: coveredThroughSeq, settled: settledBefore } : null
      if (owed === null) return
      if (options.deferCuts) owing.push(owed)
      else write(owed, known)
    },
    owesCuts: () => owing.length > 0,
    settleCuts(limit) {
      if (owing.length === 0) return false
      settle(stored(), limit)
      return owing.length > 0
    },
    foldGains() {
      const known = load()
      // The bounds change only with the list: a cut appends to it (the compartments it had keep their bounds), a fold
      // or a reload replaces it.
      const from = gainsMemo !== null && gainsMemo.of === known && gainsMemo.length <= known.length ? gainsMemo.length : 0
      if (gainsMemo !== null && from === known.length) return gainsMemo.gains
      const gains: FoldGains = from > 0 && gainsMemo !== null ? { ...gainsMemo.gains } : { quiet: 0, budgeted: 0 }
      for (let index = from; index < known.length; index += 1) {
        const compartment = known[index] as CompartmentOutline
        if (compartment.status !== "closed") continue
        const tokensAt = (tier: Tier): number | undefined =>
          compartment.representations.find((representation) => representation.tier === tier)?.tokens
        gains.quiet += Math.max(0, compartment.sourceTokens - (tokensAt("full") ?? compartment.sourceTokens))
        gains.budgeted += Math.max(0, compartment.sourceTokens - (tokensAt("anchor") ?? compartment.sourceTokens))
      }
      gainsMemo = { of: known, length: known.length, gains }
      return gains
    },
    pendingOf(choices) {
      // The truncation baseline's omissions are not applied tiers (it recomputes them every time); the default
      // policy's are, so that a later pass keeps them until there is room.
      const changes = choices.filter((choice) => current.get(choice.id) !== choice.tier && (choice.tier !== "omitted" || choice.reason === OMITTED_REASON))
      const fold = stored()
        .filter((compartment) => compartment.status !== "folded")
        .map((compartment) => compartment.id)
      return { choices, changes, fold }
    },
    write(pending, input) {
      if (!outlines) return
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
    settle(pending) {
      if (!outlines) return
      const known = outlines
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
      outlines = known.map((compartment) => (folded.has(compartment.id) ? { ...compartment, status: "folded" } : compartment))
    },
    invalidate() {
      outlines = null
    },
  }
}

/**
 * A compartment's basis as the ledger keeps one per compartment for the life of the session: its tier texts are read
 * through the session's tier texts by a method, not a closure per compartment.
 */
class StoredBasis implements CompartmentBasis {
  constructor(
    private readonly texts: TierTexts,
    private readonly compartmentId: string,
    private readonly strategies: Partial<Record<Tier, RepresentationStrategy>>,
    readonly tiers: readonly Tier[],
    readonly tokens: Partial<Record<Tier, number>>,
    readonly floor: Tier,
    readonly identifiers: readonly string[],
  ) {}

  text(tier: Tier): string | undefined {
    const strategy = this.strategies[tier]
    return strategy === undefined ? undefined : this.texts.text(this.compartmentId, tier, strategy)
  }
}

/**
 * The representations selection uses: a model historian's dense, compact and anchor when it wrote a complete set,
 * else the canonical record's; FULL is always the canonical one, the episode's source itself.
 */
function preferred(compartment: CompartmentOutline): CompartmentOutline["representations"] {
  const canonical = compartment.representations.filter((representation) => representation.strategy === "canonical-record")
  const model = compartment.representations.filter((representation) => representation.strategy === "source-grounded-model")
  if (!model.some((representation) => representation.tier === "anchor")) return canonical
  return [...canonical.filter((representation) => representation.tier === "full"), ...model.filter((representation) => representation.tier !== "full")]
}

/** The agent's pins (ctx_pin) whose message is folded into history (until then the message itself is live). */
function agentPins(db: Database, state: SessionState, foldThrough: number): AgentPin[] {
  return listPins(db, state.sessionId).flatMap((pin) => {
    const tag = state.tagsByNumber.get(pin.tag)
    const seq = (tag && state.messageSeq.get(tag.messageId)) ?? Number.POSITIVE_INFINITY
    // A pin someone chose binds like a constraint: the ledger keeps it as long as its constraints.
    return seq <= foldThrough ? [{ pin: { text: pin.text, tags: [pin.tag], binding: true }, seq }] : []
  })
}
