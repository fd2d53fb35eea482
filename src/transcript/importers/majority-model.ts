import type { ModelRef } from "../turn-model.js"

/** The model that appears most often (one entry per assistant turn); ties go to the one seen first. */
export function pickMajorityModel(models: ReadonlyArray<ModelRef>): ModelRef | null {
  const counts = new Map<string, { model: ModelRef; count: number }>()
  for (const model of models) {
    const key = `${model.providerID}\u0000${model.modelID}`
    const entry = counts.get(key)
    if (entry === undefined) {
      counts.set(key, { model, count: 1 })
      continue
    }
    entry.count += 1
  }
  let best: { model: ModelRef; count: number } | null = null
  for (const entry of counts.values()) {
    if (best === null || entry.count > best.count) best = entry
  }
  return best === null ? null : { providerID: best.model.providerID, modelID: best.model.modelID }
}
