import { describe, expect, it } from "vitest"
import { reduceStyleOf } from "../../../bench/e2e/reduce-style.js"
import { createSessionModel } from "../../../bench/e2e/session-model.js"
import type { ScriptedTurn } from "../../../bench/e2e/session-script.js"
import type { ChatMessage, ChatRequest } from "../../e2e/harness/mock-model-server.js"

const NUDGE =
  "<system-reminder>magic-context: Some older tool output could be dropped. 61% of the window is in use; " +
  'largest first: §2§ read (2.1k). Example: ctx_reduce(drop="2").</system-reminder>'

const call = (id: string, name: string): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, function: { name, arguments: "{}" } }],
})
const output = (id: string, content: string): ChatMessage => ({ role: "tool", tool_call_id: id, content })
/** A main request (it offers tools) with finished reads tagged 2, 3, 4, 5 and 6, the newest carrying `last`. */
const request = (last = ""): ChatRequest => ({
  model: "mock",
  tools: [{ function: { name: "read" } }],
  messages: [
    { role: "system", content: "S" },
    { role: "user", content: "§1§ survey" },
    ...[2, 3, 4, 5, 6].flatMap((tag) => [call(`c${tag}`, "read"), output(`c${tag}`, `§${tag}§ file ${tag}${tag === 6 && last ? `\n${last}` : ""}`)]),
  ],
})
const turns: ScriptedTurn[] = [
  {
    prompt: ["survey"],
    steps: [
      { kind: "tool", name: "read", args: { filePath: "a.ts" } },
      { kind: "text", text: "SURVEYED" },
    ],
  },
  { prompt: ["next"], steps: [{ kind: "tool", name: "bash", args: { command: "ls" } }] },
]
const tokens = { count: (elements: readonly string[]) => elements.map((element) => element.length) }

describe("createSessionModel", () => {
  it("batched: answers a reminder with ctx_reduce and the next scripted tool call in one response, taking the step", () => {
    const model = createSessionModel({ turns, tokens, cooperative: true, reduceStyle: "batched" })
    const reply = model.script(request(NUDGE), 1)
    expect(reply).toMatchObject({
      kind: "tools",
      calls: [
        { name: "ctx_reduce", args: { drop: "2-3" } },
        { name: "read", args: { filePath: "a.ts" } },
      ],
    })
    expect(model.answered()).toMatchObject([{ n: 1, step: 0, reduceDrop: "2-3" }])
  })

  it("batched: never calls ctx_reduce beside a final text; the next turn's first tool call carries it", () => {
    const model = createSessionModel({ turns, tokens, cooperative: true, reduceStyle: "batched" })
    model.script(request(), 1)
    expect(model.script(request(NUDGE), 2)).toMatchObject({ kind: "text", text: "SURVEYED" })
    model.startTurn(1)
    expect(model.script(request(NUDGE), 3)).toMatchObject({
      kind: "tools",
      calls: [{ name: "ctx_reduce" }, { name: "bash", args: { command: "ls" } }],
    })
    expect(model.answered().map((answered) => [answered.step, answered.reduceDrop])).toEqual([
      [0, null],
      [1, null],
      [0, "2-3"],
    ])
  })

  it("alone: answers a reminder with a ctx_reduce call of its own that takes no step", () => {
    const model = createSessionModel({ turns, tokens, cooperative: true, reduceStyle: "alone" })
    expect(model.script(request(NUDGE), 1)).toMatchObject({ kind: "tool", name: "ctx_reduce", args: { drop: "2-3" } })
    expect(model.answered()).toMatchObject([{ n: 1, step: null, reduceDrop: "2-3" }])
  })

  it("a passive agent leaves reminders unanswered", () => {
    const model = createSessionModel({ turns, tokens, cooperative: false, reduceStyle: "batched" })
    expect(model.script(request(NUDGE), 1)).toMatchObject({ kind: "tool", name: "read" })
  })
})

describe("reduceStyleOf", () => {
  it.each([
    [undefined, "batched"],
    ["", "batched"],
    ["batched", "batched"],
    ["alone", "alone"],
  ])("reads %j as %s", (value, style) => {
    expect(reduceStyleOf(value)).toBe(style)
  })

  it("names the variable and the expected values for anything else", () => {
    expect(() => reduceStyleOf("together")).toThrow('BENCH_REDUCE="together": expected "alone" or "batched"')
  })
})
