import { defaultConfig, type Config } from "../config/schema.js"
import { TIERS, type FactKind, type Tier } from "../historian/fidelity-types.js"
import { replayTranscript, type ReplayTurn } from "../pass/replay-transcript.js"
import { fixedWindow } from "../pressure/model-window.js"
import type { SelectionPolicy } from "../render/select-tiers.js"
import { listCompartments } from "../store/compartment-repository.js"
import type { Database } from "../store/driver.js"
import { MEMORY_DATABASE, openDatabase } from "../store/open-database.js"
import { readMessagesBySeq, readRawParts } from "../store/raw-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { Transcript } from "../transcript/turn-model.js"
import { LAB_CLOCK, UNREDUCED_WINDOW_TOKENS } from "./evaluate-probes.js"
import { runMetrics, type RunMetrics, type TurnMeasure } from "./run-metrics.js"
import { tierCounts } from "./turn-points.js"

/** The policies the ecology compares (besides the unreduced session). */
export const ECOLOGY_POLICIES: readonly SelectionPolicy[] = ["default", "age-only", "flat", "truncation"]

/** What aged history is made of, in tokens. */
export const MATERIALS = ["user text", "assistant text", "reasoning", "tool input", "tool output", "file"] as const
export type Material = (typeof MATERIALS)[number]

/** The seed's questions about one real session, answered at one window. */
export type TraceEcology = {
  file: string
  format: string
  records: number
  modelCalls: number
  /** The unreduced prompt at the last call. */
  finalPromptTokens: number
  /**
   * Old context: the unreduced prompt (without tags and reminders) outside the fixed prompt and the protected
   * recent window the given window would keep.
   */
  oldContext: { meanTokens: number; meanShare: number; finalTokens: number; finalShare: number }
  /** Tokens of the messages the default policy settled into compartments, by material. */
  agedMaterial: Record<Material, number>
  /** Facts the canonical record extracted from those compartments, by kind. */
  agedFacts: Record<FactKind, number>
  compartments: number
  /** Over the default policy's calls with folded history: compartment-calls at each tier, and their share. */
  tierSelections: Record<Tier, number>
  /** Per policy: mean prompt tokens, saved against unreduced, switches and cache busts. */
  policies: { policy: SelectionPolicy; meanPromptTokens: number; savedShare: number; tierSwitches: number; prefixChangesPer100: number; executePasses: number }[]
}

const FACT_KINDS: readonly FactKind[] = ["constraint", "decision", "rejected_alternative", "failure", "identifier", "location", "open_work", "incidental"]

/**
 * Answers, for one transcript at one window, how much old context exists, which material dominates aged history, how
 * often each tier would be selected, and what each policy would save and how often it would switch. Replays the
 * transcript unreduced and once per policy, each into a fresh in-memory store; deterministic.
 */
