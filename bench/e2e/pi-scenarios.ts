/**
 * The sizes of `bench:pi`'s session: a window, Pi's output reserve, and how many files of how many tokens the agent
 * reads one per call. At 32k the 24 reads overflow the window once; at 200k the 60 reads of ~4,000 tokens (~240k in
 * all) pass Pi's compaction point (the window less its 16,384-token reserve, 183,616) once.
 */
export type PiScenario = {
  id: "32k" | "200k"
  contextWindow: number
  maxTokens: number
  steps: number
  fileTokens: number
}

/** The environment variable that picks the scenarios (comma-separated ids; default: both). */
export const PI_SCENARIOS_VARIABLE = "BENCH_PI_SCENARIOS"

/** Both scenarios in report order, `steps32k` overriding the 32k scenario's step count; `only` picks by id. */
export function piScenarios(options: { only?: string | undefined; steps32k?: string | undefined } = {}): PiScenario[] {
  const steps = options.steps32k === undefined || options.steps32k === "" ? 24 : Number(options.steps32k)
  if (!Number.isInteger(steps) || steps < 1 || steps > 99) throw new Error(`PI_BENCH_STEPS: expected 1 to 99, got ${options.steps32k}`)
  const all: PiScenario[] = [
    { id: "32k", contextWindow: 32_000, maxTokens: 4_096, steps, fileTokens: 1_500 },
    { id: "200k", contextWindow: 200_000, maxTokens: 4_096, steps: 60, fileTokens: 4_000 },
  ]
  const named = (options.only ?? "").split(",").map((id) => id.trim()).filter((id) => id !== "")
  const unknown = named.filter((id) => !all.some((scenario) => scenario.id === id))
  if (unknown.length > 0) throw new Error(`${PI_SCENARIOS_VARIABLE}: unknown scenario ${unknown.join(", ")} (32k, 200k)`)
  return named.length === 0 ? all : all.filter((scenario) => named.includes(scenario.id))
}

/** The file the agent reads at `step` (1-based): `s01.txt`, … */
export function stepFile(step: number): string {
  return `s${String(step).padStart(2, "0")}.txt`
}
