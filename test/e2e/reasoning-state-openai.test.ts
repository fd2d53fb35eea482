import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  functionCallId,
  startMockOpenAIResponsesServer,
  type MockOpenAIResponsesServer,
  type OpenAIReply,
} from "./harness/mock-openai-responses-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import { createPiSandbox, PI_HOSTS, type PiSandbox } from "./harness/pi-harness.js"
import {
  checkReasoning,
  isMessage,
  messageText,
  prefixOf,
  type MadeReasoning,
  type ResponsesItem,
  type ResponsesRequest,
} from "./harness/openai-reasoning-rules.js"
import { fileToRead, mockModel, providerConfig, READ_FILES, readPasses, READS_PER_TURN, runPiTurns, serveTurns, turnDone, TURNS, type PassDetail, type PassRow } from "./harness/reasoning-session.js"

/**
 * The real OpenCode with magic-context, talking through its bundled `@ai-sdk/openai` provider (the Responses API) to
 * a mock of `POST /v1/responses` that starts every answer with a reasoning item and checks every request against
 * OpenAI's rules on reasoning items (`harness/openai-reasoning-rules.ts`). Four user turns of five file reads each in
 * a 32k window, so that execute passes fold history and drop old output while reasoning items are in the prompt.
 * OpenCode asks a `gpt-5` model for reasoning (`reasoning: { effort, summary }`), statelessly (`store: false`,
 * `include: ["reasoning.encrypted_content"]`), and sends earlier reasoning back as whole items with their encrypted
 * content, its item ids stripped.
 */

const MODEL = "gpt-5.4"

/**
 * The scripted model: a user message naming `TURN-k` starts turn k (read its five files, then answer); a function
 * call's output continues the turn of the call it answers (the call id names the request that made it). A request
 * without tools (OpenCode's title) gets a title. `pathKey` is the read tool's path argument (OpenCode's `filePath`,
 * Pi's `path`).
 */
function createScript(directory: () => string, pathKey = "filePath"): (request: ResponsesRequest, n: number) => OpenAIReply {
  const calls = new Map<string, { turn: number; step: number }>()
  return (request, n) => {
    if ((request.tools ?? []).length === 0) return { kind: "text", text: "Reading files" }
    const newest = request.input[request.input.length - 1]
    let position: { turn: number; step: number } | undefined
    if (newest?.type === "function_call_output") {
      const previous = calls.get(newest.call_id)
      if (previous) position = { turn: previous.turn, step: previous.step + 1 }
    }
    const marker = newest && isMessage(newest) && newest.role === "user" ? /TURN-(\d+)/.exec(messageText(newest)) : null
    if (!position && marker) position = { turn: Number(marker[1]), step: 0 }
    if (!position) return { kind: "text", text: "MOCK-LOST" }
    if (position.step >= READS_PER_TURN) return { kind: "text", text: turnDone(position.turn) }
    calls.set(functionCallId(n), position)
    return { kind: "tool", name: "read", input: { [pathKey]: fileToRead(directory(), position.turn, position.step, READS_PER_TURN) } }
  }
}

/** The sandbox's OpenCode config for the OpenAI provider (the Responses API) at the mock. */
function openaiConfig(url: string): Record<string, unknown> {
  // OpenCode's model table gives gpt-5.4 an input limit, which the window is measured against: set it too.
  const limit = { context: 32_000, input: 32_000, output: 4_096 }
  return providerConfig({ provider: "openai", npm: "@ai-sdk/openai", url, apiKey: "sk-openai-mock", models: { [MODEL]: mockModel("GPT-5.4 (mock)", { limit }) } })
}