export async function traceEcology(options: {
  transcript: Transcript
  file: string
  window: number
  counter: TokenCounter
  config?: Config
}): Promise<TraceEcology> {
  const config = options.config ?? defaultConfig()
  const unreduced = await replayRuns({ ...options, config, policy: "default", window: UNREDUCED_WINDOW_TOKENS })
  // Unreduced again, with the window's protected size: "old" is what that window would not protect. Without tags
  // and reminders, which a small protected window would otherwise add to the old tool output it measures.
  const protectedTokens = fixedWindow({ usableTokens: options.window, config }).protectedTokens
  const aging = await replayRuns({
    ...options,
    config,
    policy: "default",
    window: UNREDUCED_WINDOW_TOKENS,
    protectedTokens,
    tagsVisible: false,
  })
  const runs = new Map<SelectionPolicy, Replayed>()
  for (const policy of ECOLOGY_POLICIES) runs.set(policy, await replayRuns({ ...options, config, policy }))
  const defaults = runs.get("default") as Replayed
  const old = aging.turns.map((turn) => ({ old: turn.tokens.conversation + turn.tokens.tool, total: turn.tokens.total }))
  const last = old[old.length - 1] ?? { old: 0, total: 0 }
  const unreducedMean = unreduced.metrics.turns === 0 ? 0 : unreduced.metrics.promptTokens / unreduced.metrics.turns
  const selections = Object.fromEntries(TIERS.map((tier) => [tier, 0])) as Record<Tier, number>
  for (const turn of defaults.turns) {
    const counts = tierCounts(turn.history?.tiers ?? {})
    for (const tier of TIERS) selections[tier] += counts[tier]
  }
  return {
    file: options.file,
    format: options.transcript.format,
    records: options.transcript.turns.length,
    modelCalls: unreduced.metrics.turns,
    finalPromptTokens: last.total,
    oldContext: {
      meanTokens: mean(old.map((entry) => entry.old)),
      meanShare: mean(old.map((entry) => (entry.total === 0 ? 0 : entry.old / entry.total))),
      finalTokens: last.old,
      finalShare: last.total === 0 ? 0 : last.old / last.total,
    },
    agedMaterial: defaults.aged.material,
    agedFacts: defaults.aged.facts,
    compartments: defaults.aged.compartments,
    tierSelections: selections,
    policies: ECOLOGY_POLICIES.map((policy) => {
      const run = runs.get(policy) as Replayed
      const meanTokens = run.metrics.turns === 0 ? 0 : run.metrics.promptTokens / run.metrics.turns
      return {
        policy,
        meanPromptTokens: meanTokens,
        savedShare: unreducedMean === 0 ? 0 : 1 - meanTokens / unreducedMean,
        tierSwitches: run.metrics.tierSwitches,
        prefixChangesPer100: run.metrics.turns === 0 ? 0 : (run.metrics.prefixChanges / run.metrics.turns) * 100,
        executePasses: run.metrics.executePasses,
      }
    }),
  }
}

type Replayed = {
  metrics: RunMetrics
  turns: Pick<ReplayTurn, "tokens" | "history">[]
  aged: { material: Record<Material, number>; facts: Record<FactKind, number>; compartments: number }
}

async function replayRuns(options: {
  transcript: Transcript
  window: number
  counter: TokenCounter
  config: Config
  policy: SelectionPolicy
  /** Overrides the window's protected size. */
  protectedTokens?: number
  tagsVisible?: boolean
}): Promise<Replayed> {
  const db = await openDatabase(MEMORY_DATABASE)
  try {
    const measures: TurnMeasure[] = []
    const { sessionId } = replayTranscript({
      transcript: options.transcript,
      db,
      counter: options.counter,
      clock: LAB_CLOCK,
      window: {
        ...fixedWindow({ usableTokens: options.window, config: options.config }),
        ...(options.protectedTokens === undefined ? {} : { protectedTokens: options.protectedTokens }),
      },
      smartDrops: false,
      policy: options.policy,
      tagsVisible: options.tagsVisible ?? true,
      onTurn: (turn) => {
        const { pass, tokens, prefixChanged, history } = turn
        measures.push({ pass, tokens, prefixChanged, history })
      },
    })
    return { metrics: runMetrics(measures), turns: measures, aged: agedHistory(db, sessionId) }
  } finally {
    db.close()
  }
}

/** The material and the facts of everything cut into compartments. */
function agedHistory(db: Database, sessionId: string): Replayed["aged"] {
  const material = Object.fromEntries(MATERIALS.map((name) => [name, 0])) as Record<Material, number>
  const facts = Object.fromEntries(FACT_KINDS.map((kind) => [kind, 0])) as Record<FactKind, number>
  const compartments = listCompartments(db, sessionId)
  const lastSeq = compartments[compartments.length - 1]?.lastMessageSeq
  if (lastSeq === undefined) return { material, facts, compartments: 0 }
  for (const compartment of compartments) {
    for (const fact of compartment.facts) facts[fact.kind] += 1
  }
  const partTokens = new Map(readRawParts(db, sessionId).map((part) => [part.id, part]))
  const messages = readMessagesBySeq(db, sessionId, 0, lastSeq) as HostMessage[]
  for (const message of messages) {
    for (const part of message.parts) {
      const stored = partTokens.get(part.id)
      if (!stored) continue
      if (part.type === "tool") {
        material["tool input"] += stored.callTokens
        material["tool output"] += stored.tokens
      } else if (part.type === "file") material.file += stored.tokens
      else if (part.type === "reasoning") material.reasoning += stored.tokens
      else if (part.type === "text") material[message.info.role === "user" ? "user text" : "assistant text"] += stored.tokens
    }
  }
  return { material, facts, compartments: compartments.length }
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length
}
