import type { ModelLimits } from "../pressure/model-window.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { contentHash } from "../transcript/content-hash.js"

/**
 * What the plugin learns about the host from hooks other than the transform: model limits (from `chat.params`
 * or the provider list), the system prompt (from `experimental.chat.system.transform`) and the tool definitions
 * (from `tool.definition`), each counted once per distinct content.
 */
export type HostFacts = {
  rememberLimits(providerID: string, modelID: string, limits: ModelLimits): void
  limitsFor(providerID: string, modelID: string): ModelLimits | null
  /** The API the host reaches a model through (OpenCode's `model.api.npm`), for its reasoning rule. */
  rememberApi(providerID: string, modelID: string, api: string): void
  apiFor(providerID: string, modelID: string): string | null
  rememberSystem(sessionId: string, system: readonly string[], counter: TokenCounter): void
  rememberToolDefinition(toolID: string, text: string, counter: TokenCounter): void
  /**
   * Whether the session's requests ask for manual extended thinking (`thinking.type: "enabled"`, under which a tool
   * loop's last assistant message must start with its thinking block), as the host's request options last said.
   */
  rememberThinking(sessionId: string, type: string | null): void
  loopThinkingRequired(sessionId: string): boolean
  /** System prompt (last seen for the session) plus tool definitions. */
  fixedTokens(sessionId: string): number
  /** Drops what the facts hold for one session (its system prompt, how it thinks); models and tools stay. */
  forgetSession(sessionId: string): void
  hostConfig: unknown
}

/** Creates an empty fact store. */
export function createHostFacts(): HostFacts {
  const limits = new Map<string, ModelLimits>()
  const apis = new Map<string, string>()
  const manualThinking = new Set<string>()
  const systems = new Map<string, { hash: string; tokens: number }>()
  const tools = new Map<string, { hash: string; tokens: number }>()
  return {
    hostConfig: undefined,
    rememberLimits(providerID, modelID, value) {
      if (value.context > 0) limits.set(`${providerID}/${modelID}`, value)
    },
    limitsFor(providerID, modelID) {
      return limits.get(`${providerID}/${modelID}`) ?? null
    },
    rememberApi(providerID, modelID, api) {
      if (api !== "") apis.set(`${providerID}/${modelID}`, api)
    },
    apiFor(providerID, modelID) {
      return apis.get(`${providerID}/${modelID}`) ?? null
    },
    rememberThinking(sessionId, type) {
      if (type === "enabled") manualThinking.add(sessionId)
      else manualThinking.delete(sessionId)
    },
    loopThinkingRequired: (sessionId) => manualThinking.has(sessionId),
    rememberSystem(sessionId, system, counter) {
      const text = system.join("\n")
      const hash = contentHash(text)
      if (systems.get(sessionId)?.hash === hash) return
      systems.set(sessionId, { hash, tokens: counter.count(text) })
    },
    rememberToolDefinition(toolID, text, counter) {
      const hash = contentHash(text)
      if (tools.get(toolID)?.hash === hash) return
      tools.set(toolID, { hash, tokens: counter.count(text) })
    },
    fixedTokens(sessionId) {
      const toolTokens = [...tools.values()].reduce((sum, entry) => sum + entry.tokens, 0)
      return (systems.get(sessionId)?.tokens ?? 0) + toolTokens
    },
    forgetSession(sessionId) {
      systems.delete(sessionId)
      manualThinking.delete(sessionId)
    },
  }
}
