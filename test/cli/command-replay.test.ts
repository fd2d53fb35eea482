import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { openDatabase } from "../../src/store/open-database.js"
import { recordPass } from "../../src/store/pass-repository.js"
import { ensureSession, listSessions } from "../../src/store/session-repository.js"
import { REPO_ROOT } from "../e2e/harness/opencode-harness.js"
import { readTranscript } from "../../src/transcript/read-transcript.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"
import { tracePath } from "../transcript/trace-path.js"

const SWE_AGENT = tracePath("sweagent-gpt4-pydicom-1458.traj")
const OPENHANDS = tracePath("openhands-llama4-ponyc.jsonl")
const PI = tracePath("pi-sonnet45-large-session.jsonl")

/** Lines of the legend under the table (its heading included). */
const LEGEND_LINES = 15

const TOKEN_FIELDS = ["total", "fixed", "history", "conversation", "protected", "tool", "reclaimable", "tags"]
const TURN_FIELDS = [
  "turn",
  "pass",
  "reason",
  "band",
  "usageBefore",
  "tokens",
  "prefixChanged",
  "firstDivergence",
  "dropped",
  "nudge",
  "tiers",
  "floorViolations",
  "tierSwitches",
  "messages",
  "newTags",
  "tagCount",
  "priceList",
  "cost",
  "sessionCost",
  "hostAloneCost",
  "hostAloneSessionCost",
]
const TABLE_HEADER = [
  "turn",
  "pass",
  "band",
  "use%",
  "total",
  "fixed",
  "hist",
  "conv",
  "prot",
  "tool",
  "reclaim",
  "prefix",
  "dropped",
  "nudge",
]
const BANDS = ["below", "execute", "force", "emergency"]

