/**
 * The one table of what providers require of the reasoning state a model returned (signed thinking blocks, encrypted
 * reasoning items, thought signatures) when a later request sends it back, by provider API and model family, each row
 * naming the documentation it comes from. A request that breaks one of these rules is rejected (every retry sends the
 * same history, so the user's session ends) or silently loses the model's reasoning; these rules outrank every rule
 * of the engine, the seed's timing included. Pure; imports nothing above `session/`.
 */

/** The wire API a model is reached through: what its reasoning state looks like is the API's, not the model's. */
export type ReasoningApi = "anthropic-messages" | "openai-responses" | "google-gemini" | "other"

export const REASONING_RULE_IDS = [
  "anthropic-prefix-check",
  "anthropic-thinking",
  "openai-responses-reasoning",
  "gemini-thought-signatures",
  "none",
] as const

export type ReasoningRuleId = (typeof REASONING_RULE_IDS)[number]

export type ReasoningRule = {
  id: ReasoningRuleId
  api: ReasoningApi
  /** The model ids the row covers (lower case, searched in the model id: Bedrock and Vertex wrap the name). */
  models: RegExp
  /** What survives, in a few words (`/ctx-status`, `doctor`). */
  summary: string
  /** The provider signs or encrypts the reasoning: it goes back byte-identical, and its text never leaves its message. */
  signed: boolean
  /**
   * Anthropic's preserved-thinking prefix check: a thinking block is valid only while `system`, `tools` and every
   * message before it are what they were when it was made, and no block between others is left out. A pass that
   * changes the prompt takes out every block after the change, and never changes the prefix of the running tool
   * loop's block (it waits for the turn boundary).
   */
  prefixCheck: boolean
  /**
   * Reasoning made after a change of the prompt's prefix is lost to the model (rejected, or dropped by the provider):
   * an execute pass waits for the turn boundary while a tool loop with reasoning runs, and runs at the boundary before
   * a turn that would cross the threshold. Every row with `prefixCheck` has it.
   */
  keepsPrefix: boolean
  /**
   * All of the running turn's reasoning must come back with the calls it preceded (not only the newest message's,
   * which no fold reaches anyway): a fold never cuts into that turn.
   */
  bindsRunningTurn: boolean
  /** What the provider does with a request that breaks the rule. */
  failure: string
  /** The documentation the row is taken from. */
  source: string
}

/** The rows, in the order they are tried: the first whose API and model pattern match applies. */
export const REASONING_RULES: readonly ReasoningRule[] = [
  {
    id: "anthropic-prefix-check",
    api: "anthropic-messages",
    models: /claude-(fable|mythos)-5[-.]\d|claude-(opus|sonnet|haiku)-5[-.]5/,
    summary: "signed thinking, byte-identical; a block is valid only while everything before it is unchanged",
    signed: true,
    prefixCheck: true,
    keepsPrefix: true,
    // Only the loop's last assistant message must keep its block, and the newest message is never folded.
    bindsRunningTurn: false,
    failure: "HTTP 400 invalid_request_error, or the invalid blocks dropped (thinking.block_binding.prefix_mismatch_behavior)",
    source: "https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks",
  },
  {
    id: "anthropic-thinking",
    api: "anthropic-messages",
    models: /claude/,
    summary: "signed thinking, byte-identical; a tool loop's last assistant message starts with its block",
    signed: true,
    prefixCheck: false,
    keepsPrefix: false,
    bindsRunningTurn: false,
    failure: "HTTP 400 invalid_request_error (a changed signature, or a tool loop's block missing)",
    source: "https://platform.claude.com/docs/en/build-with-claude/extended-thinking",
  },
  {
    id: "openai-responses-reasoning",
    api: "openai-responses",
    models: /./,
    summary:
      "reasoning items (encrypted when not stored) travel with the function calls they preceded; newer models drop, " +
      "silently, reasoning that follows a prefix change",
    signed: true,
    prefixCheck: false,
    keepsPrefix: true,
    bindsRunningTurn: true,
    failure: "HTTP 400 invalid_request_error (a function call without its reasoning item, or the reverse); reasoning after a prefix change dropped without an error",
    source: "https://developers.openai.com/api/docs/guides/keep-prefix-unchanged",
  },
  {
    id: "gemini-thought-signatures",
    api: "google-gemini",
    models: /gemini-([3-9]|\d\d)/,
    summary: "the thought signatures of the running turn's function calls come back",
    signed: true,
    prefixCheck: false,
    keepsPrefix: false,
    bindsRunningTurn: true,
    failure: "HTTP 400 INVALID_ARGUMENT (a function call of the running turn without its thought signature)",
    source: "https://ai.google.dev/gemini-api/docs/thought-signatures",
  },
  {
    id: "none",
    api: "other",
    models: /(?:)/,
    summary: "no reasoning state the provider checks",
    signed: false,
    prefixCheck: false,
    keepsPrefix: false,
    bindsRunningTurn: false,
    failure: "none known",
    source: "",
  },
]

/** The row named `id`. */
export function reasoningRuleById(id: ReasoningRuleId): ReasoningRule {
  return REASONING_RULES.find((rule) => rule.id === id) ?? (REASONING_RULES[REASONING_RULES.length - 1] as ReasoningRule)
}

/** The row of the `none` rule: what a transcript without a known model, and the Lab, run under. */
export const NO_REASONING_RULE: ReasoningRule = reasoningRuleById("none")

/** Where a session's rule came from: the config's per-model override, or the table by the model's API and id. */
export type ReasoningRuleSource = "config" | "table"

/**
 * The API a model is reached through: from the host's package for the provider (OpenCode's `model.api.npm`) or its
 * API name (Pi's `api`) when the host tells it, else from the provider id, else from the model id.
 */
export function reasoningApi(options: { providerID: string; modelID: string; hostApi?: string | null }): ReasoningApi {
  const hostApi = (options.hostApi ?? "").toLowerCase()
  const provider = options.providerID.toLowerCase()
  const model = options.modelID.toLowerCase()
  if (hostApi !== "") {
    const known = apiOfHostName(hostApi, model)
    if (known !== null) return known
  }
  if (provider.includes("anthropic") || ((provider.includes("bedrock") || provider.includes("vertex")) && model.includes("claude"))) {
    return "anthropic-messages"
  }
  if (provider === "openai" || provider === "openai-codex" || provider === "azure") return "openai-responses"
  if (provider === "google" || provider.includes("gemini") || provider.includes("vertex")) return "google-gemini"
  return "other"
}

/**
 * The API named by a host: an AI SDK package (`@ai-sdk/anthropic`, `@ai-sdk/openai`, ...) or a Pi API name
 * (`anthropic-messages`, `openai-responses`, `google-generative-ai`, ...); null when the name is not one of these.
 */
function apiOfHostName(name: string, model: string): ReasoningApi | null {
  if (name.includes("anthropic")) return "anthropic-messages"
  if (name.includes("bedrock")) return model.includes("claude") ? "anthropic-messages" : "other"
  if (name.includes("openai-compatible") || name.includes("openai-completions") || name.includes("chat-completions")) return "other"
  if (name.includes("openai") || name.includes("azure")) return "openai-responses"
  if (name.includes("google") || name.includes("gemini") || name.includes("vertex")) return "google-gemini"
  return null
}

/** The rule for a model reached through `api`: the first row of that API whose pattern its id matches. */
export function reasoningRuleFor(api: ReasoningApi, modelID: string): ReasoningRule {
  const model = modelID.toLowerCase()
  for (const rule of REASONING_RULES) {
    if (rule.api === api && rule.models.test(model)) return rule
  }
  return NO_REASONING_RULE
}
