import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  canonicalArgs,
  checkSignatures,
  CORRUPTED_SIGNATURE_MESSAGE,
  ORDER_MESSAGES,
  type GeminiContent,
  type GeminiRequest,
  type MadeSignature,
  type SentCall,
} from "./harness/gemini-thought-rules.js"
import {
  signatureRequest,
  startMockGeminiServer,
  type GeminiReply,
  type MockGeminiServer,
} from "./harness/mock-gemini-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import { createPiSandbox, PI_HOSTS, type PiSandbox } from "./harness/pi-harness.js"
import { fileToRead, LONG_TURN_READS, mockModel, providerConfig, READ_FILES, readPasses, READS_PER_TURN, runPiTurns, serveTurns, turnDone, TURNS, type PassDetail, type PassRow } from "./harness/reasoning-session.js"

/**
 * The real OpenCode with magic-context, talking through its bundled `@ai-sdk/google` provider to a mock of the Gemini
 * API (`:streamGenerateContent?alt=sse`) that answers every request with a thought part and a function call carrying
 * a thought signature (or text whose last part carries one), and checks every request against Google's rules on
 * thought signatures (`harness/gemini-thought-rules.ts`): the first function call of each step of the current turn
 * comes back with its signature as made, else 400 INVALID_ARGUMENT. Four user turns of five file reads each in a 32k
 * window, so that execute passes fold history and drop old output while signed calls are in the prompt; and one long
 * turn of 30 reads, past the force band, whose signed calls the plugin must never fold or drop.
 * OpenCode asks a reasoning Gemini 3 model for thoughts by itself (`thinkingConfig: { includeThoughts: true,
 * thinkingLevel: "high" }`), and sends a thought back as `{ text, thought: true }` (the mock's thoughts carry no
 * signature), a call as `{ functionCall: { name, args }, thoughtSignature }` (no call ids), and a text answer's
 * signature on its text part.
 */

const MODEL = "gemini-3-pro"

function textOf(content: GeminiContent | undefined): string {
  return (content?.parts ?? []).map((part) => (part.thought === true ? "" : (part.text ?? ""))).join("\n")
}

/**
 * The scripted model: a user content naming `TURN-k` starts turn k (read its files, then answer); a function response
 * continues the turn of the call it answers, found by the signature of the call before it (the signature names the
 * request that made it: the provider sends no call ids). A request without tools (OpenCode's title) gets a title.
 * `pathKey` is the read tool's path argument (OpenCode's `filePath`, Pi's `path`).
 */
function createScript(directory: () => string, reads = READS_PER_TURN, pathKey = "filePath"): (request: GeminiRequest, n: number) => GeminiReply {
  const calls = new Map<number, { turn: number; step: number }>()
  return (request, n) => {
    if (!hasTools(request)) return { kind: "text", text: "Reading files" }
    const newest = request.contents[request.contents.length - 1]
    let position: { turn: number; step: number } | undefined
    if (newest?.parts.some((part) => part.functionResponse !== undefined)) {
      const call = request.contents[request.contents.length - 2]?.parts.find((part) => part.functionCall !== undefined)
      const previous = calls.get(signatureRequest(call?.thoughtSignature) ?? -1)
      if (previous) position = { turn: previous.turn, step: previous.step + 1 }
    }
    const text = textOf(newest)
    if (!position && text.includes("<ctx-status>")) return { kind: "text", text: "STATUS-SHOWN" }
    const marker = /TURN-(\d+)/.exec(text)
    // A turn past the scripted ones answers at once.
    if (!position && marker) position = { turn: Number(marker[1]), step: Number(marker[1]) > TURNS ? reads : 0 }
    if (!position) return { kind: "text", text: "MOCK-LOST" }
    if (position.step >= reads) return { kind: "text", text: turnDone(position.turn) }
    calls.set(n, position)
    return { kind: "tool", name: "read", input: { [pathKey]: fileToRead(directory(), position.turn, position.step, reads) } }
  }
}

/** The sandbox's OpenCode config for the Google provider at the mock: a reasoning Gemini 3 model in a 32k window. */
function geminiConfig(url: string): Record<string, unknown> {
  return providerConfig({ provider: "google", npm: "@ai-sdk/google", url, apiKey: "gemini-mock-key", models: { [MODEL]: mockModel("Gemini 3 Pro (mock)") } })
}

