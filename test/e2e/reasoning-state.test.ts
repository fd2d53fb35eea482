import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AnthropicRequest } from "./harness/anthropic-thinking-rules.js"
import { startMockAnthropicServer, toolUseId, type AnthropicReply, type MockAnthropicServer } from "./harness/mock-anthropic-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import { createPiSandbox, type PiSandbox } from "./harness/pi-harness.js"
import { queryStore } from "./harness/store-reader.js"

/**
 * The real OpenCode with magic-context, talking through its bundled Anthropic provider to a mock of the Messages API
 * that makes a signed thinking block first in every answer and checks every block sent back against Anthropic's rules
 * (`harness/anthropic-thinking-rules.ts`): the original ones and the preserved-thinking prefix check. Four user turns
 * of five file reads each in a 32k window, so that execute passes fold history and drop old output while thinking
 * blocks are in the prompt. The same session with the plugin told that the model has no rule (`models.<pattern>.reasoning:
 * "none"`) is rejected: that is what the checks catch, and magic-context then says so.
 */

const TURNS = 4
const READS_PER_TURN = 5
/** Reads of the one long turn: more than the window holds, so the force band comes inside its tool loop. */
const LONG_TURN_READS = 30
const MODEL = "claude-opus-5-5"

/** A file of about 900 tokens whose lines name it. */
function fileText(index: number): string {
  return Array.from({ length: 60 }, (_, line) => `file ${index} line ${line}: value-${index}-${line} keeps the settings of module ${index}.`).join("\n")
}

const files: Record<string, string> = {}
for (let index = 1; index <= LONG_TURN_READS; index += 1) files[`data/file-${index}.txt`] = fileText(index)

function textOf(content: AnthropicRequest["messages"][number]["content"]): string {
  if (typeof content === "string") return content
  return content.map((block) => (block.type === "text" ? block.text : "")).join("\n")
}

/**
 * The scripted model: a user message naming `TURN-k` starts turn k (read its five files, then answer); a tool result
 * continues the turn of the call it answers (the call id names the request that made it). A request without tools
 * (OpenCode's title) gets a title.
 */
function createScript(directory: () => string, pathKey = "filePath", reads = READS_PER_TURN): (request: AnthropicRequest, n: number) => AnthropicReply {
  const calls = new Map<string, { turn: number; step: number }>()
  return (request, n) => {
    if ((request.tools ?? []).length === 0) return { kind: "text", text: "Reading files" }
    const newest = request.messages[request.messages.length - 1]
    let position: { turn: number; step: number } | undefined
    if (newest && typeof newest.content !== "string") {
      const result = [...newest.content].reverse().find((block) => block.type === "tool_result")
      if (result && result.type === "tool_result") {
        const previous = calls.get(result.tool_use_id)
        if (previous) position = { turn: previous.turn, step: previous.step + 1 }
      }
    }
    const text = newest ? textOf(newest.content) : ""
    if (text.includes("<ctx-status>")) return { kind: "text", text: "STATUS-SHOWN" }
    const marker = /TURN-(\d+)/.exec(text)
    // A turn past the scripted ones answers at once.
    if (!position && marker) position = { turn: Number(marker[1]), step: Number(marker[1]) > TURNS ? reads : 0 }
    if (!position) return { kind: "text", text: "MOCK-LOST" }
    if (position.step >= reads) return { kind: "text", text: `TURN-${position.turn} DONE` }
    calls.set(toolUseId(n), position)
    const file = (position.turn - 1) * reads + position.step + 1
    return { kind: "tool", name: "read", input: { [pathKey]: `${directory()}/data/file-${file}.txt` } }
  }
}

type PassRow = { seq: number; decision: string; band: string; detail_json: string }

/** A model of the mock provider: a 32k window, reasoning, the given options. */
function mockModel(name: string, options: Record<string, unknown>): Record<string, unknown> {
  return { name, tool_call: true, reasoning: true, limit: { context: 32_000, output: 4_096 }, options }
}

/** The sandbox's OpenCode config for the Anthropic provider at the mock, with the model's own options. */
function anthropicConfig(url: string, modelOptions: Record<string, unknown>, others: Record<string, Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    model: `anthropic/${MODEL}`,
    small_model: `anthropic/${MODEL}`,
    enabled_providers: ["anthropic"],
    provider: {
      anthropic: {
        npm: "@ai-sdk/anthropic",
        options: { baseURL: url, apiKey: "sk-ant-mock" },
        models: { [MODEL]: mockModel("Claude Opus 5.5 (mock)", modelOptions), ...others },
      },
    },
  }
}

async function runTurns(sandbox: OpenCodeSandbox, turns: number): Promise<RunResult[]> {
  const results: RunResult[] = []
  for (let turn = 1; turn <= turns; turn += 1) {
    const args = turn === 1 ? ["run", `TURN-${turn}: read this turn's files`] : ["run", "--continue", `TURN-${turn}: read this turn's files`]
    results.push(await sandbox.run(args))
  }
  return results
}