describe("reasoning items through execute passes, OpenAI's Responses API answering 400", () => {
  let mock: MockOpenAIResponsesServer
  let sandbox: OpenCodeSandbox
  let runs: RunResult[]
  let passes: (PassRow & { detail: PassDetail })[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockOpenAIResponsesServer({ script: createScript(() => project) })
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url, files: READ_FILES, config: openaiConfig(mock.url) })
    project = sandbox.project
    runs = await serveTurns(sandbox, TURNS)
    passes = readPasses(sandbox.databaseFile)
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  const tooled = () => mock.requests.filter((request) => (request.body.tools ?? []).length > 0)

  it("asks statelessly for reasoning with its encrypted content", () => {
    for (const request of tooled()) {
      expect(request.body.store).toBe(false)
      expect(request.body.include).toContain("reasoning.encrypted_content")
      expect(request.body.reasoning).toMatchObject({ effort: expect.any(String), summary: "auto" })
    }
  })

  it("finishes every turn with every request accepted", () => {
    const rejected = mock.requests
      .filter((request) => request.status !== 200)
      .map((request) => `${request.n}: ${request.error?.message}`)
    expect(rejected).toEqual([])
    expect(runs.map((run) => run.exitCode)).toEqual(Array(TURNS).fill(0))
    expect(runs.map((run) => run.stdout).join("\n")).toContain(turnDone(TURNS))
  })

  it("sends reasoning items back whole, intact, each right before the item made with it", () => {
    const sent = tooled().flatMap((request) => request.verdict.reasoning)
    expect(sent.length).toBeGreaterThan(TURNS * READS_PER_TURN)
    expect(sent.filter((item) => item.madeId === null || !item.intact || !item.paired)).toEqual([])
    // Whole items, never references: without storage there is nothing to refer to.
    expect(tooled().flatMap((request) => request.body.input.filter((item) => item.type === "item_reference"))).toEqual(
      [],
    )
  })

  it("keeps every reasoning item of the running turn while the model answers a function call", () => {
    const answering = tooled().filter((request) => request.verdict.pendingCall)
    expect(answering.length).toBeGreaterThanOrEqual(TURNS * READS_PER_TURN)
    expect(answering.flatMap((request) => request.verdict.missingFromRunningTurn)).toEqual([])
  })

  it("ran execute passes that changed the prompt", () => {
    const executed = passes.filter((pass) => pass.decision === "execute")
    expect(executed.length).toBeGreaterThanOrEqual(2)
  })

  it("changes no prefix the running turn's reasoning was made after, so newer models keep all of it", () => {
    // Newer models silently drop the reasoning items that follow a prefix change (keep-prefix-unchanged): execute passes
    // wait for the turn boundary while a tool loop with reasoning runs.
    const running = tooled().flatMap((request) => request.verdict.reasoning.filter((item) => item.runningTurn))
    expect(running.length).toBeGreaterThan(0)
    expect(running.filter((item) => !item.prefixOk)).toEqual([])
    // The rule placed the passes: one waited for, or ran early at, a turn boundary.
    expect(passes.some((pass) => pass.detail.reason === "reasoning-deferred" || pass.detail.reason === "turn-lookahead")).toBe(true)
  })
})

/**
 * The real Pi with magic-context, through its `openai-responses` provider (the OpenAI SDK at `${baseUrl}/responses`).
 * Pi asks a reasoning model statelessly too (`store: false`, `include: ["reasoning.encrypted_content"]`,
 * `reasoning: { effort, summary: "auto" }`), but sends earlier output back with its item ids: each reasoning item as
 * the whole item it took from `response.output_item.done` (`rs_` id, encrypted content, summary), each call with its
 * `fc_` id and `call_id`, each answer as a message with its `msg_` id.
 */
