import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anthropicConfig, anthropicReadingScript, CLAUDE_MODEL } from "./harness/anthropic-reading-script.js"
import { startMockAnthropicServer, type MockAnthropicServer } from "./harness/mock-anthropic-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import { queryStore } from "./harness/store-reader.js"
import { LONG_TURN_READS, mockModel, READ_FILES, readPasses, runTurns, TURNS, turnDone, turnPrompt, type PassDetail, type PassRow } from "./harness/reasoning-session.js"

/**
 * Anthropic's rules on thinking blocks (`harness/anthropic-thinking-rules.ts`) through the real OpenCode in the
 * scenarios that take longest (`npm run test:slow-e2e`, run by CI after `npm test`): the same session with the plugin
 * told the model has no rule (rejected, then going on once magic-context has heard of it), one long turn past the
 * force band, a model switch mid-session, and OpenCode's own compaction left on.
 */

describe("the same session with the rule switched off", () => {
  let mock: MockAnthropicServer
  let sandbox: OpenCodeSandbox
  let runs: RunResult[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: anthropicReadingScript(() => project), prefixCheck: true })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files: { ...READ_FILES, "magic-context.jsonc": JSON.stringify({ models: { [`anthropic/${CLAUDE_MODEL}`]: { reasoning: "none" } } }) },
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

describe("one long turn past the force band under adaptive thinking, Anthropic's prefix check answering 400", () => {
  let mock: MockAnthropicServer
  let sandbox: OpenCodeSandbox
  let run: RunResult
  let passes: (PassRow & { detail: PassDetail })[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: anthropicReadingScript(() => project, { reads: LONG_TURN_READS }), prefixCheck: true })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files: READ_FILES,
      config: anthropicConfig(mock.url, { thinking: { type: "adaptive", blockBinding: false } }),
    })
    project = sandbox.project
    run = await sandbox.run(["run", "TURN-1: read every file"])
    passes = readPasses(sandbox.databaseFile)
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })


  it("finishes the turn with every request accepted and no block failing its checks", () => {
    expect(mock.requests.filter((request) => request.status !== 200).map((request) => `${request.n}: ${request.error}`)).toEqual([])
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toContain(turnDone(1))
    expect(mock.requests.flatMap((request) => request.verdict.failing)).toEqual([])
  })

  it("executes inside the loop only in the force band, which takes the loop's thinking and says so", () => {
    // Nothing of the running turn folds (its reasoning is bound to it): only the force band's reclaim opens a pass.
    const executed = passes.filter((pass) => pass.decision === "execute")
    expect(executed.length).toBeGreaterThan(0)
    expect(executed.every((pass) => pass.band === "force" || pass.band === "emergency")).toBe(true)
    expect(executed.some((pass) => pass.detail.reasoning?.runningLoop === true)).toBe(true)
  })
})

describe("a model switch mid-session: a prefix-check model's blocks stay bound while another model runs", () => {
  const OTHER = "claude-sonnet-4-6"
  let mock: MockAnthropicServer
  let sandbox: OpenCodeSandbox
  let runs: RunResult[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: anthropicReadingScript(() => project), prefixCheck: (model) => model === CLAUDE_MODEL })
    const manual = { thinking: { type: "enabled", budgetTokens: 1024, blockBinding: false } }
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files: READ_FILES,
      config: anthropicConfig(mock.url, manual, { [OTHER]: mockModel("Claude Sonnet 4.6 (mock)", { options: manual }) }),
    })
    project = sandbox.project
    // Two turns on the prefix-check model, one on a model without the check (execute passes run there), then back.
    runs = []
    for (const [turn, model] of [[1, CLAUDE_MODEL], [2, CLAUDE_MODEL], [3, OTHER], [4, CLAUDE_MODEL]] as const) {
      const args = ["run", ...(turn > 1 ? ["--continue"] : []), "-m", `anthropic/${model}`, turnPrompt(turn)]
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

describe("OpenCode's own compaction left on beside magic-context", () => {
  let mock: MockAnthropicServer
  let sandbox: OpenCodeSandbox
  let runs: RunResult[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: anthropicReadingScript(() => project), prefixCheck: true })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files: READ_FILES,
      config: {
        ...anthropicConfig(mock.url, { thinking: { type: "enabled", budgetTokens: 1024, blockBinding: false } }),
        compaction: { auto: true, prune: false },
      },
    })
    project = sandbox.project
    runs = await runTurns(sandbox, TURNS)
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  it("finishes every turn with every request accepted: magic-context keeps the prompt under the host's overflow", () => {
    expect(mock.requests.filter((request) => request.status !== 200).map((request) => `${request.n}: ${request.error}`)).toEqual([])
    expect(runs.map((run) => run.exitCode)).toEqual(Array(TURNS).fill(0))
    expect(mock.requests.flatMap((request) => request.verdict.failing)).toEqual([])
    expect(readPasses(sandbox.databaseFile).some((pass) => pass.decision === "execute")).toBe(true)
  })
})