/** True for a request that declares functions (OpenCode's title request declares none). */
function hasTools(request: GeminiRequest): boolean {
  return (request.tools ?? []).some((tool) => (tool.functionDeclarations ?? []).length > 0)
}

/** The requests the mock rejected, with the API's message. */
function rejected(mock: MockGeminiServer): string[] {
  return mock.requests.filter((request) => request.status !== 200).map((request) => `${request.n}: ${request.error}`)
}

/** The first function calls of the current turn's steps, over every request: the ones the API validates. */
function validated(mock: MockGeminiServer): SentCall[] {
  return mock.requests.flatMap((request) => request.verdict.calls.filter((call) => call.currentTurn && call.first))
}

describe("thought signatures through execute passes, Gemini 3 answering 400", () => {
  let mock: MockGeminiServer
  let sandbox: OpenCodeSandbox
  let runs: RunResult[]
  let passes: (PassRow & { detail: PassDetail })[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockGeminiServer({ script: createScript(() => project) })
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url, files: READ_FILES, config: geminiConfig(mock.url) })
    project = sandbox.project
    runs = await serveTurns(sandbox, TURNS, { status: true })
    passes = readPasses(sandbox.databaseFile)
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  it("finishes every turn with every request accepted", () => {
    expect(rejected(mock)).toEqual([])
    expect(runs.map((run) => run.exitCode)).toEqual(Array(TURNS + 2).fill(0))
    expect(runs.map((run) => run.stdout).join("\n")).toContain(turnDone(TURNS))
    expect(runs.at(-1)?.stdout).toContain(turnDone(TURNS + 1))
  })

  it("asks for thoughts and gets the current turn's signatures back as made, none missing or replaced", () => {
    const tools = mock.requests.filter((request) => hasTools(request.body))
    expect(tools.every((request) => request.body.generationConfig?.thinkingConfig?.includeThoughts === true)).toBe(true)
    const calls = validated(mock)
    // Every step of every turn after its first: 5 reads a turn, each sent back by the requests after it in the turn.
    expect(calls.length).toBeGreaterThanOrEqual(TURNS * READS_PER_TURN)
    expect(calls.filter((call) => call.signature !== "made")).toEqual([])
  })

  it("says in /ctx-status which rule applies", () => {
    const reports = mock.requests.map((request) => textOf(request.body.contents.at(-1)))
    const report = reports.find((text) => text.includes("<ctx-status>"))
    expect(report).toContain(`Reasoning rule: gemini-thought-signatures for google/${MODEL} (from the provider table)`)
  })

  it("ran execute passes that folded earlier turns into the history block while signed calls were in the prompt", () => {
    const executed = passes.filter((pass) => pass.decision === "execute")
    expect(executed.length).toBeGreaterThanOrEqual(2)
    const folded = mock.requests.filter((request) => textOf(request.body.contents[0]).includes("<session-history>"))
    expect(folded.some((request) => request.verdict.calls.some((call) => call.currentTurn))).toBe(true)
  })
})

describe("one long turn past the force band, Gemini 3 answering 400", () => {
  let mock: MockGeminiServer
  let sandbox: OpenCodeSandbox
  let run: RunResult
  let passes: (PassRow & { detail: PassDetail })[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockGeminiServer({ script: createScript(() => project, LONG_TURN_READS) })
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url, files: READ_FILES, config: geminiConfig(mock.url) })
    project = sandbox.project
    run = await sandbox.run(["run", "TURN-1: read every file"])
    passes = readPasses(sandbox.databaseFile)
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  it("finishes the turn with every request accepted and every signature of the turn sent back as made", () => {
    expect(rejected(mock)).toEqual([])
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toContain("TURN-1 DONE")
    const calls = validated(mock)
    expect(calls.length).toBeGreaterThanOrEqual(LONG_TURN_READS)
    expect(calls.filter((call) => call.signature !== "made")).toEqual([])
  })

  it("never folds the running turn: every request holds every call the turn made so far", () => {
    // Request k of the turn (after the title) answers the k-th read: it must carry the k-1 calls before it.
    const turn = mock.requests.filter((request) => hasTools(request.body))
    const short = turn.filter((request, index) => request.verdict.calls.filter((call) => call.currentTurn).length < index)
    expect(short.map((request) => request.n)).toEqual([])
  })

  it("reached the force band inside the loop: its passes dropped output, not calls", () => {
    const executed = passes.filter((pass) => pass.decision === "execute")
    expect(executed.some((pass) => pass.band === "force" || pass.band === "emergency")).toBe(true)
  })
})

