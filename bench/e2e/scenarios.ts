import { scriptedRounds, type ScriptedTurn } from "./session-script.js"

/**
 * One size of the session: the mock model's window in OpenCode's provider config and how often the script runs.
 * The 32k window is small, so pressure builds within one round; at 200k the script runs twice (the same five
 * turns again in the same session) to reach the large window's threshold.
 */
export type BenchScenario = {
  id: "32k" | "200k"
  title: string
  window: { context: number; output: number }
  /** What OpenCode's overflow check compares usage with: the context minus the output reserve (no `limit.input`). */
  usableWindow: number
  rounds: 1 | 2
  turns: ScriptedTurn[]
}

/** Both scenarios, in report order. */
export function benchScenarios(): BenchScenario[] {
  return [
    scenario("32k", { context: 32_000, output: 4_096 }, 1),
    scenario("200k", { context: 200_000, output: 4_096 }, 2),
  ]
}

function scenario(id: BenchScenario["id"], window: BenchScenario["window"], rounds: 1 | 2): BenchScenario {
  return {
    id,
    title: `${id} window, the script ${rounds === 1 ? "once" : "twice"}`,
    window,
    usableWindow: window.context - window.output,
    rounds,
    turns: scriptedRounds(rounds),
  }
}

/** What the report and bench-e2e.json say about a scenario (its script only by size). */
export type ScenarioFacts = {
  id: BenchScenario["id"]
  title: string
  contextLimit: number
  outputLimit: number
  usableWindow: number
  rounds: number
  scriptedTurns: number
  scriptedSteps: number
}

export function scenarioFacts(scenario: BenchScenario): ScenarioFacts {
  return {
    id: scenario.id,
    title: scenario.title,
    contextLimit: scenario.window.context,
    outputLimit: scenario.window.output,
    usableWindow: scenario.usableWindow,
    rounds: scenario.rounds,
    scriptedTurns: scenario.turns.length,
    scriptedSteps: scenario.turns.reduce((total, turn) => total + turn.steps.length, 0),
  }
}
