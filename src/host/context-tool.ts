import type { SessionInfo } from "../store/session-repository.js"
import type { HostRuntime } from "./host-runtime.js"

/**
 * One of the tools magic-context gives the agent (ctx_reduce, ctx_expand, ctx_pin), as every host registers it: a
 * name, a description, one string argument, and the call itself. Each host adapter turns the table into its own
 * tool definitions; the calls never see a host type.
 */
export type ContextTool = {
  name: string
  description: string
  /** The tool's one argument (a string the call parses itself: hosts differ in how they validate schemas). */
  argument: { name: string; description: string }
  /** The answer when the call failed inside magic-context (the error is recorded). */
  failure: string
  run(runtime: HostRuntime, session: SessionInfo, value: unknown): Promise<string>
}

/**
 * Runs a tool's call on the arguments the host passed. Never throws: an internal error becomes the tool's failure
 * answer and is recorded where /ctx-status shows it.
 */
export async function callContextTool(tool: ContextTool, runtime: HostRuntime, session: SessionInfo, args: unknown): Promise<string> {
  try {
    const value = args !== null && typeof args === "object" ? (args as Record<string, unknown>)[tool.argument.name] : undefined
    return await tool.run(runtime, session, value)
  } catch (error) {
    runtime.errors.record({ hook: `tool.${tool.name}`, sessionId: session.id, error })
    return tool.failure
  }
}
