import { defaultConfig } from "../../src/config/schema.js"
import { WORKING_SET_HEADING } from "../../src/historian/compose-history.js"
import { PINNED_HEADING } from "../../src/historian/pinned-ledger.js"
import { RECALLED_HEADING } from "../../src/historian/recalled-lines.js"
import { createHistoryPlanner } from "../../src/pass/history-planner.js"
import { runPass, type PassResult } from "../../src/pass/run-pass.js"
import { applyEdits } from "../../src/session/apply-edits.js"
import { minimumFreedTokens } from "../../src/pressure/minimum-freed.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import { listCompartments } from "../../src/store/compartment-repository.js"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { fixedClock, freshCopy, memoryStore, sessionState } from "../helpers/host-messages.js"
import { recordFaultTally } from "./fault-table.js"
import { longSession } from "../helpers/long-session.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

/** One pass of a long-session run, as the probe measures it. */
export type ProbedPass = {
  decision: PassResult["decision"]
  reason: PassResult["reason"]
  band: PassResult["band"]
  /** Usage before and after the pass, percent of the usable window. */
  beforePercent: number
  afterPercent: number
  freedTokens: number
  /** Tokens of the pinned ledger's section in the history the pass left applied (0 without one). */
  ledgerTokens: number
}

export type LongSessionRun = {
  usableTokens: number
  thresholdPercent: number
  pinBudgetTokens: number
  drainMinimum: number
  /** The first pass, over the whole session at once: the emergency pass. */
  emergency: ProbedPass
  /** The passes after it, each two messages (one exchange) later. */
  later: ProbedPass[]
  /** The history applied at the end. */
  historyText: string
  /**
   * Every pinned fact of every compartment folded into the applied history at the end: in the history, or hidden with
   * an omitted compartment (those cut since the last fold are still live messages, whole, and not counted).
   */
  pins: { total: number; shown: number; hidden: number; missing: string[] }
  omittedCompartments: number
  compartments: number
}

/**
 * Runs a long session through the engine as OpenCode would after a restart into a session that long: one pass over
 * all `messageCount` messages (usage far over the window: the emergency pass), then `laterPasses` passes each one
 * exchange later, with the real o200k counter and a `:memory:` store. Measures what the fault suite checks: where the
 * emergency pass lands, the ledger against its budget at every pass, what every later pass freed, and whether every
 * pin of a shown episode is in the history.
 */
export async function runLongSession(options: { messageCount: number; usableTokens: number; laterPasses: number }): Promise<LongSessionRun> {
  const pool = createTokenCounterPool()
  const counter = pool.counterFor("o200k_base")
  const db = await memoryStore()
  try {
    const state = sessionState({ db, counter, sessionId: "ses_long" })
    const caches = passCachesOf(state)
    const window = fixedWindow({ usableTokens: options.usableTokens, config: defaultConfig() })
    const planner = createHistoryPlanner({ db, sessionId: state.sessionId, counter, policy: "default" })
    const all = longSession({ messageCount: options.messageCount + options.laterPasses * 2 })
    const percent = (tokens: number): number => (100 * tokens) / window.usableTokens
    const ledgerTokens = (): number => {
      const text = state.applied.history?.text ?? ""
      const start = text.indexOf(PINNED_HEADING)
      if (start < 0) return 0
      // The ledger's section ends where the recalled lines or the working set begin.
      const ends = [RECALLED_HEADING, WORKING_SET_HEADING].map((heading) => text.indexOf(`\n\n${heading}`, start)).filter((at) => at >= 0)
      return counter.count(text.slice(start, ends.length === 0 ? undefined : Math.min(...ends)))
    }
    const pass = (count: number): ProbedPass => {
      const messages = freshCopy(all.slice(0, count))
      const newest = messages[messages.length - 1]
      const result = runPass({
        db,
        state,
        caches,
        messages,
        counter,
        clock: fixedClock,
        trigger: "transform",
        tagsVisible: true,
        window,
        fixedTokens: 0,
        now: (newest?.info.time.created ?? 0) + 1_000,
        smartDrops: false,
        history: planner,
      })
      applyEdits(messages, result.edits)
      return {
        decision: result.decision,
        reason: result.reason,
        band: result.band,
        beforePercent: percent(result.usageBefore),
        afterPercent: percent(result.usageAfter),
        freedTokens: result.usageBefore - result.usageAfter,
        ledgerTokens: ledgerTokens(),
      }
    }
    const emergency = pass(options.messageCount)
    const later = Array.from({ length: options.laterPasses }, (_, index) => pass(options.messageCount + (index + 1) * 2))

    const historyText = state.applied.history?.text ?? ""
    const tiers = planner.report()?.tiers ?? {}
    const compartments = listCompartments(db, state.sessionId)
    const foldedThrough = state.applied.history?.foldedThroughSeq ?? 0
    const seen = new Set<string>()
    const pins = { total: 0, shown: 0, hidden: 0, missing: [] as string[] }
    for (const compartment of compartments.filter((candidate) => candidate.lastMessageSeq <= foldedThrough)) {
      const omitted = tiers[compartment.id.slice(compartment.id.lastIndexOf("#") + 1)] === "omitted"
      for (const fact of compartment.facts) {
        if (fact.retention !== "PIN" || seen.has(fact.text)) continue
        seen.add(fact.text)
        pins.total += 1
        if (historyText.includes(fact.text)) pins.shown += 1
        else if (omitted) pins.hidden += 1
        else pins.missing.push(fact.text)
      }
    }
    return {
      usableTokens: window.usableTokens,
      thresholdPercent: window.thresholdPercent,
      pinBudgetTokens: window.pinBudgetTokens,
      drainMinimum: minimumFreedTokens(window.usableTokens),
      emergency,
      later,
      historyText,
      pins,
      omittedCompartments: Object.values(tiers).filter((tier) => tier === "omitted").length,
      compartments: compartments.length,
    }
  } finally {
    db.close()
    pool.dispose()
  }
}

