import { passCachesOf } from "../helpers/pass-caches-of.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { reduceContextOf } from "../../src/pass/queue-reduce-call.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { createTokenCounterPool, type TokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import type { TokenCounter } from "../../src/tokens/token-counter.js"
import {
  assistantMessage,
  completed,
  memoryStore,
  passAndRender,
  ROOMY_WINDOW,
  running,
  sessionState,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"

let pool: TokenCounterPool
let counter: TokenCounter

beforeAll(() => {
  pool = createTokenCounterPool()
  counter = pool.counterFor("o200k_base")
})

afterAll(() => {
  pool.dispose()
})

/** Every object reachable from `root` through data properties (getters are not called), array items, Map and Set entries. */
function reachable(root: unknown): Set<object> {
  const seen = new Set<object>()
  const queue: unknown[] = [root]
  while (queue.length > 0) {
    const value = queue.pop()
    if (value === null || (typeof value !== "object" && typeof value !== "function") || seen.has(value)) continue
    seen.add(value)
    if (value instanceof Map) for (const [key, entry] of value) queue.push(key, entry)
    if (value instanceof Set) for (const entry of value) queue.push(entry)
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key)
      if (descriptor && "value" in descriptor) queue.push(descriptor.value)
    }
  }
  return seen
}

/** The host's objects a copy is made of: the list, its messages, their infos, parts and tool states. */
function hostObjects(messages: readonly HostMessage[]): object[] {
  return [messages, ...messages.flatMap((message) => [message, message.info, ...message.parts, ...message.parts.flatMap((part) => (part.type === "tool" ? [part.state] : []))])]
}

describe("runPass and the host's copy", () => {
  it("keeps none of the host's messages, parts or tool states once the pass is done", async () => {
    const db = await memoryStore()
    const state = sessionState({ db, counter })
    const messages = (): HostMessage[] => [
      userMessage({ id: "u1", parts: [text("u1t", "read the config loader")] }),
      assistantMessage({ id: "a1", parts: [text("a1t", "Reading it."), tool("a1r", "read", completed({ filePath: "src/config.ts" }, "export const a = 1\n".repeat(40)))] }),
      userMessage({ id: "u2", parts: [text("u2t", "now run the tests")] }),
      assistantMessage({ id: "a2", parts: [tool("a2b", "bash", running({ command: "npm test" }))] }),
    ]
    // Two passes: the second finds every message's entry by position, as a host's next call does.
    passAndRender({ db, state, messages: messages(), counter })
    const { result, rendered } = passAndRender({ db, state, messages: messages(), counter })
    const caches = passCachesOf(state)
    const kept = reachable([state, caches, reduceContextOf(result, ROOMY_WINDOW, rendered)])
    const held = hostObjects(rendered).filter((object) => kept.has(object))
    expect(held).toEqual([])
    // The walk does reach the session's memo (it would see an entry's host message if one were kept).
    expect(kept.has(caches.memo.list[0] as object)).toBe(true)
  })
})
