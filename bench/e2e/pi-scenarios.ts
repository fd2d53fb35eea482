/**
 * The sizes of `bench:pi`'s session: a window, Pi's output reserve, and how many files of how many tokens the agent
 * reads one per call. At 32k the 24 reads of ~1,500 tokens, in one user turn, overflow the window once; at 200k 140
 * reads of the same size (~210k in all), in user turns of 20 reads, pass Pi's compaction point (the window less its
 * 16,384-token reserve, 183,616) once.
 */
export type PiScenario = {
  id: "32k" | "200k"
  contextWindow: number
  maxTokens: number
  steps: number
  fileTokens: number
  /**
   * Reads per user turn (one `pi -p` each, `--continue` after the first): magic-context refuses a fourth ctx_reduce
   * call in one turn, so a long session is several turns, as it would be for a user.
   */
  readsPerTurn: number
}

/** The environment variable that picks the scenarios (comma-separated ids; default: both). */
export const PI_SCENARIOS_VARIABLE = "BENCH_PI_SCENARIOS"

/** The environment variable that sets the 200k scenario's reads as `<count>x<tokens>` (default 140x1500). */
export const PI_200K_READS_VARIABLE = "PI_BENCH_200K_READS"

/**
 * Both scenarios in report order; `steps32k` overrides the 32k scenario's step count, `reads200k` the 200k one's reads
 * (`60x4000`: 60 reads of ~4,000 tokens), and `only` picks by id.
 */
export function piScenarios(options: { only?: string | undefined; steps32k?: string | undefined; reads200k?: string | undefined } = {}): PiScenario[] {
  const steps = options.steps32k === undefined || options.steps32k === "" ? 24 : Number(options.steps32k)
  if (!Number.isInteger(steps) || steps < 1 || steps > 99) throw new Error(`PI_BENCH_STEPS: expected 1 to 99, got ${options.steps32k}`)
  const reads = /^(\d+)x(\d+)$/.exec(options.reads200k || "140x1500")
  if (!reads) throw new Error(`${PI_200K_READS_VARIABLE}: expected <count>x<tokens>, got ${options.reads200k}`)
  const all: PiScenario[] = [
    { id: "32k", contextWindow: 32_000, maxTokens: 4_096, steps, fileTokens: 1_500, readsPerTurn: steps },
    { id: "200k", contextWindow: 200_000, maxTokens: 4_096, steps: Number(reads[1]), fileTokens: Number(reads[2]), readsPerTurn: 20 },
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
