import { compartmentDisplayId } from "../historian/compartment-id.js"
import { extractCanonicalRecord, type CanonicalRecord } from "../historian/canonical-record.js"
import { checkCrossTierConsistency } from "../historian/check-cross-tier-consistency.js"
import { TIERS, type Tier } from "../historian/fidelity-types.js"
import { renderTiers, tierHeader } from "../historian/render-tiers.js"
import { replayTranscript } from "../pass/replay-transcript.js"
import { fixedWindow } from "../pressure/model-window.js"
import { listCompartments, type StoredCompartment } from "../store/compartment-repository.js"
import type { Database } from "../store/driver.js"
import { MEMORY_DATABASE, openDatabase } from "../store/open-database.js"
import { readMessagesBySeq } from "../store/raw-repository.js"
import { loadSessionState } from "../store/session-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { HostMessage } from "../transcript/host-message.js"
import { createHostTranscriptBuilder } from "../transcript/host-transcript-builder.js"
import type { Transcript } from "../transcript/turn-model.js"
import { defaultConfig, type Config } from "../config/schema.js"
import { byTrace, LAB_CLOCK, tryReadTranscript } from "./evaluate-probes.js"
import type { Probe } from "./probe-file.js"
import { promptText } from "./prompt-text.js"

/**
 * How a tier's text was made. `canonical-record`: every tier rendered from the record extracted from the source
 * (the engine's default). `cascaded`: each tier made from the text of the one above (extract a record from the tier
 * text, render the next tier), the lossy chain the seed warns about. `oracle`: told the probes, the smallest text
 * that carries them (the compartment's header and the needed strings): the ceiling of survival per token.
 */
export type TierStrategy = "canonical-record" | "cascaded" | "oracle"
export const TIER_STRATEGIES: readonly TierStrategy[] = ["canonical-record", "cascaded", "oracle"]

/** The oracle has one representation per compartment; it is reported under this tier name. */
export type MeasuredTier = Tier | "oracle"

/** One tier of one strategy over every compartment that has it. */
export type TierQuality = {
  strategy: TierStrategy
  tier: MeasuredTier
  /** Compartments measured: all of them (a tier not generated is measured as the next less detailed one it equals). */
  compartments: number
  /** Compartments that have this tier of their own (one that would add nothing to the next one is not generated). */
  generated: number
  meanTokens: number
  /** Probe × compartment pairs checked: the non-incidental probes whose `exact` is in the compartment's source. */
  probes: number
  survived: number
  /** survived / probes (null when no probe was checked). */
  survival: number | null
  /** survival per 1,000 mean tier tokens. */
  survivalPer1kTokens: number | null
  /** Cross-tier problems found in this tier (`checkCrossTierConsistency`). */
  contradictions: number
  /** The cheaper tier of the same strategy that keeps at least as many probes, if any (the Pareto criterion). */
  dominatedBy: MeasuredTier | null
}

/** Experiment 1 over a probe file: each tier of each strategy, and the compartments measured. */
export type TierQualityReport = {
  window: number
  transcripts: number
  compartments: number
  tiers: TierQuality[]
  /** Transcripts that could not be read, with the reason. */
  problems: string[]
}

/**
 * One compartment's texts under one strategy and what its source carries. `texts` holds every tier (a tier not
 * generated holds the next less detailed one, the text it equals), `generated` the tiers made of their own.
 */
type Sample = {
  strategy: TierStrategy
  texts: Partial<Record<MeasuredTier, string>>
  generated: ReadonlySet<MeasuredTier>
  needed: string[]
  contradictions: Map<Tier, number>
}

/**
 * Experiment 1: replays each transcript the probes name under the default policy at `window` (so settled history is
 * cut into the compartments a live session would get), then measures every compartment's tiers per strategy.
 * Deterministic: fixed clock, fresh in-memory stores, transcripts in path order.
 */
