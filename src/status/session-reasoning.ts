import type { Config } from "../config/schema.js"
import { resolveWindow, type WindowSettings } from "../pressure/model-window.js"
import type { Database } from "../store/driver.js"
import { newestUserModel } from "../store/status-repository.js"
import type { CostPricing, ReasoningStatus } from "./status-data.js"

/** Where a report made without a pass of its own reads the session's model settings. */
type StoredSession = {
  db: Database
  sessionId: string
  config: Config
  /** The API the host reaches a model through, where it knows (OpenCode's provider package). */
  hostApi?: (providerID: string, modelID: string) => string | null
}

/**
 * The reasoning rule of a stored session, for a report made without a pass of its own (a new process, the CLI): the
 * rule of the model of the session's newest user message, as the config and the table give it. Null when no stored
 * message names a model.
 */
export function storedSessionReasoning(options: StoredSession): Pick<ReasoningStatus, "rule" | "source" | "model"> | null {
  const stored = storedModelWindow(options)
  if (!stored) return null
  return { rule: stored.window.reasoning, source: stored.window.reasoningSource, model: stored.model }
}

/** The price list of a stored session's model (as `storedSessionReasoning` finds the model), or null. */
export function storedSessionPricing(options: StoredSession): CostPricing | null {
  const stored = storedModelWindow(options)
  return stored ? windowPricing(stored.window, stored.model) : null
}

/** The prices a pass's window ran under, for the cost lines of the report. */
export function windowPricing(window: WindowSettings, model: string | null): CostPricing {
  return { prices: { ...window.priceList, prices: window.prices }, cacheTtlMs: window.cacheTtlMs, model }
}

/** The window of the model of the session's newest user message ("provider/model"), or null when none names one. */
function storedModelWindow(options: StoredSession): { window: WindowSettings; model: string } | null {
  const model = newestUserModel(options.db, options.sessionId)
  if (!model) return null
  const window = resolveWindow({ ...model, hostLimits: null, config: options.config, hostApi: options.hostApi?.(model.providerID, model.modelID) ?? null })
  return { window, model: `${model.providerID}/${model.modelID}` }
}
