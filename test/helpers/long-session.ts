import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, failed, text, tool, userMessage, type PartSpec } from "./host-messages.js"

/**
 * A deterministic long coding session for the fault suite: `messageCount` messages alternating a person and the
 * agent. Unlike the bench's generator (whose user texts repeat: 145 distinct in 10,000), every user message is
 * distinct, as in a real session: most are requests or rules of one to three sentences (each pinned verbatim), some
 * are continuations ("continue"), one in fifty is a long paste with a rule sentence inside. Each answer is a short
 * narrative and one tool call (read, bash, grep or an edit) on files that recur, with outputs of realistic size.
 * Time advances 10 s per exchange from `startedAt`.
 */
export function longSession(options: { messageCount: number; sessionID?: string; startedAt?: number }): HostMessage[] {
  const sessionID = options.sessionID ?? "ses_long"
  const startedAt = options.startedAt ?? 1_700_000_000_000
  const random = mulberry32(20_000)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const prose = (count: number): string => Array.from({ length: count }, () => pick(WORDS)).join(" ")
  const messages: HostMessage[] = []
  for (let index = 0; messages.length < options.messageCount; index += 1) {
    const created = startedAt + index * 10_000
    const module = `module-${index % 97}`
    const file = `src/${pick(FOLDERS)}/${module}.ts`
    messages.push(
      userMessage({ id: `msg_u${pad(index)}`, sessionID, created, parts: [text(`prt_u${index}`, userText(index, module, prose, random))] }),
    )
    if (messages.length >= options.messageCount) break
    messages.push(
      assistantMessage({
        id: `msg_a${pad(index)}`,
        sessionID,
        created: created + 5_000,
        parentID: `msg_u${pad(index)}`,
        parts: [text(`prt_a${index}_t`, `${prose(30 + Math.floor(random() * 90))}.`), toolCall(index, file, prose, random)],
      }),
    )
  }
  return messages
}

/** The user's words of exchange `index`: distinct, mostly a request or a rule the agent must keep. */
function userText(index: number, module: string, prose: (count: number) => string, random: () => number): string {
  if (index % 9 === 8) return "continue"
  if (index % 50 === 49) {
    const paste = Array.from({ length: 40 }, (_, line) => `${line + 1}: ${prose(8)}`).join("\n")
    return `Here is the log of run ${index}:\n${paste}\nNever restart ${module} while job ${index} is running.`
  }
  const limit = 10 + Math.floor(random() * 990)
  return `In ${module}, keep the retry limit at ${limit} for request ${index}. ${capitalized(prose(12 + Math.floor(random() * 30)))}.`
}

function toolCall(index: number, file: string, prose: (count: number) => string, random: () => number): PartSpec {
  const id = `prt_a${index}_c`
  switch (index % 4) {
    case 0:
      return tool(id, "read", completed({ filePath: `/repo/${file}` }, prose(400 + Math.floor(random() * 1600))))
    case 1:
      if (index % 12 === 5) return tool(id, "bash", failed({ command: `npm test -- ${file}` }, `Error: expected ${index} to be ${index + 1}\n${prose(40)}`))
      return tool(id, "bash", completed({ command: `npm test -- ${file}` }, `${prose(50 + Math.floor(random() * 400))}\nTests: ${index % 50} passed`))
    case 2:
      return tool(id, "grep", completed({ pattern: `retry${index % 13}` }, Array.from({ length: 6 }, (_, hit) => `/repo/${file}:${hit * 7 + 1}: ${prose(8)}`).join("\n")))
    default:
      return tool(id, "edit", completed({ filePath: `/repo/${file}`, oldString: prose(6), newString: `const retry${index} = ${index % 100}` }, "Edit applied successfully."))
  }
}

const WORDS = ["config", "render", "session", "token", "cache", "prefix", "parse", "error", "module", "export", "value", "return", "queue", "retry", "limit", "worker", "schema", "index"]
const FOLDERS = ["core", "api", "store", "cli", "jobs"]

function capitalized(sentence: string): string {
  return sentence.charAt(0).toUpperCase() + sentence.slice(1)
}

function pad(index: number): string {
  return String(index).padStart(6, "0")
}

/** A small seeded generator with exact 32-bit arithmetic (the same numbers on every machine). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296
  }
}
