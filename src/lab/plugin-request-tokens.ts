import { AGENT_TOOL_TEXTS, REDUCE_GUIDANCE, type AgentToolText } from "../reduce/agent-texts.js"
import type { TokenCounter } from "../tokens/token-counter.js"

/**
 * The tokens magic-context adds to every request of an agent that has its tools, which the host alone does not
 * send: the reduce guidance in the system prompt and each tool's definition as a provider receives it (a JSON schema
 * with one string argument). They sit in the request's fixed part, before any message, so after the first call they
 * are read from the cache like the rest of the system prompt.
 */
export function pluginRequestTokens(counter: TokenCounter): number {
  return counter.count(REDUCE_GUIDANCE) + AGENT_TOOL_TEXTS.reduce((sum, tool) => sum + counter.count(toolDefinition(tool)), 0)
}

function toolDefinition(tool: AgentToolText): string {
  const { name, description, argument } = tool
  const properties = { [argument.name]: { type: "string", description: argument.description } }
  return JSON.stringify({ name, description, input_schema: { type: "object", properties, required: [argument.name] } })
}
