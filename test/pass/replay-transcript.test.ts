import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { replayTranscript, type ReplayTurn } from "../../src/pass/replay-transcript.js"
import { defaultConfig } from "../../src/config/schema.js"
import { fixedWindow, type WindowSettings } from "../../src/pressure/model-window.js"
import type { Database } from "../../src/store/driver.js"
import { readRawParts } from "../../src/store/raw-repository.js"
import { countSessionRows } from "../../src/store/raw-repository.js"
import { loadSessionState } from "../../src/store/session-repository.js"
import { createTokenCounterPool, type TokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import type { TokenCounter } from "../../src/tokens/token-counter.js"
import { createHostTranscriptBuilder } from "../../src/transcript/host-transcript-builder.js"
import { readTranscript } from "../../src/transcript/read-transcript.js"
import { listTrackables } from "../../src/transcript/trackables.js"
import type { Transcript } from "../../src/transcript/turn-model.js"
import { fixedClock, memoryStore, ROOMY_WINDOW, wordCounter } from "../helpers/host-messages.js"
import { tracePath } from "../transcript/trace-path.js"

const SWE_AGENT = tracePath("sweagent-gpt4-pydicom-1458.traj")
const PI = tracePath("pi-sonnet45-large-session.jsonl")

let pool: TokenCounterPool
let counter: TokenCounter

beforeAll(() => {
  pool = createTokenCounterPool()
  counter = pool.counterFor("o200k_base")
})

afterAll(() => {
  pool.dispose()
})

const replay = (
  transcript: Transcript,
  db: Database,
  tokens: TokenCounter = counter,
  window: WindowSettings = ROOMY_WINDOW,
  smartDrops = false,
) => {
  const turns: ReplayTurn[] = []
  const onTurn = (turn: ReplayTurn): void => void turns.push(turn)
  const outcome = replayTranscript({ transcript, db, counter: tokens, clock: fixedClock, window, smartDrops, policy: "default", onTurn })
  return { ...outcome, turns }
}

/** What a replayed turn says, without the tags it happened to assign. */
const comparable = (turn: ReplayTurn) => ({ ...turn, newTags: undefined, prompt: JSON.stringify(turn.prompt) })

describe("replayTranscript", () => {
  describe("on a SWE-agent trajectory", () => {
    let transcript: Transcript
    let db: Database
    let first: ReturnType<typeof replay>

    beforeAll(async () => {
      transcript = readTranscript(SWE_AGENT)
      db = await memoryStore()
      first = replay(transcript, db)
    })

    afterAll(() => {
      db.close()
    })

    it("runs one pass before every assistant turn, named by its source index", () => {
      const assistantTurns = transcript.turns.filter((turn) => turn.role === "assistant").map((turn) => turn.index)
      expect(assistantTurns).toHaveLength(12)
      expect(first.passes).toBe(12)
      expect(first.turns.map((turn) => turn.turn)).toEqual(assistantTurns)
      expect(first.turns.every((turn) => turn.pass === "replay" && turn.band === "below")).toBe(true)
      expect(first.turns.every((turn) => !turn.prefixChanged && turn.dropped.length === 0)).toBe(true)
      expect(first.sessionId).toBe("replay:swe-agent:sweagent-gpt4-pydicom-1458")
    })

    it("sends every earlier turn's message and never loses tokens while nothing is reduced", () => {
      for (const [index, turn] of first.turns.entries()) {
        const previous = first.turns[index - 1]
        if (!previous) continue
        expect(turn.messages).toBeGreaterThan(previous.messages)
        expect(turn.tokens.total).toBeGreaterThanOrEqual(previous.tokens.total)
        expect(turn.tagCount).toBeGreaterThanOrEqual(previous.tagCount)
      }
    })

    it("counts the system prompt as fixed tokens on top of the messages", () => {
      const fixed = counter.count(transcript.system ?? "")
      expect(fixed).toBeGreaterThan(0)
      for (const turn of first.turns) {
        expect(turn.tokens.fixed).toBe(fixed)
        const { total, history, conversation, protected: recent, tool } = turn.tokens
        expect(total).toBe(fixed + history + conversation + recent + tool)
      }
    })

    it("assigns every tag once, in order, and reports the running count", () => {
      const assigned = first.turns.flatMap((turn) => turn.newTags)
      expect(assigned).toEqual(Array.from({ length: assigned.length }, (_, index) => index + 1))
      for (const turn of first.turns) expect(turn.tagCount).toBe(turn.newTags.at(-1) ?? turn.tagCount)
      expect(first.turns.at(-1)?.tagCount).toBe(assigned.length)
    })

    it("renders each tool output with its tag", () => {
      const last = first.turns.at(-1)
      const tools = last?.prompt.flatMap((message) => message.parts).filter((part) => part.type === "tool") ?? []
      expect(tools).toHaveLength(11)
      for (const part of tools) {
        if (part.state.status !== "completed") throw new Error(`tool ${part.id} is ${part.state.status}`)
        expect(part.state.output).toMatch(/^§\d+§ /)
      }
    })

    it("gives identical turns and stores nothing new when replayed into the same store again", () => {
      const rowsBefore = countSessionRows(db, first.sessionId)
      const second = replay(transcript, db)
      expect(second.sessionId).toBe(first.sessionId)
      expect(second.turns.map(comparable)).toEqual(first.turns.map(comparable))
      expect(second.turns.map((turn) => turn.newTags)).toEqual(first.turns.map((turn) => turn.newTags))
      expect(countSessionRows(db, first.sessionId)).toEqual({ ...rowsBefore, passes: rowsBefore.passes + 12 })
    })

    it("renders the same prompts into a fresh store", async () => {
      const other = await memoryStore()
      const again = replay(transcript, other)
      expect(again.turns.map((turn) => JSON.stringify(turn))).toEqual(first.turns.map((turn) => JSON.stringify(turn)))
      other.close()
    })
  })

  describe("on a SWE-agent trajectory in a small window", () => {
    const window = fixedWindow({ usableTokens: 12_000, config: defaultConfig() })

    it("executes only under pressure, drops only then, and keeps the prefix on every other pass", async () => {
      const db = await memoryStore()
      const { turns, sessionId } = replay(readTranscript(SWE_AGENT), db, counter, window)
      const executes = turns.filter((turn) => turn.pass === "execute")
      expect(executes.length).toBeGreaterThan(0)
      for (const turn of turns.filter((entry) => entry.pass === "replay")) {
        expect(turn.prefixChanged).toBe(false)
        expect(turn.dropped).toEqual([])
      }
      for (const turn of executes) {
        expect(["force", "emergency", "execute"]).toContain(turn.band)
        expect(turn.usageBefore).toBeGreaterThanOrEqual(window.thresholdPercent)
        // Dropping older output rewrites the middle of the prompt: the cache is rebuilt on purpose.
        if (turn.dropped.length > 0) expect(turn.prefixChanged).toBe(true)
      }
      // Every dropped tool output renders as its marker from then on, unless its message was folded into history
      // since (then it is not in the prompt at all); the store keeps the raw output either way.
      const dropped = executes.flatMap((turn) => turn.dropped)
      expect(dropped.length).toBeGreaterThan(0)
      const last = turns.at(-1)
      const outputs = new Map(
        last?.prompt
          .flatMap((message) => message.parts)
          .flatMap((part) =>
            part.type === "tool" && part.state.status === "completed" ? [[part.id, part.state.output] as const] : [],
          ),
      )
      const state = loadSessionState(db, sessionId, () => 0)
      const raw = new Map(readRawParts(db, sessionId).map((part) => [part.id, part.content]))
      for (const tag of dropped) {
        const record = state.tagsByNumber.get(tag)
        expect(record?.status).toBe("dropped")
        const shown = outputs.get(record?.partId ?? "")
        if (shown === undefined) expect(state.applied.history?.foldedThroughSeq ?? 0).toBeGreaterThanOrEqual(state.messageSeq.get(record?.messageId ?? "") ?? Infinity)
        else expect(shown).toBe(`[dropped §${tag}§ ${record?.tool} output]`)
        expect(JSON.stringify(raw.get(record?.partId ?? ""))).not.toContain("[dropped")
      }
      db.close()
    })

    it("replays the same decisions into a fresh store", async () => {
      const one = await memoryStore()
      const two = await memoryStore()
      const first = replay(readTranscript(SWE_AGENT), one, counter, window)
      const second = replay(readTranscript(SWE_AGENT), two, counter, window)
      expect(second.turns.map((turn) => JSON.stringify(turn))).toEqual(first.turns.map((turn) => JSON.stringify(turn)))
      one.close()
      two.close()
    })
  })

  describe("on a large pi session", () => {
    it("tags each trackable exactly once, every tool call included", async () => {
      const transcript = readTranscript(PI)
      const db = await memoryStore()
      // Word counts keep this large replay fast; the tokenizer does not affect tagging.
      const { turns, sessionId, passes } = replay(transcript, db, wordCounter)

      const builder = createHostTranscriptBuilder(transcript, sessionId)
      const expected: { turn: number; trackables: number; tools: string[] }[] = []
      for (const turn of transcript.turns) {
        if (turn.role === "assistant") {
          const messages = builder.snapshot()
          if (messages.length > 0) {
            const trackables = messages.flatMap((message) => listTrackables(message))
            const tools = trackables
              .filter((trackable) => trackable.kind === "tool")
              .map((trackable) => trackable.partId)
            expect(new Set(trackables.map((trackable) => trackable.partId)).size).toBe(trackables.length)
            expected.push({ turn: turn.index, trackables: trackables.length, tools })
          }
        }
        builder.append(turn)
      }

      expect(passes).toBe(expected.length)
      expect(passes).toBeGreaterThan(100)
      expect(turns.map((turn) => [turn.turn, turn.tagCount])).toEqual(
        expected.map((entry) => [entry.turn, entry.trackables]),
      )

      const state = loadSessionState(db, sessionId, () => 0)
      const toolTags = [...state.tagsByPart.values()].filter((tag) => tag.kind === "tool")
      const lastTools = expected.at(-1)?.tools ?? []
      expect(lastTools.length).toBeGreaterThan(100)
      expect(toolTags.map((tag) => tag.partId).sort()).toEqual([...lastTools].sort())
      expect([...state.tagsByNumber.keys()]).toEqual(Array.from({ length: state.tagsByNumber.size }, (_, i) => i + 1))
      db.close()
    })
  })
})

describe("replayTranscript on a session recorded with magic-context", () => {
  const PAUSE = 10 * 60_000
  // The user asks, the agent reads two files, drops the first read's output (§2§; the user's message is §1§) with
  // ctx_reduce, and reads a third after a pause longer than the cache lives; every turn's usage report is recorded,
  // as pi records them.
  const read = (index: number, callId: string, file: string, time = index * 1_000): Transcript["turns"] => [
    { index, role: "assistant", time, parts: [{ type: "tool-call", callId, tool: "read", input: { path: file } }], usage: { input: 50, output: 5, cacheRead: 0, cacheWrite: 0 } },
    { index: index + 1, role: "tool", time: time + 10, parts: [{ type: "tool-result", callId, tool: "read", output: `${file}: ${"alpha bravo ".repeat(400)}`, isError: false }] },
  ]
  const transcript: Transcript = {
    format: "pi",
    file: "recorded.jsonl",
    trajectory: null,
    id: "recorded",
    model: null,
    system: null,
    turns: [
      { index: 1, role: "user", time: 500, parts: [{ type: "text", text: "Read a and b, then drop a." }] },
      ...read(2, "c1", "a.txt"),
      ...read(4, "c2", "b.txt"),
      { index: 6, role: "assistant", time: 6_000, parts: [{ type: "tool-call", callId: "c3", tool: "ctx_reduce", input: { drop: "2" } }], usage: { input: 90, output: 5, cacheRead: 0, cacheWrite: 0 } },
      { index: 7, role: "tool", time: 6_010, parts: [{ type: "tool-result", callId: "c3", tool: "ctx_reduce", output: "Queued 1 drop (§2§).", isError: false }] },
      ...read(8, "c4", "c.txt", 6_000 + PAUSE),
      { index: 10, role: "assistant", time: 7_000 + PAUSE, parts: [{ type: "text", text: "Done." }] },
    ],
  }
  // Roomy: nothing is due but the recorded drop, which lands once the cache has expired (a warm cache waits); the
  // protected window holds only the newest step, so the drop is not deferred.
  const window = fixedWindow({ usableTokens: 100_000, config: { ...defaultConfig(), protected_tokens: 300 } })
  const run = async (options: { tagsVisible?: boolean; calibrate?: boolean } = {}) => {
    const db = await memoryStore()
    const turns: ReplayTurn[] = []
    const outcome = replayTranscript({ transcript, db, counter: wordCounter, clock: fixedClock, window, smartDrops: false, policy: "default", onTurn: (turn) => void turns.push(turn), ...options })
    const state = loadSessionState(db, outcome.sessionId, () => 0)
    db.close()
    return { turns, state }
  }

  it("queues a recorded ctx_reduce call as the live tool did, so the drop lands at the next execute pass", async () => {
    const { turns } = await run()
    expect(turns.map((turn) => turn.turn)).toEqual([2, 4, 6, 8, 10])
    expect(turns.slice(0, 3).map((turn) => turn.dropped)).toEqual([[], [], []])
    expect(turns[3]).toMatchObject({ turn: 8, pass: "execute", reason: "cache-expired", dropped: [2] })
  })

  it("ignores recorded calls when replaying for an agent without the tool", async () => {
    const { turns } = await run({ tagsVisible: false })
    expect(turns.flatMap((turn) => turn.dropped)).toEqual([])
  })

  it("calibrates against the recorded usage only when asked", async () => {
    expect((await run()).state.applied).toMatchObject({ calibrationTokens: 0, calibratedMessageId: null })
    const calibrated = (await run({ calibrate: true })).state.applied
    expect(calibrated.calibratedMessageId).not.toBeNull()
    expect(calibrated.calibrationTokens).not.toBe(0)
  })
})
