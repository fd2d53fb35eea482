import { messageText, type ChatRequest, type MockReply } from "../../test/e2e/harness/mock-model-server.js"
import { stepFile, type PiScenario } from "./pi-scenarios.js"
import type { ReduceStyle } from "./reduce-style.js"

/** Finished reads the cooperative agent keeps when it drops the rest, and how often (in steps) it drops. */
export const KEEP = 3
export const REDUCE_EVERY = 6

/** The mock's usage for a request: a quarter of its messages' characters (Pi's own estimate is the same rule). */
export const promptTokensOf = (request: ChatRequest): number => Math.round(JSON.stringify(request.messages).length / 4)

export const isCompaction = (request: ChatRequest): boolean =>
  request.messages.some((message) => message.role === "system" && messageText(message).includes("context summarization assistant"))

/** The step a request asks for: one past the newest file read it shows (read calls name `sNN.txt`). */
export function nextStep(request: ChatRequest): number {
  let newest = 0
  for (const message of request.messages) {
    for (const call of message.tool_calls ?? []) {
      const found = /s(\d+)\.txt/.exec(call.function.arguments)
      if (found) newest = Math.max(newest, Number(found[1]))
    }
  }
  return newest + 1
}

/** The tags of finished reads still in the prompt, oldest first (their results start with `§N§ `). */
export function liveReadTags(request: ChatRequest): number[] {
  return request.messages.flatMap((message) => {
    if (message.role !== "tool") return []
    const found = /^§(\d+)§ /.exec(messageText(message))
    return found && messageText(message).includes("-BEGIN") ? [Number(found[1])] : []
  })
}

/** The scripted agent: the mock's script, and `startTurn` to call before each user turn with its last read. */
export type PiAgent = { script: (request: ChatRequest) => MockReply; startTurn(lastRead: number): void }

/** The user turns of a scenario: each one's last read, `readsPerTurn` apart, the last at `steps`. */
export function turnEnds(scenario: PiScenario): number[] {
  const ends: number[] = []
  for (let end = scenario.readsPerTurn; end < scenario.steps; end += scenario.readsPerTurn) ends.push(end)
  return [...ends, scenario.steps]
}

/** The prompt of the user turn that ends with read `lastRead`. */
export function turnPrompt(lastRead: number, scenario: PiScenario): string {
  const first = lastRead - scenario.readsPerTurn + 1
  return lastRead === scenario.steps && first <= 1
    ? "Read s01.txt to the last file, one at a time."
    : `Read ${stepFile(Math.max(1, first))} to ${stepFile(lastRead)}, one at a time.`
}

/**
 * The scripted agent: one read per call until the turn's last file, then a text answer. A prompt over the window is
 * refused as a real provider would (Pi then compacts and retries); Pi's compaction request gets a short summary. A
 * `cooperative` agent drops every finished read but the newest KEEP with ctx_reduce every REDUCE_EVERY steps:
 * batched, beside that step's read (no call once the turn's files are read: the answer is text); alone, as a
 * response of its own before the read.
 */
export function piScript(options: { scenario: PiScenario; cooperative: boolean; style: ReduceStyle }): PiAgent {
  const { scenario, cooperative, style } = options
  const reducedAt = new Set<number>()
  let lastRead = scenario.steps
  const script = (request: ChatRequest): MockReply => {
    const promptTokens = promptTokensOf(request)
    if (promptTokens > scenario.contextWindow) return { kind: "overflow", contextWindow: scenario.contextWindow, promptTokens }
    if (isCompaction(request)) return { kind: "text", text: "## Goal\nRead the files.\n## Progress\nRead the earlier files.", promptTokens }
    const step = nextStep(request)
    const tags = liveReadTags(request)
    const read = { name: "read", args: { path: stepFile(step) } }
    const reduceDue = cooperative && step > 1 && (step - 1) % REDUCE_EVERY === 0 && !reducedAt.has(step) && tags.length > KEEP
    if (reduceDue && (style === "alone" || step <= lastRead)) {
      reducedAt.add(step)
      const reduce = { name: "ctx_reduce", args: { drop: tags.slice(0, -KEEP).join(",") } }
      if (style === "alone") return { kind: "tool", ...reduce, promptTokens }
      return { kind: "tools", calls: [reduce, read], promptTokens }
    }
    if (step > lastRead) return { kind: "text", text: lastRead < scenario.steps ? "TURN-DONE" : "THREE-WAYS-DONE", promptTokens }
    return { kind: "tool", ...read, promptTokens }
  }
  return {
    script,
    startTurn: (end) => {
      lastRead = end
    },
  }
}
