import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { openDatabase } from "../../src/store/open-database.js"
import { listSessions } from "../../src/store/session-repository.js"
import { readTranscript } from "../../src/transcript/read-transcript.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"
import { tracePath } from "../transcript/trace-path.js"

const SWE_AGENT = tracePath("sweagent-gpt4-pydicom-1458.traj")
const OPENHANDS = tracePath("openhands-llama4-ponyc.jsonl")
const PI = tracePath("pi-sonnet45-large-session.jsonl")

const TOKEN_FIELDS = ["total", "user", "assistant", "reasoning", "toolCalls", "toolOutputs", "files", "tags", "fixed"]
const TABLE_HEADER = [
  "turn",
  "msgs",
  "total",
  "fixed",
  "user",
  "assistant",
  "reasoning",
  "calls",
  "outputs",
  "files",
  "tags",
  "new tags",
]

type TurnJson = {
  turn: number
  pass: string
  messages: number
  tokens: Record<string, number>
  newTags: number[]
  tagCount: number
}

const dirs = createTempDirs()
let home: TempHome
let cwd: string

beforeEach(() => {
  home = createTempHome(dirs)
  cwd = dirs.make("cwd")
})

afterEach(() => {
  dirs.cleanup()
})

const replay = (...args: string[]) => runCliCaptured(["replay", ...args], { env: home.env, cwd })

function jsonTurns(lines: string[]): TurnJson[] {
  return lines.map((line) => JSON.parse(line) as TurnJson)
}

/** Assistant turns of the transcript: one model call each, so one pass and one output row each. */
function assistantTurns(spec: string): number[] {
  return readTranscript(spec)
    .turns.filter((turn) => turn.role === "assistant")
    .map((turn) => turn.index)
}

