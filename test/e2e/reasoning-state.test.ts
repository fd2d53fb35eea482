import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anthropicConfig, anthropicReadingScript, anthropicText, CLAUDE_MODEL } from "./harness/anthropic-reading-script.js"
import { startMockAnthropicServer, type MockAnthropicServer } from "./harness/mock-anthropic-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import { createPiSandbox, PI_HOSTS, type PiSandbox } from "./harness/pi-harness.js"
import { READ_FILES, readPasses, READS_PER_TURN, runPiTurns, serveTurns, turnDone, TURNS, type PassDetail, type PassRow } from "./harness/reasoning-session.js"

/**
 * The real OpenCode and the real Pi with magic-context, talking through their Anthropic providers to a mock of the
 * Messages API that makes a signed thinking block first in every answer and checks every block sent back against
 * Anthropic's rules (`harness/anthropic-thinking-rules.ts`): the original ones and the preserved-thinking prefix check,
 * answering 400 as the API does. Four user turns of five file reads each in a 32k window
 * (`harness/reasoning-session.ts`), so that execute passes fold history and drop old output while thinking blocks are in
 * the prompt. The rule switched off, one long turn and a model switch: `reasoning-scenarios.slow.test.ts`.
 */

describe("thinking blocks through execute passes, Anthropic's prefix check answering 400", () => {
  let mock: MockAnthropicServer
  let sandbox: OpenCodeSandbox
  let runs: RunResult[]
  let passes: (PassRow & { detail: PassDetail })[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: anthropicReadingScript(() => project), prefixCheck: true })
    // Manual extended thinking without OpenCode's "drop_block" binding: a block that fails the prefix check is a 400,
    // and a tool loop's last assistant message must start with its block.
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files: READ_FILES,
      config: anthropicConfig(mock.url, { thinking: { type: "enabled", budgetTokens: 1024, blockBinding: false } }),
    })
    project = sandbox.project
    runs = await serveTurns(sandbox, TURNS, { status: true })
    passes = readPasses(sandbox.databaseFile)
  })

  afterAll(async () => {
    sandbox?.cleanup()
    await mock?.close()
  })

  it("finishes every turn with every request accepted", () => {
    const rejected = mock.requests.filter((request) => request.status !== 200).map((request) => `${request.n}: ${request.error}`)
    expect(rejected).toEqual([])
    expect(runs.map((run) => run.exitCode)).toEqual(Array(TURNS + 2).fill(0))
    expect(runs.map((run) => run.stdout).join("\n")).toContain(turnDone(TURNS))
    expect(runs.at(-1)?.stdout).toContain(turnDone(TURNS + 1))
  })

  it("says in /ctx-status which rule applies and what it made the passes do", () => {
    const report = mock.requests.map((request) => anthropicText(request.body.messages.at(-1)?.content ?? "")).find((text) => text.includes("<ctx-status>"))
    expect(report).toContain(`Reasoning rule: anthropic-prefix-check for anthropic/${CLAUDE_MODEL} (from the provider table)`)
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
    const withheld = executed.map((pass) => pass.detail.reasoning?.withheld ?? 0)
    expect(withheld.some((count) => count > 0)).toBe(true)
    // Every execute pass ran at a turn boundary: none took the running loop's thinking.
    expect(executed.every((pass) => pass.detail.reasoning?.runningLoop !== true)).toBe(true)
  })
})

describe.each(PI_HOSTS)("thinking blocks through execute passes in the real $label, Anthropic's prefix check answering 400", (host) => {
  let mock: MockAnthropicServer
  let sandbox: PiSandbox
  let runs: RunResult[]
  let passes: (PassRow & { detail: PassDetail })[]

  beforeAll(async () => {
    let project = ""
    mock = await startMockAnthropicServer({ script: anthropicReadingScript(() => project, { pathKey: "path" }), prefixCheck: true })
    // Pi asks Claude models it does not know as adaptive for budgeted thinking, with no "drop_block" binding.
    sandbox = createPiSandbox({
      mockUrl: mock.url.replace(/\/v1$/, ""),
      host,
      files: READ_FILES,
      provider: { name: "claude-mock", api: "anthropic-messages", model: CLAUDE_MODEL, reasoning: true, thinking: "low" },
    })
    project = sandbox.project
    runs = await runPiTurns(sandbox, TURNS)
    passes = readPasses(sandbox.databaseFile)
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
    expect(executed.some((pass) => (pass.detail.reasoning?.withheld ?? 0) > 0)).toBe(true)
  })
})