describe.each(PI_HOSTS)("reasoning items through execute passes in the real $label, OpenAI's Responses API answering 400", (host) => {
  let mock: MockOpenAIResponsesServer
  let sandbox: PiSandbox
  let runs: RunResult[]
  let passes: (PassRow & { detail: PassDetail })[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockOpenAIResponsesServer({ script: createScript(() => project, "path") })
    sandbox = createPiSandbox({
      mockUrl: mock.url,
      host,
      files: READ_FILES,
      provider: { name: "openai-mock", api: "openai-responses", model: MODEL, reasoning: true, thinking: "low" },
    })
    project = sandbox.project
    runs = await runPiTurns(sandbox, TURNS)
    passes = readPasses(sandbox.databaseFile)
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  it("finishes every turn with every request accepted, asking statelessly for encrypted reasoning", () => {
    expect(mock.requests.filter((request) => request.status !== 200).map((request) => `${request.n}: ${request.error?.message}`)).toEqual([])
    expect(runs.map((run) => run.exitCode)).toEqual(Array(TURNS).fill(0))
    expect(runs.map((run) => run.stdout).join("\n")).toContain(turnDone(TURNS))
    for (const request of mock.requests) {
      expect(request.body.store).toBe(false)
      expect(request.body.include).toContain("reasoning.encrypted_content")
      expect(request.body.reasoning).toMatchObject({ effort: "low", summary: "auto" })
    }
  })

  it("sends reasoning items back whole and intact, each right before the item made with it, none of the running turn missing", () => {
    const sent = mock.requests.flatMap((request) => request.verdict.reasoning)
    expect(sent.length).toBeGreaterThan(TURNS * READS_PER_TURN)
    expect(sent.filter((item) => item.madeId === null || !item.intact || !item.paired)).toEqual([])
    expect(mock.requests.flatMap((request) => request.verdict.missingFromRunningTurn)).toEqual([])
    expect(mock.requests.flatMap((request) => request.body.input.filter((item) => item.type === "item_reference"))).toEqual([])
  })

  it("ran execute passes, none changing a prefix the running turn's reasoning was made after", () => {
    expect(passes.filter((pass) => pass.decision === "execute").length).toBeGreaterThanOrEqual(2)
    const running = mock.requests.flatMap((request) => request.verdict.reasoning.filter((item) => item.runningTurn))
    expect(running.length).toBeGreaterThan(0)
    expect(running.filter((item) => !item.prefixOk)).toEqual([])
  })
})

/**
 * The mock's reading of OpenAI's rules on hand-made requests: what it accepts must be what the documentation
 * allows, and what it flags what it forbids, or the end-to-end verdicts mean nothing.
 */
describe("checkReasoning", () => {
  const user = (text: string): ResponsesItem => ({ role: "user", content: [{ type: "input_text", text }] })
  const output = (callId: string): ResponsesItem => ({ type: "function_call_output", call_id: callId, output: "ok" })

  /** A tool loop of three calls after one user message, each reasoning item made by the mock at its own request. */
  function conversation(): { request: ResponsesRequest; made: MadeReasoning[] } {
    const made: MadeReasoning[] = []
    const request: ResponsesRequest = {
      model: "m",
      store: false,
      input: [user("go")],
      tools: [{ type: "function", name: "read" }],
    }
    for (const [index, name] of ["a", "b", "c"].entries()) {
      const record: MadeReasoning = {
        id: `rs_${name}`,
        request: index + 1,
        encryptedContent: `gAAAAAB${name.repeat(12)}==`,
        next: { type: "function_call", id: `fc_${name}`, callId: `call_${name}`, name: "read", arguments: "{}" },
        prefix: prefixOf(request, request.input.length),
      }
      made.push(record)
      request.input.push(
        {
          type: "reasoning",
          encrypted_content: record.encryptedContent,
          summary: [{ type: "summary_text", text: `t ${name}` }],
        },
        { type: "function_call", call_id: `call_${name}`, name: "read", arguments: "{}" },
        output(`call_${name}`),
      )
    }
    return { request, made }
  }

  const withIds = (request: ResponsesRequest): ResponsesRequest => ({
    ...request,
    input: request.input.map((item) => {
      if (item.type === "reasoning") return { ...item, id: `rs_${(item.encrypted_content ?? "").slice(7, 8)}` }
      if (item.type === "function_call") return { ...item, id: `fc_${item.call_id.slice(5)}` }
      return item
    }),
  })

  it("accepts the conversation sent back as it was made, with or without item ids", () => {
    const { request, made } = conversation()
    for (const sent of [request, withIds(request)]) {
      const verdict = checkReasoning(sent, made)
      expect(verdict.errors).toEqual([])
      expect(verdict.missingFromRunningTurn).toEqual([])
      expect(
        verdict.reasoning.map((item) => [item.madeId, item.intact, item.paired, item.prefixOk, item.runningTurn]),
      ).toEqual([
        ["rs_a", true, true, true, true],
        ["rs_b", true, true, true, true],
        ["rs_c", true, true, true, true],
      ])
    }
  })

  it("flags a function call whose id names a reasoning item left out, and a reasoning item without its call", () => {
    const { request, made } = conversation()
    const withoutReasoning = withIds(request)
    withoutReasoning.input.splice(4, 1)
    expect(checkReasoning(withoutReasoning, made).errors.map((error) => error.message)).toEqual([
      "Item 'fc_b' of type 'function_call' was provided without its required 'reasoning' item: 'rs_b'.",
    ])
    // Without ids the API cannot tell, but the running turn misses that reasoning.
    const anonymous = conversation()
    anonymous.request.input.splice(4, 1)
    const verdict = checkReasoning(anonymous.request, anonymous.made)
    expect(verdict.errors).toEqual([])
    expect(verdict.missingFromRunningTurn).toEqual(["rs_b"])

    const withoutCall = conversation()
    withoutCall.request.input.splice(5, 2)
    expect(checkReasoning(withoutCall.request, withoutCall.made).errors).toEqual([
      {
        message: "Item 'rs_b' of type 'reasoning' was provided without its required following item.",
        param: "input",
        code: null,
      },
    ])
    // An answer that names its item needs its reasoning item before it too.
    const answered = conversation()
    const answer: MadeReasoning = {
      id: "rs_d",
      request: 4,
      encryptedContent: "gAAAAABdddd==",
      next: { type: "message", id: "msg_d", text: "done" },
      prefix: "",
    }
    answered.request.input.push({ role: "assistant", content: [{ type: "output_text", text: "done" }], id: "msg_d" })
    expect(checkReasoning(answered.request, [...answered.made, answer]).errors.map((error) => error.message)).toEqual([
      "Item 'msg_d' of type 'message' was provided without its required 'reasoning' item: 'rs_d'.",
    ])
    // With its id, the item after it must carry the id of the one made with it.
    const idOnlyOnReasoning = withIds(conversation().request)
    const call = idOnlyOnReasoning.input[2]
    if (call?.type === "function_call") delete call.id
    expect(checkReasoning(idOnlyOnReasoning, made).errors.map((error) => error.message)).toEqual([
      "Item 'rs_a' of type 'reasoning' was provided without its required following item.",
    ])
  })

  it("flags changed or foreign encrypted content, and ids or references the API never stored", () => {
    const { request, made } = conversation()
    const reasoning = request.input[1]
    if (reasoning?.type === "reasoning") reasoning.encrypted_content = `${reasoning.encrypted_content}x`
    expect(checkReasoning(request, made).errors).toEqual([
      {
        message: "The encrypted content gAAA...a==x could not be verified.",
        param: null,
        code: "invalid_encrypted_content",
      },
    ])
    const stored = conversation()
    stored.request.input[1] = { type: "reasoning", id: "rs_a", summary: [] }
    stored.request.input.push({ type: "item_reference", id: "msg_x" })
    expect(checkReasoning(stored.request, stored.made).errors.map((error) => error.message)).toEqual([
      "Item with id 'rs_a' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
      "Item with id 'msg_x' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
    ])
  })

  it("allows dropping earlier turns' reasoning, and reports the reasoning a prefix change invalidates", () => {
    const { request, made } = conversation()
    request.input.push({ role: "assistant", content: [{ type: "output_text", text: "done" }] }, user("next"))
    // Earlier turns' reasoning may go with its calls: no error, nothing of the running turn (there is none) missing.
    const dropped = { ...request, input: request.input.filter((item) => item.type !== "reasoning") }
    const verdict = checkReasoning(dropped, made)
    expect(verdict.errors).toEqual([])
    expect(verdict.pendingCall).toBe(false)
    // A shortened function output: the reasoning after it would be dropped silently, no error.
    const shortened = conversation()
    shortened.request.input[3] = { type: "function_call_output", call_id: "call_a", output: "[dropped]" }
    const after = checkReasoning(shortened.request, shortened.made)
    expect(after.errors).toEqual([])
    expect(after.reasoning.map((item) => item.prefixOk)).toEqual([true, false, false])
  })
})
