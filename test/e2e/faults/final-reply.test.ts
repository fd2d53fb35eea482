import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { probeTally } from "../../faults/probe-tally.js"
import { isTitleRequest, startMockModelServer, type MockModelServer } from "../harness/mock-model-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "../harness/opencode-harness.js"
import { openStoreReadOnly } from "../harness/store-reader.js"

const FINAL = "The build is fixed: the import path was wrong. FINAL-REPLY-MARKER"

/** Every stored text part of the session with its message's role and its tag, in ingest order. */
function storedTexts(file: string): { role: string; text: string; tag: number | null }[] {
  const db = openStoreReadOnly(file)
  try {
    return db
      .prepare(
        `SELECT m.role, json_extract(p.content_json, '$.text') AS text, t.tag FROM messages m
         JOIN parts p ON p.session_id = m.session_id AND p.message_id = m.id AND p.type = 'text'
         LEFT JOIN tags t ON t.session_id = p.session_id AND t.part_id = p.id
         ORDER BY m.seq, p.position`,
      )
      .all() as { role: string; text: string; tag: number | null }[]
  } finally {
    db.close()
  }
}

describe("a one-turn session in the real OpenCode", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let run: RunResult
  const tally = probeTally("session ends right after its reply (opencode run)")

  beforeAll(async () => {
    mock = await startMockModelServer((request) =>
      isTitleRequest(request) ? { kind: "text", text: "One turn" } : { kind: "text", text: FINAL },
    )
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url })
    run = await sandbox.run(["run", "--print-logs", "--log-level", "INFO", "fix", "the", "build"])
  })

  afterAll(async () => {
    tally.record()
    await mock.close()
    sandbox.cleanup()
  })

  it("holds the final assistant reply in the store after opencode run exits", () => {
    tally.tried()
    expect(run.exitCode, run.stderr.slice(-3000)).toBe(0)
    expect(run.stdout).toContain("FINAL-REPLY-MARKER")
    // One main pass ran (before the model's only answer); the answer was stored when the session went idle.
    const texts = storedTexts(sandbox.databaseFile)
    if (!texts.some((row) => row.text === FINAL)) tally.lost()
    expect(texts).toEqual([
      { role: "user", text: "fix the build", tag: 1 },
      { role: "assistant", text: FINAL, tag: 2 },
    ])
    const db = openStoreReadOnly(sandbox.databaseFile)
    const errors = db.prepare("SELECT hook, message FROM errors").all()
    const passes = db.prepare("SELECT COUNT(*) AS n FROM passes").get() as { n: number }
    db.close()
    expect(errors).toEqual([])
    expect(passes.n).toBe(1)
    tally.survived()
  })
})
