/**
 * Whether the session's edits and writes really happened. Over the OpenAI-compatible API a failed tool comes back
 * as plain text (e.g. "Could not find oldString in the file…"), so success is recognised by OpenCode's success
 * wording, read from the first request that carries each result (later requests may show a plugin's placeholder).
 */

type ToolCall = { id: string; function: { name: string } }
type Message = { role: string; content?: unknown; tool_calls?: readonly ToolCall[]; tool_call_id?: string }

const SUCCESS: Readonly<Record<string, string>> = {
  edit: "Edit applied successfully",
  write: "Wrote file successfully",
}

/** Counts edit and write calls whose result, when first sent to the model, is not OpenCode's success message. */
export function countFailedEdits(requests: readonly { messages: readonly Message[] }[]): {
  calls: number
  failed: number
} {
  const toolOfCall = new Map<string, string>()
  const judged = new Set<string>()
  let calls = 0
  let failed = 0
  for (const request of requests) {
    for (const message of request.messages) {
      for (const call of message.tool_calls ?? []) toolOfCall.set(call.id, call.function.name)
      const id = message.tool_call_id
      if (message.role !== "tool" || id === undefined || judged.has(id)) continue
      judged.add(id)
      const expected = SUCCESS[toolOfCall.get(id) ?? ""]
      if (expected === undefined) continue
      calls += 1
      // magic-context puts a `§N§ ` tag before the output, hence a look near the start rather than startsWith.
      if (!contentText(message.content).slice(0, 120).includes(expected)) failed += 1
    }
  }
  return { calls, failed }
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("\n")
}