export async function measureTierQuality(options: {
  probes: readonly Probe[]
  window: number
  counter: TokenCounter
  config?: Config
}): Promise<TierQualityReport> {
  const config = options.config ?? defaultConfig()
  const samples: Sample[] = []
  const problems: string[] = []
  let compartments = 0
  let transcripts = 0
  for (const [tracePath, probes] of byTrace(options.probes)) {
    const transcript = tryReadTranscript(tracePath)
    if (!transcript.ok) {
      problems.push(`${tracePath}: ${transcript.error}`)
      continue
    }
    transcripts += 1
    const needed = probes.filter((probe) => probe.kind !== "incidental").map((probe) => probe.exact)
    const measured = await compartmentSamples({ transcript: transcript.value, needed, window: options.window, config, counter: options.counter })
    compartments += measured.compartments
    samples.push(...measured.samples)
  }
  return { window: options.window, transcripts, compartments, tiers: summarize(samples, options.counter), problems }
}

async function compartmentSamples(options: {
  transcript: Transcript
  needed: readonly string[]
  window: number
  config: Config
  counter: TokenCounter
}): Promise<{ compartments: number; samples: Sample[] }> {
  const db = await openDatabase(MEMORY_DATABASE)
  try {
    const { sessionId } = replayTranscript({
      transcript: options.transcript,
      db,
      counter: options.counter,
      clock: LAB_CLOCK,
      window: fixedWindow({ usableTokens: options.window, config: options.config }),
      smartDrops: false,
      policy: "default",
      onTurn: () => undefined,
    })
    const tags = tagsByPart(db, sessionId)
    const stored = listCompartments(db, sessionId)
    const samples = stored.flatMap((compartment) => {
      const messages = readMessagesBySeq(db, sessionId, compartment.firstMessageSeq, compartment.lastMessageSeq) as HostMessage[]
      const source = promptText(messages)
      const needed = options.needed.filter((exact) => source.includes(exact))
      const record = extractCanonicalRecord({
        compartmentId: displayId(compartment),
        messages,
        tagOf: (partId) => tags.get(partId) ?? null,
      })
      return strategySamples({ compartment, record, needed })
    })
    return { compartments: stored.length, samples }
  } finally {
    db.close()
  }
}

function strategySamples(options: { compartment: StoredCompartment; record: CanonicalRecord; needed: string[] }): Sample[] {
  const { compartment, record, needed } = options
  const canonical: Partial<Record<Tier, string>> = {}
  for (const representation of compartment.representations) {
    if (representation.strategy === "canonical-record") canonical[representation.tier] = representation.content
  }
  const cascaded = cascade(canonical, record.compartmentId)
  const oracleText = [tierHeader(record), ...needed].join("\n")
  const sample = (strategy: TierStrategy, texts: Partial<Record<Tier, string>>): Sample => ({
    strategy,
    texts: everyTier(texts),
    generated: new Set(TIERS.filter((tier) => texts[tier] !== undefined)),
    needed,
    contradictions: contradictionsOf(texts, record),
  })
  return [
    sample("canonical-record", canonical),
    sample("cascaded", cascaded),
    { strategy: "oracle", texts: { oracle: oracleText }, generated: new Set(["oracle"]), needed, contradictions: new Map() },
  ]
}

/** Every tier's text: a tier not generated shows the next less detailed one (the anchor always exists). */
function everyTier(texts: Partial<Record<Tier, string>>): Partial<Record<Tier, string>> {
  const filled: Partial<Record<Tier, string>> = {}
  let below: string | undefined
  for (const tier of [...TIERS].reverse()) {
    below = texts[tier] ?? below
    if (below !== undefined) filled[tier] = below
  }
  return filled
}

/**
 * The cascaded strategy: the most detailed tier is the canonical one; every tier below is rendered from a record
 * extracted from the text of the tier above (as if that text were the episode), the tier-from-tier chain.
 */
