import type { Encoding } from "./token-counter.js"

export type TokenizerSettings = {
  /** `auto` picks by model family; a name forces that encoding for every model. */
  encoding: "auto" | Encoding
  /** Overrides by model pattern (`provider/model` or `model`, `*` wildcards), checked before the family rules. */
  models: Record<string, Encoding>
}

/** Model families whose tokenizer tiktoken ships, most specific first. */
const FAMILY_RULES: readonly { pattern: RegExp; encoding: Encoding }[] = [
  { pattern: /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|codex)/, encoding: "o200k_base" },
  { pattern: /^(gpt-4|gpt-3\.5|gpt-35|text-embedding)/, encoding: "cl100k_base" },
]

/**
 * The encoding to count a model's tokens with. Models whose tokenizer is not public (Claude, Gemini, Llama, ...)
 * get o200k_base as an approximation; the provider's reported usage corrects it where it exists.
 */
export function encodingForModel(options: { providerID?: string; modelID?: string; settings: TokenizerSettings }): Encoding {
  const { settings } = options
  if (settings.encoding !== "auto") return settings.encoding
  const modelID = (options.modelID ?? "").toLowerCase()
  const qualified = options.providerID ? `${options.providerID.toLowerCase()}/${modelID}` : modelID
  for (const [pattern, encoding] of Object.entries(settings.models)) {
    const matcher = wildcardToRegExp(pattern.toLowerCase())
    if (matcher.test(qualified) || matcher.test(modelID)) return encoding
  }
  const bareModel = modelID.includes("/") ? modelID.slice(modelID.lastIndexOf("/") + 1) : modelID
  return FAMILY_RULES.find((rule) => rule.pattern.test(bareModel))?.encoding ?? "o200k_base"
}

function wildcardToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")
  return new RegExp(`^${escaped}$`)
}
