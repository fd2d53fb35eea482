import { listCompartments } from "../store/compartment-repository.js"
import type { Database } from "../store/driver.js"

/**
 * What producing a run's representations cost and what they stand for: the compartments cut, the representations
 * stored and their tokens, the source tokens they cover, and the model tokens spent generating them (0 for the
 * canonical record, which needs no model; the Lab never calls a model).
 */
export type GenerationCost = {
  compartments: number
  representations: number
  representationTokens: number
  sourceTokens: number
  modelTokens: number
}

export const NO_GENERATION: GenerationCost = {
  compartments: 0,
  representations: 0,
  representationTokens: 0,
  sourceTokens: 0,
  modelTokens: 0,
}

/** The generation cost of one replayed session, read from its store. */
export function generationCost(db: Database, sessionId: string): GenerationCost {
  const compartments = listCompartments(db, sessionId)
  const representations = compartments.flatMap((compartment) => compartment.representations)
  return {
    compartments: compartments.length,
    representations: representations.length,
    representationTokens: representations.reduce((sum, representation) => sum + representation.tokens, 0),
    sourceTokens: compartments.reduce((sum, compartment) => sum + compartment.sourceTokens, 0),
    modelTokens: 0,
  }
}

/** Costs of several runs taken together. */
export function addGenerationCosts(costs: readonly GenerationCost[]): GenerationCost {
  return costs.reduce(
    (sum, cost) => ({
      compartments: sum.compartments + cost.compartments,
      representations: sum.representations + cost.representations,
      representationTokens: sum.representationTokens + cost.representationTokens,
      sourceTokens: sum.sourceTokens + cost.sourceTokens,
      modelTokens: sum.modelTokens + cost.modelTokens,
    }),
    NO_GENERATION,
  )
}
