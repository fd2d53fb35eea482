import type { ReplayTurn } from "../pass/replay-transcript.js"

/** What one replay cost and changed, as sums over its model calls (so runs add up). */
export type RunMetrics = {
  /** Model calls replayed. */
  turns: number
  executePasses: number
  /** Sum and maximum of the prompt's tokens (`tokens.total`) over the calls. */
  promptTokens: number
  maxPromptTokens: number
  /** Sum over the calls of the compartments rendered below their floor in that call's history. */
  floorViolations: number
  /** Calls whose prompt did not keep the previous one as a byte prefix. */
  prefixChanges: number
  /** Compartment tier changes applied over the run. */
  tierSwitches: number
  /** Lines recall by reference brought back, summed over the execute passes that applied them. */
  recalledLines: number
  /** Tokens of recalled lines summed over the calls: what recall added to the prompts. */
  recalledTokens: number
}

/** The part of a replayed turn the metrics read (a turn without its prompt, so runs need not keep prompts). */
export type TurnMeasure = Pick<ReplayTurn, "pass" | "tokens" | "prefixChanged" | "history">

/** The metrics of one replay from its turns, in order. */
export function runMetrics(turns: readonly TurnMeasure[]): RunMetrics {
  return {
    turns: turns.length,
    executePasses: turns.filter((turn) => turn.pass === "execute").length,
    promptTokens: turns.reduce((sum, turn) => sum + turn.tokens.total, 0),
    maxPromptTokens: turns.reduce((max, turn) => Math.max(max, turn.tokens.total), 0),
    floorViolations: turns.reduce((sum, turn) => sum + (turn.history?.floorViolations ?? 0), 0),
    prefixChanges: turns.filter((turn) => turn.prefixChanged).length,
    // The planner's count is cumulative over the session: the last turn holds the run's total.
    tierSwitches: turns.reduce((max, turn) => Math.max(max, turn.history?.switches ?? 0), 0),
    recalledLines: turns.reduce((sum, turn) => sum + (turn.pass === "execute" ? (turn.history?.recalledLines ?? 0) : 0), 0),
    recalledTokens: turns.reduce((sum, turn) => sum + (turn.history?.recalledTokens ?? 0), 0),
  }
}

/** Metrics of several runs taken together (the sums add, the maximum is the largest). */
export function addRunMetrics(runs: readonly RunMetrics[]): RunMetrics {
  return {
    turns: runs.reduce((sum, run) => sum + run.turns, 0),
    executePasses: runs.reduce((sum, run) => sum + run.executePasses, 0),
    promptTokens: runs.reduce((sum, run) => sum + run.promptTokens, 0),
    maxPromptTokens: runs.reduce((max, run) => Math.max(max, run.maxPromptTokens), 0),
    floorViolations: runs.reduce((sum, run) => sum + run.floorViolations, 0),
    prefixChanges: runs.reduce((sum, run) => sum + run.prefixChanges, 0),
    tierSwitches: runs.reduce((sum, run) => sum + run.tierSwitches, 0),
    recalledLines: runs.reduce((sum, run) => sum + run.recalledLines, 0),
    recalledTokens: runs.reduce((sum, run) => sum + run.recalledTokens, 0),
  }
}