/**
 * The real Pi with magic-context, through its `google-generative-ai` provider (`@google/genai` at the model's
 * `baseUrl`, the API version taken from it). Pi asks a Gemini 3 Pro model for thoughts at `--thinking low`
 * (`thinkingConfig: { includeThoughts: true, thinkingLevel: "LOW" }`), and sends a thought back as
 * `{ thought: true, text }`, a call as `{ functionCall: { name, args }, thoughtSignature }` (no call ids: Pi makes its
 * own), a text answer with its signature on the text part, for the same provider and model only.
 * Pi's prompt is much smaller than OpenCode's, and this rule has no turn-boundary lookahead (Gemini keeps no prefix):
 * in a 32k window the four turns reach the threshold once. A 24k window makes the passes execute inside the tool
 * loops, past the threshold, while the running turn's signed calls are in the prompt.
 */
describe.each(PI_HOSTS)("thought signatures through execute passes in the real $label, Gemini 3 answering 400", (host) => {
  let mock: MockGeminiServer
  let sandbox: PiSandbox
  let runs: RunResult[]
  let passes: (PassRow & { detail: PassDetail })[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockGeminiServer({ script: createScript(() => project, READS_PER_TURN, "path") })
    sandbox = createPiSandbox({
      mockUrl: mock.url,
      host,
      files: READ_FILES,
      // Pi's small prompt: a 24k window reaches the threshold about as often as OpenCode's prompt does in 32k.
      contextWindow: 24_000,
      provider: { name: "gemini-mock", api: "google-generative-ai", model: MODEL, reasoning: true, thinking: "low" },
    })
    project = sandbox.project
    runs = await runPiTurns(sandbox, TURNS)
    passes = readPasses(sandbox.databaseFile)
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  it("finishes every turn with every request accepted, asking for thoughts", () => {
    expect(rejected(mock)).toEqual([])
    expect(runs.map((run) => run.exitCode)).toEqual(Array(TURNS).fill(0))
    expect(runs.map((run) => run.stdout).join("\n")).toContain(turnDone(TURNS))
    expect(mock.requests.every((request) => request.model === MODEL && request.streamed)).toBe(true)
    expect(mock.requests.map((request) => request.body.generationConfig?.thinkingConfig)).toEqual(
      mock.requests.map(() => ({ includeThoughts: true, thinkingLevel: "LOW" })),
    )
  })

  it("gets the current turn's signatures back as made, none missing or replaced", () => {
    const calls = validated(mock)
    expect(calls.length).toBeGreaterThanOrEqual(TURNS * READS_PER_TURN)
    expect(calls.filter((call) => call.signature !== "made")).toEqual([])
  })

  it("ran execute passes that folded earlier turns into the history block while signed calls were in the prompt", () => {
    expect(passes.filter((pass) => pass.decision === "execute").length).toBeGreaterThanOrEqual(2)
    const folded = mock.requests.filter((request) => textOf(request.body.contents[0]).includes("<session-history>"))
    expect(folded.some((request) => request.verdict.calls.some((call) => call.currentTurn))).toBe(true)
  })
})

const user = (text: string): GeminiContent => ({ role: "user", parts: [{ text }] })
const response = (name: string): GeminiContent => ({
  role: "user",
  parts: [{ functionResponse: { name, response: { content: "ok" } } }],
})
const call = (name: string, signature?: string, extra: GeminiContent["parts"] = []): GeminiContent => ({
  role: "model",
  parts: [
    { text: `thinking about ${name}`, thought: true },
    { functionCall: { name, args: { path: name } }, ...(signature ? { thoughtSignature: signature } : {}) },
    ...extra,
  ],
})
const answer = (text: string): GeminiContent => ({ role: "model", parts: [{ text }] })

/** Signatures as the mock makes them: one per call named, on that call (`s<name>`). */
function madeFor(...names: string[]): Map<string, MadeSignature> {
  const made = (name: string, index: number): MadeSignature => ({ request: index + 1, call: { name, args: canonicalArgs({ path: name }) } })
  return new Map(names.map((name, index) => [`s${name}`, made(name, index)]))
}

describe("checkSignatures", () => {
  it("accepts a tool loop sent back with every signature, and finds the current turn at the newest user text", () => {
    const contents = [user("first"), call("a", "sa"), response("a"), user("second"), call("b", "sb"), response("b")]
    const request: GeminiRequest = { contents: [...contents, call("c", "sc"), response("c")] }
    const verdict = checkSignatures(request, madeFor("a", "b", "c"))
    expect(verdict.error).toBeNull()
    expect(verdict.turnStart).toBe(3)
    expect(verdict.calls.map((sent) => [sent.name, sent.currentTurn, sent.signature])).toEqual([
      ["a", false, "made"],
      ["b", true, "made"],
      ["c", true, "made"],
    ])
  })

  it("rejects a current-turn step whose first call lost its signature, with the API's message", () => {
    const request: GeminiRequest = { contents: [user("go"), call("a", "sa"), response("a"), call("b"), response("b")] }
    const verdict = checkSignatures(request, madeFor("a", "b"))
    expect(verdict.error).toBe(
      "Function call is missing a thought_signature in functionCall parts. This is required for tools to work " +
        "correctly, and missing thought_signature may lead to degraded model performance. Additional data, function " +
        "call `default_api:b` , position 3. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures " +
        "for more details.",
    )
  })

  it("does not validate earlier turns: a signature lost before the newest user text is accepted", () => {
    const request: GeminiRequest = {
      contents: [user("first"), call("a"), response("a"), answer("done"), user("second"), call("b", "sb"), response("b")],
    }
    const verdict = checkSignatures(request, madeFor("a", "b"))
    expect(verdict.error).toBeNull()
    expect(verdict.calls.map((sent) => [sent.name, sent.currentTurn, sent.signature])).toEqual([
      ["a", false, "missing"],
      ["b", true, "made"],
    ])
  })

  it("rejects a changed signature or one moved to another call, and accepts the documented dummies", () => {
    const made = madeFor("a", "b")
    const sentBack = (signature: string) =>
      checkSignatures({ contents: [user("go"), call("a", signature), response("a")] }, made)
    expect(sentBack("sa-changed").error).toBe(CORRUPTED_SIGNATURE_MESSAGE)
    expect(sentBack("sb").error).toBe(CORRUPTED_SIGNATURE_MESSAGE)
    const dummy = sentBack("skip_thought_signature_validator")
    expect(dummy.error).toBeNull()
    expect(dummy.calls[0]?.signature).toBe("dummy")
  })

  it("needs the signature on the first call of a step only (parallel calls)", () => {
    const parallel = call("a", "sa", [{ functionCall: { name: "b", args: { path: "b" } } }])
    const responses: GeminiContent = { role: "user", parts: [...response("a").parts, ...response("b").parts] }
    const request: GeminiRequest = { contents: [user("go"), parallel, responses] }
    const verdict = checkSignatures(request, madeFor("a", "b"))
    expect(verdict.error).toBeNull()
    expect(verdict.calls.map((sent) => [sent.name, sent.first, sent.signature])).toEqual([
      ["a", true, "made"],
      ["b", false, "missing"],
    ])
  })

  it("rejects calls and responses cut apart, in any turn", () => {
    const made = madeFor("a", "b")
    // A fold that kept a response and left out its call, or the reverse, or one of two parallel responses.
    const orphan = checkSignatures({ contents: [user("first"), response("a"), answer("done"), user("go")] }, made)
    expect(orphan.error).toBe(ORDER_MESSAGES.response)
    expect(checkSignatures({ contents: [call("a", "sa"), response("a")] }, made).orderError).toBe(ORDER_MESSAGES.call)
    const parallel = call("a", "sa", [{ functionCall: { name: "b", args: { path: "b" } } }])
    expect(checkSignatures({ contents: [user("go"), parallel, response("a")] }, made).error).toBe(ORDER_MESSAGES.count)
  })
})
