import type { ReasoningRule } from "../session/reasoning-rules.js"

/**
 * A provider's rejection of a request over the reasoning state it carried, recognised from the error the host
 * reports: Anthropic's thinking-block errors (a changed or misplaced block, the preserved-thinking prefix check),
 * OpenAI's reasoning items without their calls (or the reverse), Gemini's function calls without their thought
 * signatures. Every retry sends the same history, so the user must hear what happened and what to do.
 */
const REASONING_ERRORS: readonly RegExp[] = [
  /`?(redacted_)?thinking`? block/i,
  /bound to a different conversation/i,
  /Invalid `?signature`?/i,
  /must start with a thinking block/i,
  /thought_?signature|thought signature/i,
  /'reasoning' item|of type 'reasoning'|required 'reasoning'/i,
]

/** The longest part of a provider's message the report repeats. */
const MESSAGE_CHARS = 400

/** True when a provider's error message is about the reasoning state of the request. */
export function isReasoningRejection(message: string): boolean {
  return REASONING_ERRORS.some((pattern) => pattern.test(message))
}

/** What the report says of such a rejection: what the provider said, the rule in force, the last pass, what to do. */
export function explainReasoningRejection(options: {
  message: string
  status: number | null
  rule: ReasoningRule | null
  /** magic-context's last pass for the session in this process (null: none). */
  lastPass: number | null
}): string {
  const { message, rule } = options
  const said = message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}...` : message
  const ruleText = rule ? `the rule magic-context applied: ${rule.id} (${rule.summary})` : "no pass of magic-context had run for it in this process"
  const pass = options.lastPass === null ? "magic-context had not rendered it" : `magic-context's last pass was #${options.lastPass} (/ctx-status says what it changed)`
  const fix =
    rule === null || rule.id === "none"
      ? 'if this model checks its reasoning, name its rule in magic-context.jsonc (models: { "<provider/model>": { reasoning: "<rule>" } }) and start a new session'
      : "start a new session (the stored transcript keeps everything: magic-context status --session <id>), and report this with the message above"
  return `the provider rejected a request over its reasoning state${options.status === null ? "" : ` (HTTP ${options.status})`}: "${said}"; ${ruleText}; ${pass}. What to do: ${fix}.`
}
