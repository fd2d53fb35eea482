import { createHash } from "node:crypto"
import { closeSync, existsSync, openSync, readFileSync, statSync, writeSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openDatabase } from "../../../src/store/open-database.js"
import { recordFaultTally } from "../../faults/fault-table.js"
import {
  isTitleRequest,
  messageText,
  startMockModelServer,
  type ChatRequest,
  type MockModelServer,
  type MockReply,
} from "../harness/mock-model-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "../harness/opencode-harness.js"
import { ANY_TAG } from "../harness/prompt-inspection.js"

// A store that fails SQLite's quick check, in the real OpenCode (Bun, bun:sqlite): the plugin refuses it, the turn
// completes as without the plugin's work, nothing is tagged, the refusal is in OpenCode's log, and the file is left
// byte for byte as it was. A second sandbox with a working store runs the same turn for the normal time; each runs
// three times, alternating, and the fastest run of each is compared (a shared machine adds seconds of noise to single
// runs; with alternation the two are within a few hundred milliseconds of each other).

const NOTES = "Deploy notes\nThe deploy key lives at vault path secret/deploy.\n"
const ROUNDS = 3
const PROMPT = ["run", "--print-logs", "--log-level", "INFO", "please", "read", "the", "notes"]

function script(project: () => string) {
  return (request: ChatRequest): MockReply => {
    if (isTitleRequest(request)) return { kind: "text", text: "Broken store" }
    const last = request.messages[request.messages.length - 1]
    if (last?.role === "tool") return { kind: "text", text: "I read the notes. DONE-MARKER" }
    return { kind: "tool", name: "read", args: { filePath: join(project(), "notes.md") } }
  }
}

/** An intact store with enough rows to span many pages, with one page in the middle overwritten with noise. */
async function damagedStore(file: string): Promise<void> {
  const db = await openDatabase(file)
  db.exec("CREATE TABLE filler (x TEXT)")
  for (let index = 0; index < 400; index += 1) db.prepare("INSERT INTO filler VALUES (?)").run([`${index}`.repeat(100)])
  db.close()
  const fd = openSync(file, "r+")
  writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, Math.floor(statSync(file).size / 4096 / 2) * 4096)
  closeSync(fd)
}

const sha256 = (file: string): string => createHash("sha256").update(readFileSync(file)).digest("hex")

describe("a damaged store in the real OpenCode", () => {
  let mock: MockModelServer
  let broken: OpenCodeSandbox
  let normal: OpenCodeSandbox
  const brokenRuns: { run: RunResult; requests: ChatRequest[] }[] = []
  const normalRuns: RunResult[] = []
  let storeBefore: string

  beforeAll(async () => {
    let project = ""
    mock = await startMockModelServer((request) => script(() => project)(request))
    normal = createOpenCodeSandbox({ mockUrl: mock.url, files: { "notes.md": NOTES } })
    broken = createOpenCodeSandbox({ mockUrl: mock.url, files: { "notes.md": NOTES } })
    await damagedStore(broken.databaseFile)
    storeBefore = sha256(broken.databaseFile)
    for (let round = 0; round < ROUNDS; round += 1) {
      project = normal.project
      normalRuns.push(await normal.run(PROMPT))
      const seen = mock.requests.length
      project = broken.project
      const run = await broken.run(PROMPT)
      const requests = mock.requests.slice(seen).map((request) => request.body).filter((body) => !isTitleRequest(body))
      brokenRuns.push({ run, requests })
    }
  })

  afterAll(async () => {
    await mock.close()
    normal.cleanup()
    broken.cleanup()
  })

  it("completes the turn, untagged, and leaves the store byte for byte as it was", () => {
    const failures = brokenRuns.map(({ run, requests }) => {
      const problems: string[] = []
      if (run.exitCode !== 0 || !run.stdout.includes("DONE-MARKER")) problems.push(`turn failed: ${run.stderr.slice(-2000)}`)
      if (requests.length !== 2) problems.push(`${requests.length} model requests, expected 2`)
      if (requests.some((request) => request.messages.some((message) => ANY_TAG.test(messageText(message))))) {
        problems.push("a request carried a tag")
      }
      if (sha256(broken.databaseFile) !== storeBefore) problems.push("the store file changed")
      const wal = `${broken.databaseFile}-wal`
      if (existsSync(wal) && statSync(wal).size > 0) problems.push("a -wal with content appeared")
      return problems
    })
    const lost = failures.filter((problems) => problems.length > 0).length
    const probe = "damaged store in OpenCode (turn completes, file untouched)"
    recordFaultTally({ probe, tried: failures.length, survived: failures.length - lost, lost })
    expect(failures.flat()).toEqual([])
    for (const run of normalRuns) expect(run.exitCode, run.stderr.slice(-2000)).toBe(0)
  })

  it("says in OpenCode's log which file is refused, why, and what to do", () => {
    for (const { run } of brokenRuns) {
      const logged = run.stderr.replace(/\\"/g, '"')
      expect(logged).toContain(`${broken.databaseFile}: the store fails SQLite's integrity check (PRAGMA quick_check: `)
      expect(logged).toContain("Move it aside (with its -wal and -shm files, if any) and magic-context starts a fresh store there")
    }
  })

  it("takes no longer than a turn with a working store, give or take a second", () => {
    const fastest = (durations: number[]): number => Math.round(Math.min(...durations))
    const withBroken = fastest(brokenRuns.map(({ run }) => run.durationMs))
    const withWorking = fastest(normalRuns.map((run) => run.durationMs))
    console.log(`fastest turn with a damaged store ${withBroken} ms, with a working store ${withWorking} ms`)
    expect(withBroken).toBeLessThan(withWorking + 1_000)
  })
})
