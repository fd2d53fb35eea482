import { beforeEach, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { fixedWindow, type WindowSettings } from "../../src/pressure/model-window.js"
import { reasoningRuleById } from "../../src/session/reasoning-rules.js"
import type { SessionState } from "../../src/session/session-state.js"
import { serializePrompt } from "../../src/session/serialize-prompt.js"
import { queueDrops } from "../../src/store/applied-state-repository.js"
import type { Database } from "../../src/store/driver.js"
import { listPasses } from "../../src/store/pass-repository.js"
import { loadSessionState } from "../../src/store/session-repository.js"
import { statement } from "../../src/store/statements.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  memoryStore,
  passAndRender,
  reasoning,
  sessionState,
  storedContentJson,
  allParts,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"
import { tokCounter, toks } from "../helpers/pure-session.js"

/**
 * Passes under Anthropic's preserved-thinking prefix check, measured with the "tok" counter in a 100k window with a 5k
 * protected window (threshold 65k, force band 85k). Each assistant step starts with its thinking block, as Claude's do.
 */
const BASE_WINDOW = fixedWindow({ usableTokens: 100_000, config: { ...defaultConfig(), protected_tokens: 5_000 } })
const PREFIX_CHECK: WindowSettings = { ...BASE_WINDOW, reasoning: reasoningRuleById("anthropic-prefix-check") }
const BASE = 1_800_000_000_000

let db: Database
let state: SessionState
let clock: number

beforeEach(async () => {
  db = await memoryStore()
  state = sessionState({ db, counter: tokCounter })
  clock = BASE
})

const at = (): number => (clock += 1_000)
const user = (id: string, size: number): HostMessage => userMessage({ id, created: at(), parts: [text(`p-${id}`, toks(size))] })
/** A tool-loop step: its thinking block, then a read. */
const step = (id: string, size: number): HostMessage =>
  assistantMessage({ id: `m-${id}`, created: at(), parts: [reasoning(`t-${id}`, toks(50)), tool(id, "read", completed({ path: id }, toks(size)))] })

function pass(messages: HostMessage[], window: WindowSettings = PREFIX_CHECK, loopThinkingRequired = false) {
  const now = Math.max(...messages.map((message) => message.info.time.created)) + 1_000
  const { result, rendered } = passAndRender({ db, state, messages, counter: tokCounter, window, now, tagsVisible: true, loopThinkingRequired })
  return { result, rendered, serialized: serializePrompt(rendered) }
}

const queue = (...partIds: string[]): void => {
  const tags = partIds.map((id) => state.tagsByPart.get(id)?.tag ?? -1)
  for (const drop of queueDrops(db, state.sessionId, tags, { pass: state.nextPass - 1, now: clock })) state.queued.set(drop.tag, drop)
}

/** The reasoning parts a rendered prompt still sends, by id. */
const thinking = (rendered: readonly HostMessage[]): string[] =>
  rendered.flatMap((message) => message.parts.filter((part) => part.type === "reasoning").map((part) => part.id))

const withheldRows = () => statement(db, "SELECT id, withheld_pass FROM parts WHERE withheld_pass IS NOT NULL ORDER BY id").all([])

describe("runPass under a prefix check on thinking", () => {
  it("takes out every thinking block at or after the first change, keeps those before it, and keeps them out", () => {
    const messages = [user("u1", 1_000), step("r1", 30_000), step("r2", 30_000), user("u2", 6_000)]
    pass(messages)
    queue("r2")
    const executed = pass(messages)
    expect(executed.result).toMatchObject({ decision: "execute", dropped: [state.tagsByPart.get("r2")?.tag] })
    // r2's output changed, and so its own message's block goes (conservatively: it sits in the changed message).
    expect(thinking(executed.rendered)).toEqual(["t-r1"])
    expect(executed.result.reasoning).toEqual({ withheld: 1, tokens: 50, runningLoop: false })
    expect(withheldRows()).toEqual([{ id: "t-r2", withheld_pass: executed.result.seq }])
    expect(listPasses(db, state.sessionId, 1)[0]?.detail["reasoning"]).toEqual({ withheld: 1, tokens: 50, runningLoop: false })

    // The next turn: the model's new blocks are sent, the withheld one stays out, and the prompt only grows.
    messages.push(step("r3", 100), user("u3", 10))
    const replayed = pass(messages)
    expect(replayed.result).toMatchObject({ decision: "replay", prefixChanged: false })
    expect(thinking(replayed.rendered)).toEqual(["t-r1", "t-r3"])
    expect(replayed.serialized.startsWith(executed.serialized)).toBe(true)

    // A new process reads the withheld record from the store and renders the same prompt.
    state = loadSessionState(db, state.sessionId, () => 0)
    expect(thinking(pass(messages).rendered)).toEqual(["t-r1", "t-r3"])
    // The raw transcript keeps every block as the host stored it.
    const stored = storedContentJson(db)
    for (const part of allParts(messages)) expect(stored.get(part.id)).toBe(JSON.stringify(part))
  })

  it("withholds nothing where the provider has no prefix check", () => {
    const messages = [user("u1", 1_000), step("r1", 30_000), step("r2", 30_000), user("u2", 6_000)]
    pass(messages, BASE_WINDOW)
    queue("r1")
    const executed = pass(messages, BASE_WINDOW)
    expect(executed.result.decision).toBe("execute")
    expect(thinking(executed.rendered)).toEqual(["t-r1", "t-r2"])
    expect(executed.result.reasoning).toBeNull()
    expect(withheldRows()).toEqual([])
  })

  it("waits for the turn boundary while a tool loop runs, then executes there", () => {
    const messages = [user("u1", 1_000), step("r1", 30_000), step("r2", 30_000), user("u2", 6_000), step("r3", 100)]
    pass(messages)
    queue("r1")
    const held = pass(messages)
    expect(held.result).toMatchObject({ decision: "replay", reason: "reasoning-deferred", dropped: [] })
    expect(thinking(held.rendered)).toEqual(["t-r1", "t-r2", "t-r3"])
    // The same pass without the rule executes mid-loop.
    messages.push(step("r4", 100))
    expect(pass(messages, BASE_WINDOW).result).toMatchObject({ decision: "execute" })
  })

  it("executes at the turn boundary after a deferral, the running loop untouched before it", () => {
    const messages = [user("u1", 1_000), step("r1", 30_000), step("r2", 30_000), user("u2", 6_000), step("r3", 100)]
    pass(messages)
    queue("r1")
    expect(pass(messages).result.reason).toBe("reasoning-deferred")
    messages.push(user("u3", 10))
    const boundary = pass(messages)
    expect(boundary.result).toMatchObject({ decision: "execute", reason: "threshold-work" })
    // r1's output changed: its block and every later one go, the turn that just ended included.
    expect(thinking(boundary.rendered)).toEqual([])
    expect(boundary.result.reasoning).toMatchObject({ withheld: 3, runningLoop: false })
  })

  it("executes inside a tool loop in the force band under adaptive thinking, and says it took the running loop's thinking", () => {
    const messages = [user("u1", 1_000), step("r1", 40_000), step("r2", 40_000), user("u2", 6_000), step("r3", 100)]
    const forced = pass(messages)
    expect(forced.result).toMatchObject({ decision: "execute", band: "force" })
    expect(forced.result.reasoning?.runningLoop).toBe(true)
    expect(thinking(forced.rendered)).not.toContain("t-r3")
  })

  it.each([
    ["force", 40_000],
    ["emergency", 45_000],
  ])("waits in the %s band too where the loop's last assistant message must start with its thinking", (band, size) => {
    const messages = [user("u1", 1_000), step("r1", size), step("r2", size), user("u2", 6_000), step("r3", 100)]
    const held = pass(messages, PREFIX_CHECK, true)
    expect(held.result).toMatchObject({ decision: "replay", reason: "reasoning-deferred", band })
    expect(thinking(held.rendered)).toEqual(["t-r1", "t-r2", "t-r3"])
    messages.push(user("u3", 10))
    expect(pass(messages, PREFIX_CHECK, true).result).toMatchObject({ decision: "execute", band })
  })

  it("runs an execute pass at the turn boundary when the largest recent turn would carry usage over the threshold", () => {
    // Turns of 20k: at 56k, the next turn would end at 76k, inside the execute band, in the middle of its tool loop.
    const messages = [user("u1", 1_000), step("r1", 19_000), user("u2", 1_000), step("r2", 19_000), user("u3", 1_000), step("r3", 14_000), user("u4", 1_000)]
    pass(messages)
    queue("r1")
    const ahead = pass(messages)
    expect(ahead.result).toMatchObject({ decision: "execute", reason: "turn-lookahead", band: "below" })
    // Without the rule the pass waits for the threshold.
    const other = [user("v1", 1_000), step("s1", 19_000), user("v2", 1_000), step("s2", 19_000), user("v3", 1_000), step("s3", 14_000), user("v4", 1_000)]
    pass(other, BASE_WINDOW)
    queue("s1")
    expect(pass(other, BASE_WINDOW).result.decision).toBe("replay")
  })

  it("passes reasoning of any shape through untouched where it keeps it, and counts it", () => {
    // No signature, an empty text with one, a redacted block, metadata of a shape nobody defined.
    const odd = assistantMessage({
      id: "m-odd",
      created: at(),
      parts: [
        (owner) => ({ id: "t-nosig", ...owner, type: "reasoning", text: toks(20), time: { start: 1, end: 2 } }),
        (owner) => ({ id: "t-empty", ...owner, type: "reasoning", text: "", metadata: { anthropic: { signature: "sig" } }, time: { start: 1 } }),
        (owner) => ({ id: "t-redacted", ...owner, type: "reasoning", text: "", metadata: { anthropic: { redactedData: "opaque" } }, time: { start: 1 } }),
        (owner) => ({ id: "t-odd", ...owner, type: "reasoning", text: toks(5), metadata: { vendor: { blob: [1, { x: null }] } }, time: { start: 1 } }),
        tool("o1", "read", completed({ path: "o1" }, toks(10))),
      ],
    })
    const messages = [user("u1", 100), odd, user("u2", 10)]
    const { result, rendered } = pass(messages)
    expect(rendered[1]?.parts.slice(0, 4)).toEqual(odd.parts.slice(0, 4))
    expect(result.breakdown.total).toBe(100 + 20 + 5 + 10 + 10)
  })

  it("after a rejection over reasoning, executes and withholds every block whatever the rule, then keeps them out", () => {
    const messages = [user("u1", 1_000), step("r1", 100), step("r2", 100), user("u2", 10)]
    pass(messages, BASE_WINDOW)
    const now = Math.max(...messages.map((message) => message.info.time.created)) + 1_000
    const recovered = passAndRender({ db, state, messages, counter: tokCounter, window: BASE_WINDOW, now, withholdAllReasoning: true })
    expect(recovered.result).toMatchObject({ decision: "execute", reason: "reasoning-recovery" })
    expect(thinking(recovered.rendered)).toEqual([])
    expect(recovered.result.reasoning).toMatchObject({ withheld: 2, tokens: 100 })
    messages.push(step("r3", 100), user("u3", 10))
    const next = pass(messages, BASE_WINDOW)
    expect(next.result).toMatchObject({ decision: "replay", prefixChanged: false })
    expect(thinking(next.rendered)).toEqual(["t-r3"])
  })

  it("withholds a prefix-check model's blocks after the change while another model runs, and only those", () => {
    const by = (message: HostMessage, modelID: string): HostMessage =>
      message.info.role === "assistant" ? { ...message, info: { ...message.info, providerID: "anthropic", modelID } } : message
    // Two turns on a prefix-check model, then a turn on one without the check, whose window this pass runs in.
    const messages = [user("u1", 1_000), by(step("r1", 30_000), "claude-opus-5-5"), by(step("r2", 30_000), "claude-opus-5-5"), user("u2", 10), by(step("r3", 100), "claude-sonnet-4-6"), user("u3", 6_000)]
    const sonnet: WindowSettings = { ...BASE_WINDOW, reasoning: reasoningRuleById("anthropic-thinking") }
    const ruleOf = (_provider: string, model: string) => reasoningRuleById(model === "claude-opus-5-5" ? "anthropic-prefix-check" : "anthropic-thinking")
    const run = () => {
      const now = Math.max(...messages.map((message) => message.info.time.created)) + 1_000
      return passAndRender({ db, state, messages, counter: tokCounter, window: sonnet, now, reasoningRuleOf: ruleOf })
    }
    run()
    queue("r1")
    const executed = run()
    expect(executed.result.decision).toBe("execute")
    // r1's output changed: the prefix-check model's blocks from there on go; the other model's block stays.
    expect(thinking(executed.rendered)).toEqual(["t-r3"])
    expect(executed.result.reasoning).toMatchObject({ withheld: 2 })
  })

  it("holds execute passes for the turn boundary where the provider drops reasoning after a prefix change, withholding none", () => {
    const openai: WindowSettings = { ...BASE_WINDOW, reasoning: reasoningRuleById("openai-responses-reasoning") }
    const messages = [user("u1", 1_000), step("r1", 30_000), step("r2", 30_000), user("u2", 6_000), step("r3", 100)]
    pass(messages, openai)
    queue("r1")
    expect(pass(messages, openai).result).toMatchObject({ decision: "replay", reason: "reasoning-deferred" })
    messages.push(user("u3", 10))
    const boundary = pass(messages, openai)
    expect(boundary.result).toMatchObject({ decision: "execute", reasoning: null })
    expect(thinking(boundary.rendered)).toEqual(["t-r1", "t-r2", "t-r3"])
  })

  it("withholds the blocks after a change the host made between two replay passes, and keeps them out", () => {
    const messages = [user("u1", 100), step("r1", 100), step("r2", 100), user("u2", 10)]
    pass(messages)
    // The host clears an earlier tool output in its own copy (OpenCode's prune): the prompt changes in r2's message.
    const pruned = messages.map((message) =>
      message.info.id === "m-r2" ? { ...message, parts: message.parts.map((part) => (part.type === "tool" && part.state.status === "completed" ? { ...part, state: { ...part.state, output: "[Old tool result content cleared]" } } : part)) } : message,
    )
    const after = pass(pruned)
    expect(after.result.decision).toBe("replay")
    expect(after.result.reasoning).toMatchObject({ withheld: 1 })
    expect(thinking(after.rendered)).toEqual(["t-r1"])
    expect(withheldRows()).toEqual([{ id: "t-r2", withheld_pass: after.result.seq }])
    pruned.push(step("r3", 10), user("u3", 10))
    const next = pass(pruned)
    expect(next.result.prefixChanged).toBe(false)
    expect(thinking(next.rendered)).toEqual(["t-r1", "t-r3"])
  })
})

