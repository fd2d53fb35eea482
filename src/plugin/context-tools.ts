import type { ToolDefinition } from "@opencode-ai/plugin"
import { callContextTool, type ContextTool } from "../host/context-tool.js"
import { EXPAND_CALL } from "../host/expand-call.js"
import type { HostRuntime } from "../host/host-runtime.js"
import { PIN_CALL } from "../host/pin-call.js"
import { REDUCE_CALL } from "../host/reduce-call.js"
import type { SessionInfo } from "../store/session-repository.js"

/** An OpenCode session as the tools' calls name it (the hooks fill in the project when they first see it). */
export function openCodeSession(id: string): SessionInfo {
  return { id, source: "opencode", projectId: null, directory: null, title: null }
}

/**
 * A context tool as OpenCode registers it. Its argument is plain JSON Schema rather than a zod schema: OpenCode
 * converts zod args with its own zod copy, which need not be the version this package ships; with JSON Schema it
 * passes the argument through and the call validates it (OPENCODE-NOTES §1.6).
 */
function openCodeTool(runtime: HostRuntime, tool: ContextTool): ToolDefinition {
  return {
    description: tool.description,
    args: { [tool.argument.name]: { type: "string", description: tool.argument.description } } as unknown as ToolDefinition["args"],
    execute: (args, context) => callContextTool(tool, runtime, openCodeSession(context.sessionID), args),
  }
}

export const createReduceTool = (runtime: HostRuntime): ToolDefinition => openCodeTool(runtime, REDUCE_CALL)
export const createExpandTool = (runtime: HostRuntime): ToolDefinition => openCodeTool(runtime, EXPAND_CALL)
export const createPinTool = (runtime: HostRuntime): ToolDefinition => openCodeTool(runtime, PIN_CALL)