describe("commandReplay", () => {
  describe("on the SWE-agent trajectory", () => {
    let firstJson: { code: number; out: string[]; err: string[]; storeDirCreated: boolean }

    beforeAll(async () => {
      const isolated = createTempHome(dirs)
      const { code, io } = await runCliCaptured(["replay", SWE_AGENT, "--json"], {
        env: isolated.env,
        cwd: dirs.make("cwd"),
      })
      const storeDirCreated = existsSync(join(isolated.dataHome, "magic-context"))
      firstJson = { code, out: [...io.out], err: [...io.err], storeDirCreated }
    })

    it("prints a table with one row per assistant turn", async () => {
      const { code, io } = await replay(SWE_AGENT)
      expect(code).toBe(0)
      expect(io.err).toEqual([])
      expect(io.out[0]).toBe(
        `${SWE_AGENT}: swe-agent transcript, 12 model calls replayed, tokens counted with o200k_base`,
      )
      expect(io.out[1]).toBe("")
      expect(io.out[2]?.split(/ {2,}/)).toEqual(TABLE_HEADER)
      expect(io.out[3]).toMatch(/^-+( {2}-+){11}$/)
      const rows = io.out.slice(4).map((line) => line.trim().split(/ +/))
      expect(rows).toHaveLength(12)
      expect(rows.map((row) => Number(row[0]))).toEqual(assistantTurns(SWE_AGENT))
      const ranges = rows.map((row) => row[11] ?? "")
      let expectedFirst = 1
      for (const range of ranges) {
        const match = /^§(\d+)§(?:-§(\d+)§)?$/.exec(range)
        expect(match, `new tags column "${range}"`).not.toBeNull()
        const first = Number(match?.[1])
        const last = Number(match?.[2] ?? match?.[1])
        expect(first).toBe(expectedFirst)
        expect(last).toBeGreaterThanOrEqual(first)
        expectedFirst = last + 1
      }
    })

    it("prints the same turns as JSON lines with --json", async () => {
      const table = await replay(SWE_AGENT)
      const turns = jsonTurns(firstJson.out)
      const rows = table.io.out.slice(4).map((line) => line.trim().split(/ +/).slice(0, 11).map(Number))
      expect(turns.map((turn) => [
        turn.turn,
        turn.messages,
        turn.tokens["total"],
        turn.tokens["fixed"],
        turn.tokens["user"],
        turn.tokens["assistant"],
        turn.tokens["reasoning"],
        turn.tokens["toolCalls"],
        turn.tokens["toolOutputs"],
        turn.tokens["files"],
        turn.tokens["tags"],
      ])).toEqual(rows)
    })

    it("prints one JSON object per assistant turn with the documented fields", () => {
      expect(firstJson.code).toBe(0)
      expect(firstJson.err).toEqual([])
      const turns = jsonTurns(firstJson.out)
      expect(turns).toHaveLength(12)
      for (const turn of turns) {
        expect(Object.keys(turn)).toEqual(["turn", "pass", "messages", "tokens", "newTags", "tagCount"])
        expect(Object.keys(turn.tokens).sort()).toEqual([...TOKEN_FIELDS].sort())
        expect(turn.pass).toBe("replay")
        const parts = TOKEN_FIELDS.filter((field) => field !== "total").map((field) => turn.tokens[field] ?? NaN)
        expect(turn.tokens["total"]).toBe(parts.reduce((sum, value) => sum + value, 0))
      }
      expect(turns.map((turn) => turn.turn)).toEqual(assistantTurns(SWE_AGENT))
    })

    it("assigns consecutive tags and counts them per turn", () => {
      const turns = jsonTurns(firstJson.out)
      const allNew = turns.flatMap((turn) => turn.newTags)
      expect(allNew).toEqual(allNew.map((_, index) => index + 1))
      let seen = 0
      for (const turn of turns) {
        expect(turn.newTags.length).toBeGreaterThan(0)
        seen += turn.newTags.length
        expect(turn.tagCount).toBe(seen)
      }
      turns.slice(1).forEach((turn, index) => {
        expect(turn.tagCount).toBeGreaterThan(turns[index]?.tagCount ?? Infinity)
        expect(turn.messages).toBe((turns[index]?.messages ?? NaN) + 1)
      })
    })

    it("prints identical JSON when run again", async () => {
      const again = await replay(SWE_AGENT, "--json")
      expect(again.io.out).toEqual(firstJson.out)
    })

    it("never touches the default store without --db", () => {
      expect(firstJson.storeDirCreated).toBe(false)
    })

    it("keeps the session in the --db file", async () => {
      const { code, io } = await replay(SWE_AGENT, "--json", "--db", "replay.db")
      expect(code).toBe(0)
      expect(io.out).toEqual(firstJson.out)
      const db = await openDatabase(join(cwd, "replay.db"))
      try {
        const sessions = listSessions(db)
        const lastTagCount = jsonTurns(firstJson.out).at(-1)?.tagCount
        expect(sessions).toHaveLength(1)
        expect(sessions[0]).toMatchObject({ source: "replay", title: SWE_AGENT, tags: lastTagCount, passes: 12 })
        expect(sessions[0]?.id).toMatch(/^replay:swe-agent:/)
        expect(db.prepare("SELECT COUNT(*) AS n FROM tags").get()).toEqual({ n: lastTagCount })
      } finally {
        db.close()
      }
    })

    it("replays into an existing --db and prints exactly the same output", async () => {
      const db = join(dirs.make("db"), "replay.db")
      const first = await replay(SWE_AGENT, "--json", "--db", db)
      const second = await replay(SWE_AGENT, "--json", "--db", db)
      expect(first.io.out).toEqual(firstJson.out)
      expect(second.code).toBe(0)
      // The run resumes the stored session (every part and tag is already known) and still prints the same turns.
      expect(second.io.out).toEqual(first.io.out)
      const store = await openDatabase(db)
      try {
        expect(listSessions(store)).toMatchObject([{ tags: jsonTurns(first.io.out).at(-1)?.tagCount, passes: 24 }])
      } finally {
        store.close()
      }
    })
  })

  it.each([
    ["the absolute default store path", (store: string) => ({ db: store, cwd: undefined })],
    ["a relative path that resolves to it", (store: string) => ({ db: "./magic-context.db", cwd: join(store, "..") })],
  ])("refuses %s as --db with exit 2", async (_label, arrange) => {
    const store = join(home.dataHome, "magic-context", "magic-context.db")
    const { db, cwd: runIn = cwd } = arrange(store)
    mkdirSync(runIn, { recursive: true })
    const { code, io } = await runCliCaptured(["replay", SWE_AGENT, "--db", db], { env: home.env, cwd: runIn })
    expect(code).toBe(2)
    expect(io.out).toEqual([])
    expect(io.stderrText()).toBe(`replay never writes to the live store (${store}); give another --db path or none`)
    expect(existsSync(store)).toBe(false)
  })

  it("exits 2 without a transcript or with two", async () => {
    expect((await replay()).code).toBe(2)
    const two = await replay(SWE_AGENT, PI)
    expect(two.code).toBe(2)
    expect(two.io.stderrText()).toContain("replay takes exactly one transcript file")
  })

  it("exits 1 naming a file that does not exist", async () => {
    const missing = join(cwd, "nope.jsonl")
    const { code, io } = await replay(missing)
    expect(code).toBe(1)
    expect(io.out).toEqual([])
    expect(io.stderrText()).toBe(`${missing}: cannot read the transcript: no such file`)
  })

  it("resolves a relative transcript path against the working directory", async () => {
    const { code, io } = await replay("nope.jsonl")
    expect(code).toBe(1)
    expect(io.stderrText()).toContain(join(cwd, "nope.jsonl"))
  })

  it("exits 1 naming the file and the record of a malformed JSONL line", async () => {
    const lines = readFileSync(PI, "utf8").split("\n").slice(0, 3)
    const file = join(cwd, "broken.jsonl")
    writeFileSync(file, [...lines, '{"type":"message", oops', ""].join("\n"))
    const { code, io } = await replay(file)
    expect(code).toBe(1)
    expect(io.out).toEqual([])
    expect(io.stderrText()).toMatch(new RegExp(`^${file}: record 3: not valid JSON \\(`))
  })

  it("exits 1 saying how many trajectories a file holds for FILE#9", async () => {
    const { code, io } = await replay(`${OPENHANDS}#9`, "--json")
    expect(code).toBe(1)
    expect(io.out).toEqual([])
    expect(io.stderrText()).toBe(`${OPENHANDS}#9: no such trajectory: it holds 3 (#0 to #2)`)
  })

  it("counts with the encoding set in a --config file and reports config problems on stderr", async () => {
    const config = join(cwd, "extra.jsonc")
    writeFileSync(config, '{ "tokenizer": { "encoding": "cl100k_base" }, "typo": 1 }')
    const { code, io } = await replay(SWE_AGENT, "--config", config)
    expect(code).toBe(0)
    expect(io.out[0]).toBe(
      `${SWE_AGENT}: swe-agent transcript, 12 model calls replayed, tokens counted with cl100k_base`,
    )
    expect(io.err).toEqual([expect.stringContaining(`${config}: key "typo" has value 1, expected no such key`)])
  })
})
