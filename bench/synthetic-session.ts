import type { HostMessage } from "../src/transcript/host-message.js"

/**
 * A deterministic synthetic OpenCode session: each exchange is a user message, an assistant message with a text
 * part and a tool call (read, bash or grep, with outputs of realistic and varied size), so `messageCount`
 * messages hold roughly the mix of a real coding session.
 */
export function syntheticSession(options: { messageCount: number; sessionID?: string }): HostMessage[] {
  const sessionID = options.sessionID ?? "ses_bench"
  const messages: HostMessage[] = []
  let seed = 12345
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
  const words = ["config", "render", "session", "token", "cache", "prefix", "parse", "error", "module", "export", "const", "return"]
  const prose = (count: number): string =>
    Array.from({ length: count }, () => words[Math.floor(random() * words.length)]).join(" ")
  for (let index = 0; messages.length < options.messageCount; index += 1) {
    const userId = `msg_u${String(index).padStart(6, "0")}`
    messages.push({
      info: { id: userId, sessionID, role: "user", time: { created: index * 1000 }, agent: "build", model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" } },
      parts: [{ id: `prt_u${index}`, sessionID, messageID: userId, type: "text", text: prose(20 + Math.floor(random() * 60)) }],
    })
    if (messages.length >= options.messageCount) break
    const assistantId = `msg_a${String(index).padStart(6, "0")}`
    const tool = (["read", "bash", "grep"] as const)[index % 3] ?? "read"
    const outputWords = tool === "read" ? 400 + Math.floor(random() * 1600) : 50 + Math.floor(random() * 400)
    messages.push({
      info: {
        id: assistantId,
        sessionID,
        role: "assistant",
        time: { created: index * 1000 + 500, completed: index * 1000 + 900 },
        parentID: userId,
        modelID: "claude-sonnet-4-5",
        providerID: "anthropic",
        mode: "build",
        path: { cwd: "/repo", root: "/repo" },
        cost: 0,
        tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      },
      parts: [
        { id: `prt_a${index}_t`, sessionID, messageID: assistantId, type: "text", text: prose(30 + Math.floor(random() * 90)) },
        {
          id: `prt_a${index}_c`,
          sessionID,
          messageID: assistantId,
          type: "tool",
          callID: `call_${index}`,
          tool,
          state: {
            status: "completed",
            input: { filePath: `/repo/src/file-${index}.ts` },
            output: prose(outputWords),
            title: tool,
            metadata: {},
            time: { start: index * 1000 + 600, end: index * 1000 + 800 },
          },
        },
      ],
    })
  }
  return messages
}

/** How `freshCopies` copies: "json" (the default) or "clone" (`BENCH_COPY`). */
export const COPY_MODE = process.env["BENCH_COPY"] ?? "json"
if (COPY_MODE !== "json" && COPY_MODE !== "clone") throw new Error(`BENCH_COPY is "${COPY_MODE}": expected "json" (the default) or "clone"`)

/**
 * Fresh copies, as OpenCode hands them to the transform on every call: it reads the session from its database each
 * step, so every string is a new one too. Bun's `structuredClone` shares the strings with the original (Node's copies
 * them); `BENCH_COPY=clone` makes the copies that way.
 */
export function freshCopies(messages: readonly HostMessage[]): HostMessage[] {
  if (COPY_MODE === "clone") return structuredClone(messages) as HostMessage[]
  return JSON.parse(JSON.stringify(messages)) as HostMessage[]
}

/**
 * `BENCH_GC=1`: a full collection before every call, outside the timing, so peak RSS measures what is live and what a
 * call allocates rather than when the collector last ran (the old copies' garbage dominated Bun's peaks and varied
 * by hundreds of MB between runs). The timed calls then also leave their garbage to the next collection.
 */
export const COLLECT_BETWEEN_CALLS = process.env["BENCH_GC"] === "1"

export function collectBetweenCalls(): void {
  if (!COLLECT_BETWEEN_CALLS) return
  const bun = (globalThis as { Bun?: { gc(full: boolean): void } }).Bun
  if (bun) bun.gc(true)
  else if (typeof globalThis.gc === "function") globalThis.gc()
  else throw new Error("BENCH_GC=1 needs a full collection: run node with --expose-gc")
}

/** The passthrough hook's work: every part's id read (a plugin that looks at nothing cannot do less). Returns the count. */
export function walkParts(messages: readonly HostMessage[]): number {
  let parts = 0
  for (const message of messages) for (const part of message.parts) parts += part.id.length > 0 ? 1 : 0
  return parts
}

/** `walkParts` timed, in ms; a session without parts is an error (its walk would time nothing). */
export function timedWalk(messages: readonly HostMessage[]): number {
  const started = performance.now()
  const parts = walkParts(messages)
  const ms = performance.now() - started
  if (parts === 0) throw new Error("empty session")
  return ms
}