function cascade(canonical: Partial<Record<Tier, string>>, compartmentId: string): Partial<Record<Tier, string>> {
  const top = TIERS.find((tier) => canonical[tier] !== undefined)
  if (top === undefined) return {}
  const texts: Partial<Record<Tier, string>> = { [top]: canonical[top] }
  let above = canonical[top] as string
  for (const tier of TIERS.slice(TIERS.indexOf(top) + 1)) {
    const rendered = renderTiers(recordOfText(above, compartmentId))
    const text = rendered[tier]
    if (text === null) continue
    texts[tier] = text
    above = text
  }
  return texts
}

/** The canonical record of a text, read as one assistant message (how a cascade sees the tier above). */
function recordOfText(text: string, compartmentId: string): CanonicalRecord {
  const transcript: Transcript = {
    format: "pi",
    file: "cascade",
    trajectory: null,
    id: compartmentId,
    model: null,
    system: null,
    turns: [{ index: 0, role: "assistant", time: 0, parts: [{ type: "text", text }] }],
  }
  const builder = createHostTranscriptBuilder(transcript, "cascade")
  builder.append(transcript.turns[0] as Transcript["turns"][number])
  return extractCanonicalRecord({ compartmentId, messages: builder.snapshot(), tagOf: () => null })
}

function contradictionsOf(texts: Partial<Record<Tier, string>>, record: CanonicalRecord): Map<Tier, number> {
  const tiers = Object.fromEntries(TIERS.map((tier) => [tier, texts[tier] ?? null])) as Record<Tier, string | null>
  const counts = new Map<Tier, number>()
  for (const problem of checkCrossTierConsistency(tiers, record)) counts.set(problem.tier, (counts.get(problem.tier) ?? 0) + 1)
  return counts
}

function summarize(samples: readonly Sample[], counter: TokenCounter): TierQuality[] {
  const rows: TierQuality[] = []
  for (const strategy of TIER_STRATEGIES) {
    const own = samples.filter((sample) => sample.strategy === strategy)
    const tiers: MeasuredTier[] = strategy === "oracle" ? ["oracle"] : [...TIERS]
    const measured = tiers.flatMap((tier): TierQuality[] => {
      const having = own.filter((sample) => sample.texts[tier] !== undefined)
      if (having.length === 0) return []
      const tokens = having.reduce((sum, sample) => sum + counter.count(sample.texts[tier] as string), 0)
      const probes = having.reduce((sum, sample) => sum + sample.needed.length, 0)
      const survived = having.reduce(
        (sum, sample) => sum + sample.needed.filter((exact) => (sample.texts[tier] as string).includes(exact)).length,
        0,
      )
      const meanTokens = tokens / having.length
      const survival = probes === 0 ? null : survived / probes
      return [
        {
          strategy,
          tier,
          compartments: having.length,
          generated: having.filter((sample) => sample.generated.has(tier)).length,
          meanTokens,
          probes,
          survived,
          survival,
          survivalPer1kTokens: survival === null || meanTokens === 0 ? null : survival / (meanTokens / 1000),
          contradictions: tier === "oracle" ? 0 : own.reduce((sum, sample) => sum + (sample.contradictions.get(tier) ?? 0), 0),
          dominatedBy: null,
        },
      ]
    })
    rows.push(...withDominance(measured))
  }
  return rows
}

/** A tier is dominated when a cheaper tier of the same strategy keeps at least its survival (checked on probes). */
function withDominance(rows: readonly TierQuality[]): TierQuality[] {
  return rows.map((row) => {
    if (row.survival === null) return row
    const cheaper = rows
      .filter((other) => other !== row && other.survival !== null && other.meanTokens < row.meanTokens)
      .filter((other) => (other.survival as number) >= (row.survival as number))
      .sort((left, right) => left.meanTokens - right.meanTokens)
    return { ...row, dominatedBy: cheaper[0]?.tier ?? null }
  })
}

function tagsByPart(db: Database, sessionId: string): Map<string, number> {
  const state = loadSessionState(db, sessionId, () => 0)
  return new Map([...state.tagsByPart].map(([partId, tag]) => [partId, tag.tag]))
}

function displayId(compartment: StoredCompartment): string {
  return compartmentDisplayId(compartment.seq)
}
