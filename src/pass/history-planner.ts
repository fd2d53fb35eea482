import type { PinPattern } from "../historian/pin-patterns.js"
import { createHistoryCaches } from "../render/history-caches.js"
import type { HistoryReport } from "../render/history-report.js"
import { prepareHistory, type SelectionGuide } from "../render/prepare-history.js"
import type { SelectionPolicy } from "../render/select-tiers.js"
import type { LiveView } from "../session/live-view.js"
import type { MessageMemo } from "../session/message-memo.js"
import { ALL_RECOGNIZERS, type Recognizers } from "../session/recognizers.js"
import type { ReadyHistory, SessionState } from "../session/session-state.js"
import type { Database } from "../store/driver.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { HostMessage } from "../transcript/host-message.js"
import { createCompartmentLedger, type CommitInput, type FoldGains, type PendingSelection } from "./compartment-ledger.js"
import type { CutInput } from "./owed-cut.js"

export type { HistoryReport } from "../render/history-report.js"
export type { SelectionGuide } from "../render/prepare-history.js"
export { POLICY_VERSION, type CommitInput, type FoldGains } from "./compartment-ledger.js"
export type { CutInput } from "./owed-cut.js"

/**
 * The historian's side of a pass: it cuts settled conversation into compartments as soon as it is settled (`cut`:
 * their tiers are written once, from the source, by the canonical record), and, when a fold is due, prepares the
 * history an execute pass would fold in (`prepare`, which reads only): a tier per compartment within the history
 * budget, the pinned ledger and the working set. Only an execute pass applies it (`write`, then `settle`).
 */
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
    /** The session's message memo (`PassCaches`): what the latest renders computed per message. */
    memo: MessageMemo
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

/** The gains of a session without a planner. */
export const NO_FOLD_GAINS: FoldGains = { quiet: 0, budgeted: 0 }

/**
 * Creates the planner of one session: its compartment ledger (the store's compartments, applied tiers and owed cuts)
 * and `prepareHistory` over them, with the prepared selection pending until an execute pass writes and settles it.
 */
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
  /** Runs before a cut's compartments are written (the session's owed raw rows go first). */
  beforeCutWrite?: () => void
}): HistoryPlanner {
  const ledger = createCompartmentLedger({
    db: options.db,
    sessionId: options.sessionId,
    counter: options.counter,
    recognizers: options.recognizers ?? ALL_RECOGNIZERS,
    pinPatterns: options.pinPatterns ?? [],
    deferCuts: options.deferCuts === true,
    ...(options.beforeCutWrite ? { beforeWrite: options.beforeCutWrite } : {}),
  })
  const caches = createHistoryCaches(options.counter)
  // The comparison policies show the tiers alone; recall is part of the default policy.
  const recall = options.policy === "default" && (options.recognizers ?? ALL_RECOGNIZERS).on("recall-by-reference")
  // What prepare would apply, and its report.
  let pending: { selection: PendingSelection; report: HistoryReport } | null = null
  let lastReport: HistoryReport | null = null
  let totalSwitches = 0

  const planner: HistoryPlanner = {
    foldGains: () => ledger.foldGains(),
    cut: (input) => ledger.cut(input),
    owesCuts: () => ledger.owesCuts(),
    settleCuts: (limit = Number.POSITIVE_INFINITY) => ledger.settleCuts(limit),
    prepare(input) {
      pending = null
      // Without a fold the compartments are not read (a cut this pass owes stays owed).
      if (!input.fold) return null
      const compartments = ledger.compartments()
      if (compartments.length === 0) return null
      const prepared = prepareHistory({
        compartments,
        selections: ledger.selections(),
        pins: ledger.pins(input.state),
        view: input.view,
        messages: input.messages,
        memo: input.memo,
        budgets: input,
        policy: options.policy,
        expanded: options.expanded ?? new Set(),
        guide: options.guide ?? null,
        recall,
        caches,
      })
      if (prepared === null) return null
      pending = { selection: ledger.pendingOf(prepared.choices), report: prepared.report }
      return prepared.ready
    },
    write(input) {
      if (pending) ledger.write(pending.selection, input)
    },
    settle() {
      if (!pending) return
      ledger.settle(pending.selection)
      lastReport = pending.report
      totalSwitches += pending.report.switches
      pending = null
    },
    commit(input) {
      options.db.transaction(() => planner.write(input))
      planner.settle()
    },
    report: () => lastReport,
    switches: () => totalSwitches,
    invalidate: () => ledger.invalidate(),
  }
  return planner
}