describe("thinking blocks through execute passes, Anthropic's prefix check answering 400", () => {
  let mock: MockAnthropicServer
  let sandbox: OpenCodeSandbox
  let runs: RunResult[]
  let passes: PassRow[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: createScript(() => project), prefixCheck: true })
    // Manual extended thinking without OpenCode's "drop_block" binding: a block that fails the prefix check is a 400,
    // and a tool loop's last assistant message must start with its block.
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files,
      config: anthropicConfig(mock.url, { thinking: { type: "enabled", budgetTokens: 1024, blockBinding: false } }),
    })
    project = sandbox.project
    runs = await runTurns(sandbox, TURNS)
    // /ctx-status, then one more turn: the exchange leaves the prompt and the next request must still be valid.
    runs.push(await sandbox.run(["run", "--continue", "--command", "ctx-status"]))
    runs.push(await sandbox.run(["run", "--continue", `TURN-${TURNS + 1}: answer`]))
    passes = queryStore<PassRow>(sandbox.databaseFile, "SELECT seq, decision, band, detail_json FROM passes ORDER BY seq")
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  it("finishes every turn with every request accepted", () => {
    const rejected = mock.requests.filter((request) => request.status !== 200).map((request) => `${request.n}: ${request.error}`)
    expect(rejected).toEqual([])
    expect(runs.map((run) => run.exitCode)).toEqual(Array(TURNS + 2).fill(0))
    expect(runs.map((run) => run.stdout).join("\n")).toContain(`TURN-${TURNS} DONE`)
    expect(runs.at(-1)?.stdout).toContain(`TURN-${TURNS + 1} DONE`)
  })

  it("says in /ctx-status which rule applies and what it made the passes do", () => {
    const report = mock.requests.map((request) => textOf(request.body.messages.at(-1)?.content ?? "")).find((text) => text.includes("<ctx-status>"))
    expect(report).toContain(`Reasoning rule: anthropic-prefix-check for anthropic/${MODEL} (from the provider table)`)
    expect(report).toMatch(/thinking withheld by execute passes: [1-9]\d* blocks? \([\d,]+ tokens\)/)
  })

  it("sends thinking blocks back, none that fails the prefix check, none changed", () => {
    const sent = mock.requests.flatMap((request) => request.verdict.blocks)
    expect(sent.length).toBeGreaterThan(TURNS * READS_PER_TURN)
    expect(sent.filter((block) => !block.intact)).toEqual([])
    expect(mock.requests.flatMap((request) => request.verdict.failing)).toEqual([])
  })

  it("ran execute passes that changed the prompt, and withheld the thinking they invalidated", () => {
    const executed = passes.filter((pass) => pass.decision === "execute")
    expect(executed.length).toBeGreaterThanOrEqual(2)
    const withheld = executed.map((pass) => (JSON.parse(pass.detail_json) as { reasoning?: { withheld: number } }).reasoning?.withheld ?? 0)
    expect(withheld.some((count) => count > 0)).toBe(true)
    // Every execute pass ran at a turn boundary: none took the running loop's thinking.
    expect(executed.every((pass) => (JSON.parse(pass.detail_json) as { reasoning?: { runningLoop: boolean } }).reasoning?.runningLoop !== true)).toBe(true)
  })
})

describe("the same session with the rule switched off", () => {
  let mock: MockAnthropicServer
  let sandbox: OpenCodeSandbox
  let runs: RunResult[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: createScript(() => project), prefixCheck: true })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files: { ...files, "magic-context.jsonc": JSON.stringify({ models: { [`anthropic/${MODEL}`]: { reasoning: "none" } } }) },
      // Adaptive thinking, no "drop_block" binding: a block that fails the prefix check is a 400, and a request may
      // leave all thinking out (the documented way out of a rejection), even inside a tool loop.
      config: anthropicConfig(mock.url, { thinking: { type: "adaptive", blockBinding: false } }),
    })
    project = sandbox.project
    runs = await runTurns(sandbox, TURNS)
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  it("is rejected once an execute pass changes what the thinking blocks were made after", () => {
    const rejected = mock.requests.filter((request) => request.status === 400)
    expect(rejected.length).toBeGreaterThan(0)
    expect(rejected[0]?.error).toContain("The block is bound to a different conversation")
    expect(runs.some((run) => run.exitCode !== 0)).toBe(true)
  })

  it("is not stuck: the request after a rejection leaves the thinking out and goes through", () => {
    const first = mock.requests.findIndex((request) => request.status === 400)
    const next = mock.requests.slice(first + 1).find((request) => (request.body.tools ?? []).length > 0)
    expect(next?.status).toBe(200)
    expect(next?.verdict.blocks).toEqual([])
  })

  it("records the rejection with what to do, where /ctx-status and the sidebar show it", () => {
    const errors = queryStore<{ hook: string; code: string | null; message: string }>(sandbox.databaseFile, "SELECT hook, code, message FROM errors")
    const noted = errors.filter((error) => error.hook === "provider")
    expect(noted.length).toBeGreaterThan(0)
    expect(noted[0]?.message).toContain("the provider rejected a request over its reasoning state (HTTP 400)")
    expect(noted[0]?.message).toContain("What to do:")
  })
})

