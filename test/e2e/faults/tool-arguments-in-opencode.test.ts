import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_TOOL_ANSWER_CHARS, STORED_ARGUMENT_CHARS } from "../../../src/reduce/answer-bounds.js"
import { recordFaultTally } from "../../faults/fault-table.js"
import { fixtureText } from "../harness/fixture-text.js"
import { newestMessage } from "../harness/history-inspection.js"
import { isTitleRequest, messageText, startMockModelServer, type ChatRequest, type MockModelServer } from "../harness/mock-model-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "../harness/opencode-harness.js"
import { keepRequests, TAG_PREFIX } from "../harness/prompt-inspection.js"
import { createTurnScript, type TurnStep } from "../harness/scripted-turns.js"
import { openStoreReadOnly } from "../harness/store-reader.js"

const MB = 1024 * 1024

/** The hostile calls the mock model makes, one per step, after reading a file. */
const CALLS: { name: string; args: Record<string, unknown>; answer: RegExp }[] = [
  {
    name: "ctx_reduce",
    args: { drop: "1,".repeat(MB / 2) },
    answer: /^Nothing was queued: drop is 1,048,576 characters long; one call takes at most 10,000 characters/,
  },
  {
    name: "ctx_reduce",
    args: { drop: Array.from({ length: 333 }, (_, index) => 1_000 + 2 * index).join(",") },
    answer: /^Rejected 333 tags \(§1000§, §1002§, §1004§, §1006§, §1008§, §1010§ and 327 more tags\): no such tag/,
  },
  { name: "ctx_pin", args: { tags: `${"§".repeat(MB)}1` }, answer: /^Nothing was pinned: tags is 1,048,577 characters long/ },
  {
    name: "ctx_expand",
    args: { target: "c".repeat(MB) },
    answer: /^target is 1,048,576 characters long: give one episode id like "c12" or one tag like "§42§"\.$/,
  },
]

describe("hostile ctx_* arguments in the real OpenCode", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let run: RunResult

  /** What each ctx_* call answered, read from the request that carries its result (the next step's). */
  const answers: string[] = []

  beforeAll(async () => {
    let project = ""
    const answerOf = (request: ChatRequest): string => {
      const newest = newestMessage(request)
      return newest?.role === "tool" ? messageText(newest).replace(TAG_PREFIX, "") : ""
    }
    const steps: TurnStep[] = [
      () => ({ kind: "tool", name: "read", args: { filePath: join(project, "a.txt") } }),
      ...CALLS.map((call, index): TurnStep => (request) => {
        if (index > 0) answers.push(answerOf(request))
        return { kind: "tool", name: call.name, args: call.args }
      }),
      (request) => {
        answers.push(answerOf(request))
        return { kind: "text", text: "TOOLS-DONE" }
      },
    ]
    const script = createTurnScript([{ marker: "try the tools", steps }])
    mock = await startMockModelServer((request, n) => {
      if (isTitleRequest(request)) return { kind: "text", text: "Tool arguments" }
      return script(request, n) ?? { kind: "text", text: "OFF-SCRIPT" }
    })
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url, files: { "a.txt": fixtureText("A", 2_000) } })
    project = sandbox.project
    run = await sandbox.run(["run", "please", "try", "the", "tools"])
  })

  afterAll(async () => {
    keepRequests(sandbox.root, mock)
    await mock.close()
    sandbox.cleanup()
  })

  it("answers each call in a bounded sentence, completes the turn and records nothing as an error", () => {
    expect(run.exitCode, run.stderr.slice(-3_000)).toBe(0)
    expect(run.stdout).toContain("TOOLS-DONE")
    expect(run.durationMs).toBeLessThan(60_000)
    const survived = CALLS.filter((call, index) => {
      const answer = answers[index] ?? ""
      return call.answer.test(answer) && answer.length <= MAX_TOOL_ANSWER_CHARS
    }).length
    recordFaultTally({ probe: "ctx_* arguments in OpenCode", tried: CALLS.length, survived, lost: CALLS.length - survived })
    CALLS.forEach((call, index) => expect(answers[index]).toMatch(call.answer))
    for (const answer of answers) expect(answer.length).toBeLessThanOrEqual(MAX_TOOL_ANSWER_CHARS)

    const db = openStoreReadOnly(sandbox.databaseFile)
    try {
      expect(db.prepare("SELECT hook, message FROM errors").all()).toEqual([])
      // What the plugin wrote itself stays small; the host's tool parts keep the whole arguments, pristine.
      const stored = db.prepare("SELECT LENGTH(drop_argument) AS length FROM reduce_calls ORDER BY id").all() as { length: number }[]
      expect(stored).toHaveLength(2)
      for (const row of stored) expect(row.length).toBeLessThanOrEqual(STORED_ARGUMENT_CHARS + 30)
      const inputs = db
        .prepare("SELECT content_json FROM parts WHERE content_json LIKE '%\"tool\":\"ctx_%'")
        .all()
        .map((row) => (JSON.parse((row as { content_json: string }).content_json) as { state: { input: Record<string, unknown> } }).state.input)
      expect(inputs).toEqual(CALLS.map((call) => call.args))
    } finally {
      db.close()
    }
  })
})
