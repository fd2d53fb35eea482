import { messageText, toolCallId } from "../../test/e2e/harness/mock-model-server.js"
import { TAG_PREFIX } from "../../test/e2e/harness/prompt-inspection.js"
import type { ConfigurationRun } from "./run-configuration.js"

/** One ctx_reduce call of the cooperative agent and what magic-context answered. */
export type ReduceCall = {
  /** The request the call answered (the mock's count over all requests). */
  n: number
  drop: string
  /** The tool result as the next main request carries it (tag prefix removed), or null when none came. */
  answer: string | null
}

/** The cooperative agent's ctx_reduce calls in order, each with magic-context's answer. */
export function reduceCalls(run: ConfigurationRun): ReduceCall[] {
  return run.requests.flatMap(({ answered }) => {
    if (answered.reduceDrop === null) return []
    const id = toolCallId(answered.n)
    const result = run.requests
      .filter((request) => request.answered.kind === "main" && request.answered.n > answered.n)
      .flatMap((request) => request.body.messages)
      .find((message) => message.role === "tool" && message.tool_call_id === id)
    const answer = result ? messageText(result).replace(TAG_PREFIX, "") : null
    return [{ n: answered.n, drop: answered.reduceDrop, answer }]
  })
}
