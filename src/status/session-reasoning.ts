import type { Config } from "../config/schema.js"
import { resolveWindow } from "../pressure/model-window.js"
import type { Database } from "../store/driver.js"
import { newestUserModel } from "../store/status-repository.js"
import type { ReasoningStatus } from "./status-data.js"

/**
 * The reasoning rule of a stored session, for a report made without a pass of its own (a new process, the CLI): the
 * rule of the model of the session's newest user message, as the config and the table give it. Null when no stored
 * message names a model.
 */
export function storedSessionReasoning(options: {
  db: Database
  sessionId: string
  config: Config
  /** The API the host reaches a model through, where it knows (OpenCode's provider package). */
  hostApi?: (providerID: string, modelID: string) => string | null
}): Pick<ReasoningStatus, "rule" | "source" | "model"> | null {
  const model = newestUserModel(options.db, options.sessionId)
  if (!model) return null
  const window = resolveWindow({ ...model, hostLimits: null, config: options.config, hostApi: options.hostApi?.(model.providerID, model.modelID) ?? null })
  return { rule: window.reasoning, source: window.reasoningSource, model: `${model.providerID}/${model.modelID}` }
}