describe("thinking blocks through execute passes in the real Pi, Anthropic's prefix check answering 400", () => {
  let mock: MockAnthropicServer
  let sandbox: PiSandbox
  let runs: RunResult[]
  let passes: PassRow[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: createScript(() => project, "path"), prefixCheck: true })
    // Pi asks Claude models it does not know as adaptive for budgeted thinking, with no "drop_block" binding.
    sandbox = createPiSandbox({
      mockUrl: mock.url.replace(/\/v1$/, ""),
      files,
      provider: { name: "claude-mock", api: "anthropic-messages", model: MODEL, reasoning: true, thinking: "low" },
    })
    project = sandbox.project
    runs = []
    for (let turn = 1; turn <= TURNS; turn += 1) runs.push(await sandbox.run(`TURN-${turn}: read this turn's files`, { continueSession: turn > 1 }))
    passes = queryStore<PassRow>(sandbox.databaseFile, "SELECT seq, decision, band, detail_json FROM passes ORDER BY seq")
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  it("finishes every turn with every request accepted and no block failing its checks", () => {
    expect(mock.requests.filter((request) => request.status !== 200).map((request) => `${request.n}: ${request.error}`)).toEqual([])
    expect(runs.map((run) => run.exitCode)).toEqual(Array(TURNS).fill(0))
    expect(mock.requests.flatMap((request) => request.verdict.blocks).length).toBeGreaterThan(TURNS * READS_PER_TURN)
    expect(mock.requests.flatMap((request) => request.verdict.failing)).toEqual([])
  })

  it("ran execute passes and withheld the thinking they invalidated", () => {
    const executed = passes.filter((pass) => pass.decision === "execute")
    expect(executed.length).toBeGreaterThanOrEqual(2)
    expect(executed.some((pass) => ((JSON.parse(pass.detail_json) as { reasoning?: { withheld: number } }).reasoning?.withheld ?? 0) > 0)).toBe(true)
  })
})

describe("one long turn past the force band under adaptive thinking, Anthropic's prefix check answering 400", () => {
  let mock: MockAnthropicServer
  let sandbox: OpenCodeSandbox
  let run: RunResult
  let passes: PassRow[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: createScript(() => project, "filePath", LONG_TURN_READS), prefixCheck: true })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files,
      config: anthropicConfig(mock.url, { thinking: { type: "adaptive", blockBinding: false } }),
    })
    project = sandbox.project
    run = await sandbox.run(["run", "TURN-1: read every file"])
    passes = queryStore<PassRow>(sandbox.databaseFile, "SELECT seq, decision, band, detail_json FROM passes ORDER BY seq")
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  const detail = (pass: PassRow) => JSON.parse(pass.detail_json) as { reason: string; reasoning?: { runningLoop: boolean } }

  it("finishes the turn with every request accepted and no block failing its checks", () => {
    expect(mock.requests.filter((request) => request.status !== 200).map((request) => `${request.n}: ${request.error}`)).toEqual([])
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toContain("TURN-1 DONE")
    expect(mock.requests.flatMap((request) => request.verdict.failing)).toEqual([])
  })

  it("executes inside the loop only in the force band, which takes the loop's thinking and says so", () => {
    // Nothing of the running turn folds (its reasoning is bound to it): only the force band's reclaim opens a pass.
    const executed = passes.filter((pass) => pass.decision === "execute")
    expect(executed.length).toBeGreaterThan(0)
    expect(executed.every((pass) => pass.band === "force" || pass.band === "emergency")).toBe(true)
    expect(executed.some((pass) => detail(pass).reasoning?.runningLoop === true)).toBe(true)
  })
})

describe("a model switch mid-session: a prefix-check model's blocks stay bound while another model runs", () => {
  const OTHER = "claude-sonnet-4-6"
  let mock: MockAnthropicServer
  let sandbox: OpenCodeSandbox
  let runs: RunResult[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: createScript(() => project), prefixCheck: (model) => model === MODEL })
    const manual = { thinking: { type: "enabled", budgetTokens: 1024, blockBinding: false } }
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files,
      config: anthropicConfig(mock.url, manual, { [OTHER]: mockModel("Claude Sonnet 4.6 (mock)", manual) }),
    })
    project = sandbox.project
    // Two turns on the prefix-check model, one on a model without the check (execute passes run there), then back.
    runs = []
    for (const [turn, model] of [[1, MODEL], [2, MODEL], [3, OTHER], [4, MODEL]] as const) {
      const args = ["run", ...(turn > 1 ? ["--continue"] : []), "-m", `anthropic/${model}`, `TURN-${turn}: read this turn's files`]
      runs.push(await sandbox.run(args))
    }
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  it("finishes every turn with every request accepted and no block failing its checks", () => {
    expect(mock.requests.filter((request) => request.status !== 200).map((request) => `${request.n}: ${request.error}`)).toEqual([])
    expect(runs.map((run) => run.exitCode)).toEqual([0, 0, 0, 0])
    expect(mock.requests.filter((request) => request.body.model === OTHER).length).toBeGreaterThan(0)
    expect(mock.requests.flatMap((request) => request.verdict.failing)).toEqual([])
  })
})
