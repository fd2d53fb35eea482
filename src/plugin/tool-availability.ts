import { isJsonObject } from "../config/json-path.js"
import { REDUCE_TOOL } from "../reduce/agent-texts.js"

/**
 * Whether an agent can call ctx_reduce, read from OpenCode's merged config (captured by the `config` hook) the
 * way OpenCode filters tools: the agent's `permission` (then the global one) denying `ctx_reduce` or `"*"`
 * without allowing `ctx_reduce`, the agent's (or the global) legacy `tools.ctx_reduce: false`, or the prompt's own
 * `tools.ctx_reduce: false`. An agent without the tool sees no tags, no reduce guidance and no reminders.
 */
export function reduceToolAvailable(options: {
  hostConfig: unknown
  agent: string | undefined
  promptTools: Record<string, boolean> | undefined
}): boolean {
  if (options.promptTools?.[REDUCE_TOOL] === false) return false
  const config = isJsonObject(options.hostConfig) ? options.hostConfig : {}
  const agents = isJsonObject(config["agent"]) ? config["agent"] : {}
  const agent = options.agent && isJsonObject(agents[options.agent]) ? (agents[options.agent] as Record<string, unknown>) : {}
  const tools = isJsonObject(agent["tools"]) ? agent["tools"] : {}
  if (tools[REDUCE_TOOL] === false) return false
  const globalTools = isJsonObject(config["tools"]) ? config["tools"] : {}
  if (tools[REDUCE_TOOL] !== true && globalTools[REDUCE_TOOL] === false) return false
  const agentVerdict = permissionVerdict(agent["permission"])
  if (agentVerdict !== null) return agentVerdict
  return permissionVerdict(config["permission"]) ?? true
}

/** allow/deny for ctx_reduce from one permission object, or null when it says nothing about it. */
function permissionVerdict(permission: unknown): boolean | null {
  if (typeof permission === "string") return permission !== "deny"
  if (!isJsonObject(permission)) return null
  const own = permission[REDUCE_TOOL]
  if (typeof own === "string") return own !== "deny"
  const all = permission["*"]
  if (typeof all === "string") return all !== "deny"
  return null
}
