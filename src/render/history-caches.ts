import type { Tier } from "../historian/fidelity-types.js"
import type { TermFilter } from "../historian/reference-terms.js"
import { episodeMemo, type EpisodeMemo, type PinSearch } from "../historian/compose-history.js"
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
import { currentEntry, isCurrentList, type MessageMemo, type MessageMemoEntry } from "../session/message-memo.js"
import type { HostMessage } from "../transcript/host-message.js"
import { createSectionCounter, type SectionCounter } from "../tokens/section-counter.js"
import type { TokenCounter } from "../tokens/token-counter.js"

/**
 * What `prepareHistory` keeps from one preparation to the next of a session, so that a fold costs in proportion to
 * what changed: each is a cache (the same inputs give the same history with a fresh one).
 */
export type HistoryCaches = {
  /** Counts a text once: pin lines recur on every pressured pass (a long session holds thousands). */
  countOnce(text: string): number
  /** Counts a text that rarely recurs (a recalled line), keeping nothing. */
  count(text: string): number
  /** The composed history changes by a few episodes per fold: its unchanged episodes are not counted again. */
  historyCounter: SectionCounter
  /** The history's frame (ledger and working set, without episodes) is counted twice a fold, mostly the same each time. */
  frameCounter: SectionCounter
  /** Which invariant lines the ledger already says, while its texts stay the same (one search per line, not per pass). */
  ledgerSearch: PinSearch | undefined
  /** The last composed history's episodes: a fold changes a few, and the leading ones that stayed are not composed again. */
  composedEpisodes: EpisodeMemo
  /** Each compartment's tier tokens with its condensed pins (`key`: their lines), while its basis stands. */
  pinnedTiers: WeakMap<object, { key: string; tiers: Partial<Record<Tier, number>> }>
  /** Each compartment's term filter for recall by reference, while its basis stands. */
  recallFilters: WeakMap<object, TermFilter>
  /** The working set of `messages`, folding only the messages after those the last call's list started with. */
  workingSetFor(messages: readonly HostMessage[], memo: MessageMemo): WorkingSet
}

/** Empty caches for one session's history. */
export function createHistoryCaches(counter: TokenCounter): HistoryCaches {
  const counted = new Map<string, number>()
  return {
    countOnce(text) {
      const known = counted.get(text)
      if (known !== undefined) return known
      const tokens = counter.count(text)
      counted.set(text, tokens)
      return tokens
    },
    count: (text) => counter.count(text),
    historyCounter: createSectionCounter(counter),
    frameCounter: createSectionCounter(counter),
    ledgerSearch: undefined,
    composedEpisodes: episodeMemo(),
    pinnedTiers: new WeakMap(),
    recallFilters: new WeakMap(),
    workingSetFor: workingSetFold(),
  }
}

/**
 * The working set's fold over the last prepared list, with that list's memo entries: a list that starts with the same
 * entries folds only the messages after them. Each message's working facts are kept while its memo entry stands for
 * it (the host sends new objects every call).
 */
function workingSetFold(): (messages: readonly HostMessage[], memo: MessageMemo) => WorkingSet {
  const workingFactsOf = new WeakMap<MessageMemoEntry, WorkingFacts>()
  const memoizedWorkingFacts =
    (memo: MessageMemo): WorkingSetSource =>
    (message) => {
      const entry = currentEntry(memo, message)
      if (entry === null) return workingFacts(message)
      const known = workingFactsOf.get(entry)
      if (known !== undefined) return known
      const facts = workingFacts(message)
      workingFactsOf.set(entry, facts)
      return facts
    }
  let last: { entries: readonly MessageMemoEntry[]; fold: WorkingFold } | null = null
  return (messages, memo) => {
    const factsOf = memoizedWorkingFacts(memo)
    const list = memo.list
    // The memo's entries stand for these messages only when they are its current list.
    if (!isCurrentList(memo, messages)) {
      last = null
      return deriveWorkingSet(messages, factsOf)
    }
    const previous = last
    const resumes = previous !== null && previous.entries.length <= list.length && previous.entries.every((entry, index) => entry === list[index])
    const fold = resumes ? copyWorkingFold(previous.fold) : emptyWorkingFold()
    for (let index = resumes ? previous.entries.length : 0; index < messages.length; index += 1) foldWorkingFacts(fold, factsOf(messages[index] as HostMessage))
    last = { entries: list, fold }
    return workingSetOf(fold)
  }
}