/** The contracts a long-session run must hold, one message per broken one (empty when all hold). */
export function brokenContracts(run: LongSessionRun): string[] {
  const broken: string[] = []
  const all = [run.emergency, ...run.later]
  if (run.emergency.decision !== "execute" || run.emergency.afterPercent >= run.thresholdPercent) {
    broken.push(`the emergency pass landed at ${run.emergency.afterPercent.toFixed(1)}% (threshold ${run.thresholdPercent}%)`)
  }
  all.forEach((pass, index) => {
    if (pass.ledgerTokens > run.pinBudgetTokens) broken.push(`pass ${index}: ledger ${pass.ledgerTokens} tokens over its budget ${run.pinBudgetTokens}`)
    if (pass.reason === "drain" && pass.freedTokens < run.drainMinimum) {
      broken.push(`pass ${index}: a drain pass freed ${pass.freedTokens} tokens, under the minimum ${run.drainMinimum}`)
    }
    if (pass.afterPercent >= 100) broken.push(`pass ${index}: the prompt is ${pass.afterPercent.toFixed(1)}% of the window`)
  })
  if (run.pins.missing.length > 0) broken.push(`${run.pins.missing.length} pins of shown episodes are not in the history`)
  return broken
}

/** A pass the session would not survive: its prompt does not fit the usable window (the host overflows). */
export function lostPasses(run: LongSessionRun): number {
  return [run.emergency, ...run.later].filter((pass) => pass.afterPercent >= 100).length
}

/** Records the probe's tally and prints the numbers the issue's closing note gives. */
export function reportLongSession(probe: string, run: LongSessionRun): void {
  const passes = [run.emergency, ...run.later]
  const broken = brokenContracts(run)
  recordFaultTally({ probe, tried: passes.length, survived: broken.length === 0 ? passes.length : 0, lost: lostPasses(run) })
  const ledgerMax = Math.max(...passes.map((pass) => pass.ledgerTokens))
  const executes = run.later.filter((pass) => pass.decision === "execute")
  console.log(
    [
      `${probe}: emergency pass ${run.emergency.beforePercent.toFixed(1)}% -> ${run.emergency.afterPercent.toFixed(1)}% of the window`,
      `ledger at most ${ledgerMax} of ${run.pinBudgetTokens} tokens`,
      `pins ${run.pins.total} (shown ${run.pins.shown}, hidden with ${run.omittedCompartments} omitted of ${run.compartments} episodes ${run.pins.hidden})`,
      `later passes: ${executes.length} of ${run.later.length} executed (${executes.map((pass) => `${pass.reason} ${pass.freedTokens}`).join(", ") || "none"}); the drain minimum is ${run.drainMinimum}`,
      `usage after the later passes ${run.later.map((pass) => pass.afterPercent.toFixed(1)).join(" ")}`,
      `their reasons ${run.later.map((pass) => pass.reason).join(" ")}`,
    ].join("\n  "),
  )
}
