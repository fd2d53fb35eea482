/**
 * Usage of the window for the request a pass renders. The token counter gives the rendered messages plus the
 * fixed prompt (system prompt and tool definitions); where the provider has reported the prompt size of an
 * earlier request, the difference between that report and our estimate for the same request (the calibration:
 * tokenizer drift, provider-side overhead) is added, so the provider's usage is the truth where it exists.
 */
export function estimateUsage(options: { promptTokens: number; calibrationTokens: number }): number {
  return Math.max(0, options.promptTokens + options.calibrationTokens)
}

/** The prompt tokens a provider reported for an assistant message (input plus cache reads and writes). */
export function reportedPromptTokens(tokens: { input: number; cache: { read: number; write: number } } | undefined): number {
  if (!tokens) return 0
  return tokens.input + tokens.cache.read + tokens.cache.write
}