type TurnJson = {
  turn: number
  pass: string
  reason: string
  band: string
  usageBefore: number
  tokens: Record<string, number>
  prefixChanged: boolean
  firstDivergence: number | null
  dropped: number[]
  nudge: { level: string; channel: number } | null
  messages: number
  newTags: number[]
  tagCount: number
  priceList: string
  cost: number
  sessionCost: number
  hostAloneCost: number | null
  hostAloneSessionCost: number | null
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

    it("prints a header, a table with one row per assistant turn and a summary", async () => {
      const { code, io } = await replay(SWE_AGENT)
      expect(code).toBe(0)
      expect(io.err).toEqual([])
      expect(io.out[0]).toBe(
        `${SWE_AGENT}: swe-agent transcript, 12 model calls replayed; usable window 123,904 tokens (fallback), ` +
          "execute threshold 65%, protected 11,400 tokens; fixed prompt 1,114 tokens (the transcript's system prompt); " +
          "tokens counted with o200k_base",
      )
      expect(io.out[1]).toBe("")
      expect(io.out[2]?.trim().split(/ {2,}/)).toEqual(TABLE_HEADER)
      expect(io.out[3]).toMatch(/^-+( {2}-+){13}$/)
      const rows = io.out.slice(4, 16).map((line) => line.trim().split(/ +/))
      expect(rows.map((row) => Number(row[0]))).toEqual(assistantTurns(SWE_AGENT))
      expect(rows.every((row) => row[1] === "replay" && row[11] === "kept" && row[12] === "-")).toBe(true)
      expect(io.out[16]).toBe("")
      // The legend, once under the table: every column the table has, and the bands at this window's thresholds.
      const legend = io.out.slice(17, 17 + LEGEND_LINES)
      expect(legend[0]).toBe("Legend:")
      expect(io.out[17 + LEGEND_LINES]).toBe("")
      for (const column of ["pass", "band", "use%", "total", "prefix", "dropped", "nudge"]) {
        expect(legend.some((line) => line.startsWith(`  ${column} `)), column).toBe(true)
      }
      for (const column of ["fixed", "hist", "conv", "prot", "tool", "reclaim", "changed@N", "execute pass in band below"]) {
        expect(legend.join(" "), column).toContain(column)
      }
      expect(legend.join(" ").replace(/\s+/g, " ")).toContain("below (under 65%, the execute threshold), execute (from 65%), force (from 85%), emergency (from 95%)")
      expect(io.out.filter((line) => line === "Legend:")).toHaveLength(1)
      const after = io.out.slice(18 + LEGEND_LINES)
      const turns = jsonTurns(firstJson.out)
      const mean = Math.round(turns.reduce((sum, turn) => sum + (turn.tokens["total"] ?? NaN), 0) / turns.length)
      const summary = /^0 execute passes, 12 replay passes; prefix changed on 0 passes; mean prompt ([\d,]+) tokens; peak usage before a pass (\d+\.\d)%$/.exec(
        after[0] ?? "",
      )
      expect(summary, after[0]).not.toBeNull()
      expect(summary?.[1]).toBe(mean.toLocaleString("en-US"))
      expect(Number(summary?.[2])).toBeCloseTo(Math.max(...turns.map((turn) => turn.usageBefore)), 0)
      // Then the newcomer's summary: nothing crossed the threshold in this window, so it says how to see the engine work.
      expect(after[1]).toBe("")
      expect(after[2]).toMatch(/^Nothing needed doing: usage peaked at \d+\.\d% of the 123,904-token window \(execute threshold 65%\).* e\.g\. --window \d+\.$/)
      expect(after[3]).toMatch(/^Against the same session unreduced: mean prompt ([\d,]+) vs \1 tokens \(the same\)\.$/)
      // The price list in force (the trajectory records no provider: the Lab's) and the same cost as unreduced: nothing
      // was changed.
      expect(after[4]).toBe(
        "Price list openai (a replay without a provider: the Lab's list): cached read 0.1×, cache write 1× the uncached input price.",
      )
      expect(after[5]).toMatch(/^Under it, estimated prompt cost ([\d,]+) vs \1 without magic-context \(the same\)\.$/)
      expect(after[6]).toMatch(/^Next: --json/)
      expect(after).toHaveLength(7)
    })

    it("ends a run that crossed the threshold with what it did and what it saved against the session unreduced", async () => {
      const { code, io } = await replay(SWE_AGENT, "--window", "8000")
      expect(code).toBe(0)
      const did = io.out.find((line) => line.startsWith("What the engine did: "))
      expect(did).toMatch(/^What the engine did: \d+ execute pass(es)?; .*\d+ tool outputs? dropped or reclaimed/)
      const saved = /^Against the same session unreduced: mean prompt ([\d,]+) vs ([\d,]+) tokens \(−(\d+)%\)/.exec(
        io.out.find((line) => line.startsWith("Against the same session unreduced")) ?? "",
      )
      expect(saved).not.toBeNull()
      const [reduced, unreduced] = [saved?.[1], saved?.[2]].map((value) => Number(value?.replace(/,/g, "")))
      expect(reduced).toBeLessThan(unreduced as number)
      expect(Number(saved?.[3])).toBe(Math.round((1 - (reduced as number) / (unreduced as number)) * 100))
      // A given window names no provider: the Lab's list, said as such.
      expect(io.out).toContain(
        "Price list openai (a replay without a provider: the Lab's list): cached read 0.1×, cache write 1× the uncached input price.",
      )
      // Under the price list in force: less than the host alone, and what the last execute pass cost and saves.
      const priced = /^Under it, estimated prompt cost ([\d,]+) vs ([\d,]+) without magic-context \(−(\d+)%\)\.$/.exec(
        io.out.find((line) => line.startsWith("Under it, ")) ?? "",
      )
      expect(priced).not.toBeNull()
      const [withPlugin, alone] = [priced?.[1], priced?.[2]].map((value) => Number(value?.replace(/,/g, "")))
      expect(withPlugin).toBeLessThan(alone as number)
      expect(io.out.find((line) => line.startsWith("The last execute pass"))).toMatch(
        /^The last execute pass \(turn \d+\): its request cost [\d,]+; it saves [\d,]+ a call, [\d,]+ so far \(\d+ calls?\)\.$/,
      )
    })

    it("prints one JSON object per assistant turn with the documented fields", () => {
      expect(firstJson.code).toBe(0)
      expect(firstJson.err).toEqual([])
      const turns = jsonTurns(firstJson.out)
      expect(turns).toHaveLength(12)
      for (const turn of turns) {
        expect(Object.keys(turn)).toEqual(TURN_FIELDS)
        expect(Object.keys(turn.tokens)).toEqual(TOKEN_FIELDS)
        expect(turn).toMatchObject({
          pass: "replay",
          reason: "below-threshold",
          band: "below",
          prefixChanged: false,
          firstDivergence: null,
          dropped: [],
          nudge: null,
        })
        const { total, fixed, history, conversation, protected: recent, tool, reclaimable, tags } = turn.tokens
        expect(total).toBe((fixed ?? NaN) + (history ?? NaN) + (conversation ?? NaN) + (recent ?? NaN) + (tool ?? NaN))
        expect(reclaimable).toBeLessThanOrEqual(tool ?? NaN)
        expect(tags).toBeGreaterThan(0)
        expect(turn.usageBefore).toBe(Math.round(((total ?? NaN) / 123_904) * 1000) / 10)
      }
      expect(turns.map((turn) => turn.turn)).toEqual(assistantTurns(SWE_AGENT))
      // The cost fields: each call under the list in force, the running totals adding them up, the host alone's the same
      // here (no pass changed the prompt).
      let session = 0
      for (const turn of turns) {
        expect(turn.priceList).toBe("openai")
        session += turn.cost
        expect(turn.sessionCost).toBeCloseTo(session, 0)
        expect(turn.hostAloneCost).toBeCloseTo(turn.cost, 0)
      }
      expect(turns[0]?.cost).toBe(turns[0]?.tokens["total"])
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

  describe("with --window and --threshold", () => {
    it("prints the same turns as the table and JSON lines, executes under pressure and keeps the prefix otherwise", async () => {
      const table = await replay(SWE_AGENT, "--window", "12000")
      const json = await replay(SWE_AGENT, "--window", "12000", "--json")
      expect([table.code, json.code]).toEqual([0, 0])
      expect(table.io.out[0]).toBe(
        `${SWE_AGENT}: swe-agent transcript, 12 model calls replayed; usable window 12,000 tokens (--window), ` +
          "execute threshold 65%, protected 2,183 tokens; fixed prompt 1,114 tokens (the transcript's system prompt); " +
          "tokens counted with o200k_base",
      )
      const turns = jsonTurns(json.io.out)
      const rows = table.io.out.slice(4, 16).map((line) => line.trim().split(/ +/))
      expect(rows.map((row) => [row[0], row[1], row[2], ...row.slice(4)])).toEqual(
        turns.map((turn) => [
          String(turn.turn),
          turn.pass,
          turn.band,
          ...["total", "fixed", "history", "conversation", "protected", "tool", "reclaimable"].map((field) =>
            String(turn.tokens[field]),
          ),
          turn.prefixChanged ? `changed@${turn.firstDivergence}` : "kept",
          ...(turn.dropped.length > 0 ? [String(turn.dropped.length), "tags"] : ["-"]),
          turn.nudge ? `${turn.nudge.level}/${turn.nudge.channel}` : "-",
        ]),
      )
      rows.forEach(
        (row, index) => expect(Math.abs(Number(row[3]) - (turns[index]?.usageBefore ?? NaN))).toBeLessThanOrEqual(1),
      )

      const executes = turns.filter((turn) => turn.pass === "execute")
      expect(executes.length).toBeGreaterThan(0)
      expect(executes.flatMap((turn) => turn.dropped).length).toBeGreaterThan(0)
      for (const turn of turns) {
        expect(BANDS).toContain(turn.band)
        if (turn.pass === "replay") expect([turn.prefixChanged, turn.dropped]).toEqual([false, []])
        if (turn.pass === "execute") expect(turn.usageBefore).toBeGreaterThanOrEqual(65)
      }
      expect(table.io.out[18 + LEGEND_LINES]).toMatch(
        new RegExp(`^${executes.length} execute passes, ${12 - executes.length} replay passes; prefix changed on ` +
          `${turns.filter((turn) => turn.prefixChanged).length} passes;`),
      )
    })

    it("moves the execute threshold with --threshold", async () => {
      const { code, io } = await replay(SWE_AGENT, "--window", "12000", "--threshold", "90", "--json")
      expect(code).toBe(0)
      const turns = jsonTurns(io.out)
      // At 90% the force band starts at 92%, so nothing below 90% is an execute band.
      for (const turn of turns) {
        if (turn.usageBefore < 90) expect(turn.band).toBe("below")
        if (turn.usageBefore >= 90 && turn.usageBefore < 92) expect(turn.band).toBe("execute")
      }
      const table = await replay(SWE_AGENT, "--window", "12000", "--threshold", "90")
      expect(table.io.out[0]).toContain("usable window 12,000 tokens (--window), execute threshold 90%")
    })

    it.each([
      [["--window", "abc"], '--window takes an integer at least 1000, got "abc"'],
      [["--window", "999"], '--window takes an integer at least 1000, got "999"'],
      [["--window", "1500.5"], '--window takes an integer at least 1000, got "1500.5"'],
      [["--threshold", "19.9"], '--threshold takes a number between 20 and 92, got "19.9"'],
      [["--threshold", "93"], '--threshold takes a number between 20 and 92, got "93"'],
      [["--threshold", "high"], '--threshold takes a number between 20 and 92, got "high"'],
    ])("exits 2 on %j", async (args, message) => {
      const { code, io } = await replay(SWE_AGENT, ...args)
      expect(code).toBe(2)
      expect(io.out).toEqual([])
      expect(io.stderrText()).toBe(message)
    })

    it("decides and prices under the list the config names for the transcript's model, not OpenAI's", async () => {
      const config = join(cwd, "anthropic-list.jsonc")
      // The trajectory records no model: a replay runs as replay/unknown, which "*" matches.
      writeFileSync(config, '{ "tokenizer": { "encoding": "cl100k_base" }, "models": { "*": { "price_list": "anthropic-1h" } } }')
      const { code, io } = await replay(SWE_AGENT, "--window", "8000", "--config", config)
      expect(code).toBe(0)
      expect(io.out).toContain(
        "Price list anthropic-1h (named in the config): cached read 0.1×, cache write 2× the uncached input price.",
      )
      const json = await replay(SWE_AGENT, "--window", "8000", "--config", config, "--json")
      expect(jsonTurns(json.io.out).map((turn) => turn.priceList)).toEqual(assistantTurns(SWE_AGENT).map(() => "anthropic-1h"))
    })

    it("takes --price-list over the config's list, and refuses a list it does not know", async () => {
      const config = join(cwd, "anthropic-list.jsonc")
      writeFileSync(config, '{ "tokenizer": { "encoding": "cl100k_base" }, "models": { "*": { "price_list": "anthropic-1h" } } }')
      const { code, io } = await replay(SWE_AGENT, "--window", "8000", "--config", config, "--price-list", "anthropic-5m")
      expect(code).toBe(0)
      expect(io.out).toContain(
        "Price list anthropic-5m (named in the config): cached read 0.1×, cache write 1.25× the uncached input price.",
      )
      const bad = await replay(SWE_AGENT, "--window", "8000", "--price-list", "anthropic")
      expect(bad.code).toBe(2)
      expect(bad.io.stderrText()).toBe('--price-list takes one of anthropic-5m, anthropic-1h, openai, google, got "anthropic"')
    })

    it.each([["20"], ["92"], ["70.5"]])("accepts --threshold %s", async (threshold) => {
      // cl100k_base builds in a tenth of o200k_base's time; the encoding does not matter here.
      const config = join(cwd, "cl100k.jsonc")
      writeFileSync(config, '{ "tokenizer": { "encoding": "cl100k_base" } }')
      const { code, io } = await replay(SWE_AGENT, "--window", "1000", "--threshold", threshold, "--config", config)
      expect(code).toBe(0)
      expect(io.out[0]).toContain(`execute threshold ${threshold}%`)
    })
  })

  describe("with --fixed-tokens", () => {
    /** The summary's two means: the replay's and the unreduced baseline's. */
    const means = (out: string[]): number[] => {
      const saved = /^Against the same session unreduced: mean prompt ([\d,]+) vs ([\d,]+) tokens/.exec(
        out.find((line) => line.startsWith("Against the same session unreduced")) ?? "",
      )
      return [saved?.[1], saved?.[2]].map((value) => Number(value?.replace(/,/g, "") ?? NaN))
    }

    it("counts the same fixed prompt in the unreduced baseline as in the replay", async () => {
      const plain = await replay(SWE_AGENT)
      const fixed = await replay(SWE_AGENT, "--fixed-tokens", "20000")
      expect(plain.code).toBe(0)
      expect(fixed.code).toBe(0)
      const [plainReduced, plainUnreduced] = means(plain.io.out)
      const [fixedReduced, fixedUnreduced] = means(fixed.io.out)
      // The window is never filled either way, so the prompts are the host's (tags added) and the two means agree.
      expect(fixed.io.out.some((line) => /^Against the same session unreduced: .* \(the same\)/.test(line))).toBe(true)
      expect(fixedReduced).toBe(fixedUnreduced)
      // The flag's fixed prompt replaced the trajectory's system prompt in both.
      expect((fixedReduced as number) - (plainReduced as number)).toBe((fixedUnreduced as number) - (plainUnreduced as number))
      expect(fixedReduced).toBeGreaterThan(plainReduced as number)
    })

    it("measures the saving of a run under pressure against a baseline with the same fixed prompt", async () => {
      const { code, io } = await replay(SWE_AGENT, "--window", "30000", "--fixed-tokens", "6000", "--json")
      expect(code).toBe(0)
      const turns = jsonTurns(io.out)
      expect(turns.every((turn) => turn.tokens["fixed"] === 6000)).toBe(true)
      const table = await replay(SWE_AGENT, "--window", "30000", "--fixed-tokens", "6000")
      const plain = await replay(SWE_AGENT, "--window", "1000000000")
      const [, unreduced] = means(table.io.out)
      const [unreducedAlone] = means(plain.io.out)
      const systemTokens = (jsonTurns((await replay(SWE_AGENT, "--json")).io.out)[0]?.tokens["fixed"]) ?? NaN
      // The baseline's mean is the host's prompts with the flag's 6,000 fixed tokens in place of the system prompt.
      expect(unreduced).toBe((unreducedAlone as number) - systemTokens + 6000)
    })
  })

  describe("on an `opencode export` of a session the live store holds", () => {
    const EXPORT = join(REPO_ROOT, "fixtures", "opencode-session", "session.json")
    const SESSION_ID = "ses_dd722cc62ffeJqK49gscc4c3uA"
    const breakdown = { total: 30_000, fixed: 9_876, history: 0, conversation: 10_000, protected: 5_000, tool: 5_124, reclaimable: 0, tags: 40 }

    /** The live store of `home` with the session's newest pass at a 52,000-token window and a 9,876-token fixed prompt. */
    async function liveStore(): Promise<void> {
      const db = await openDatabase(join(home.dataHome, "magic-context", "magic-context.db"))
      ensureSession(db, { id: SESSION_ID, source: "opencode", projectId: null, directory: cwd, title: null }, 1_000)
      for (const [seq, window] of [[1, 40_000], [2, 52_000]] as const) {
        recordPass(db, {
          sessionId: SESSION_ID, seq, startedAt: 1_000 + seq, durationMs: 1, trigger: "transform", decision: "replay", band: "below",
          usageTokens: 30_000, windowTokens: window, messageCount: 10, newParts: 0, newTags: 0, renderedTokens: 30_000,
          renderedHash: null, firstDivergence: null, detail: { reason: "below", breakdown: { ...breakdown, fixed: seq === 2 ? 9_876 : 1 } }, error: null,
        })
      }
      db.close()
    }

    it("runs with the window and the fixed prompt the live session's newest pass ran with, and says so", async () => {
      await liveStore()
      const store = join(home.dataHome, "magic-context", "magic-context.db")
      const { code, io } = await replay(EXPORT)
      expect(code).toBe(0)
      expect(io.out[0]).toContain(`usable window 52,000 tokens (as the live session ran, ${store})`)
      expect(io.out[0]).toContain(`fixed prompt 9,876 tokens (as the live session ran, ${store})`)
      const turns = jsonTurns((await replay(EXPORT, "--json")).io.out)
      expect(turns.every((turn) => turn.tokens["fixed"] === 9_876)).toBe(true)
      // The live store is only read.
      const db = await openDatabase(store)
      expect(listSessions(db).map((session) => session.id)).toEqual([SESSION_ID])
      db.close()
    })

    it("takes the flags over the live record, and the defaults without a record, naming each", async () => {
      await liveStore()
      const flagged = await replay(EXPORT, "--window", "30000", "--fixed-tokens", "500")
      expect(flagged.io.out[0]).toContain("usable window 30,000 tokens (--window)")
      expect(flagged.io.out[0]).toContain("fixed prompt 500 tokens (--fixed-tokens)")
      const elsewhere = await runCliCaptured(["replay", EXPORT], { env: createTempHome(dirs).env, cwd })
      expect(elsewhere.io.out[0]).toContain("usable window 123,904 tokens (fallback)")
      expect(elsewhere.io.out[0]).toContain("fixed prompt 0 tokens (none recorded: --fixed-tokens sets it)")
    })
  })

  describe("with --smart-drops", () => {
    /** The first 40 records of the pi session: an edit of a file is superseded by a newer edit of it by turn 28. */
    const piStart = (): string => {
      const file = join(cwd, "pi-start.jsonl")
      writeFileSync(file, readFileSync(PI, "utf8").split("\n").slice(0, 40).join("\n") + "\n")
      return file
    }

    it("lands smart drops that replay without it does not, whether asked by flag or by config", async () => {
      const file = piStart()
      const config = join(cwd, "smart.jsonc")
      writeFileSync(config, '{ "smart_drops": true }')
      const plain = await replay(file, "--window", "30000", "--json")
      const flag = await replay(file, "--window", "30000", "--json", "--smart-drops")
      const configured = await replay(file, "--window", "30000", "--json", "--config", config)
      const plainDropped = new Set(jsonTurns(plain.io.out).flatMap((turn) => turn.dropped))
      const extra = jsonTurns(flag.io.out).flatMap((turn) => turn.dropped).filter((tag) => !plainDropped.has(tag))
      expect(extra.length).toBeGreaterThan(0)
      expect(configured.io.out).toEqual(flag.io.out)
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
    expect(io.out[0]?.startsWith(`${SWE_AGENT}: swe-agent transcript, 12 model calls replayed; `)).toBe(true)
    expect(io.out[0]?.endsWith("; tokens counted with cl100k_base")).toBe(true)
    expect(io.err).toEqual([`${config}: unknown key "typo" (check the spelling against docs/configuration.md); its value 1 is ignored`])
  })

  it("says on stderr, naming the file, when history_landing had to be clamped under the threshold", async () => {
    const config = join(cwd, "landing.jsonc")
    writeFileSync(config, '{ "history_landing": 70 }')
    const { code, io } = await replay(SWE_AGENT, "--window", "30000", "--config", config)
    expect(code).toBe(0)
    expect(io.err).toEqual([
      `${config}: history_landing 70% is not 5 points under the execute threshold (65%): execute passes land at 60% of the usable window`,
    ])
  })
})
