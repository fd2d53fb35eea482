import { afterEach, describe, expect, it } from "vitest"
import { turnJson } from "../../src/cli/replay-output.js"
import { defaultConfig } from "../../src/config/schema.js"
import { replayTranscript } from "../../src/pass/replay-transcript.js"
import { fixedWindow, type WindowSettings } from "../../src/pressure/model-window.js"
import type { SelectionPolicy } from "../../src/render/select-tiers.js"
import { listCompartments } from "../../src/store/compartment-repository.js"
import type { Database } from "../../src/store/driver.js"
import { readTranscript } from "../../src/transcript/read-transcript.js"
import type { Transcript } from "../../src/transcript/turn-model.js"
import { fixedClock, memoryStore, wordCounter } from "../helpers/host-messages.js"
import { tracePath } from "../transcript/trace-path.js"

/**
 * Determinism of progressive fidelity over a real transcript (the SWE-agent trace, counted in words): the per-turn
 * records a replay prints, tiers included, and the prompts it renders depend only on the transcript, the window and
 * the policy.
 */

const SWE_AGENT = readTranscript(tracePath("sweagent-gpt4-pydicom-1458.traj"))

/**
 * Small enough that history is folded and demoted (12 model calls, two execute passes: a fold that frees less than
 * 1,000 words waits), large enough that no pass reaches the force band, where floors yield to the ceiling (at 4,000
 * words the first call is in the emergency band).
 */
const PRESSURED = fixedWindow({ usableTokens: 6_000, config: { ...defaultConfig(), protected_tokens: 400 } })
/** Never pressured, with a small protected window so that compartments are still cut. */
const QUIET = fixedWindow({ usableTokens: 1_000_000, config: { ...defaultConfig(), protected_tokens: 400 } })

const opened: Database[] = []
afterEach(() => {
  for (const db of opened.splice(0)) db.close()
})

async function freshStore(): Promise<Database> {
  const db = await memoryStore()
  opened.push(db)
  return db
}

/** One replay: each turn as the CLI's JSON line plus the rendered prompt. */
function replay(options: {
  transcript?: Transcript
  db: Database
  window: WindowSettings
  policy?: SelectionPolicy
}): string[] {
  const lines: string[] = []
  replayTranscript({
    transcript: options.transcript ?? SWE_AGENT,
    db: options.db,
    counter: wordCounter,
    clock: fixedClock,
    window: options.window,
    smartDrops: false,
    policy: options.policy ?? "default",
    onTurn: (turn) => lines.push(JSON.stringify({ ...turnJson(turn), prompt: turn.prompt })),
  })
  return lines
}

/** The fields of a turn's JSON line these tests read. */
type TurnLine = {
  pass: string
  tiers: Record<string, string>
  floorViolations: number
  tierSwitches: number
  tokens: { history: number }
  prefixChanged: boolean
  prompt: unknown
}

const parsed = (lines: readonly string[]): TurnLine[] => lines.map((line) => JSON.parse(line) as TurnLine)

describe("replayTranscript with progressive fidelity", () => {
  it("gives identical per-turn JSON, tiers and prompts included, in two fresh stores", async () => {
    const first = replay({ db: await freshStore(), window: PRESSURED })
    const second = replay({ db: await freshStore(), window: PRESSURED })
    expect(second).toEqual(first)
    // The comparison covers folded and demoted history.
    const turns = parsed(first)
    expect(turns.filter((turn) => turn.pass === "execute").length).toBeGreaterThanOrEqual(2)
    expect(turns.at(-1)?.tiers).toEqual({ c1: "compact", c2: "compact" })
    expect(turns.at(-1)?.tierSwitches).toBe(1)
    expect(turns.every((turn) => turn.floorViolations === 0)).toBe(true)
    expect(first.at(-1)).toContain("<session-history>")
  })

  const POLICIES: SelectionPolicy[] = ["default", "age-only", "flat", "truncation"]

  it.each(POLICIES)("is deterministic under the %s policy", async (policy) => {
    const first = replay({ db: await freshStore(), window: PRESSURED, policy })
    expect(replay({ db: await freshStore(), window: PRESSURED, policy })).toEqual(first)
    expect(parsed(first).some((turn) => Object.keys(turn.tiers).length > 0)).toBe(true)
  })

  it("gives the same per-turn output when replayed again into the same store", async () => {
    const db = await freshStore()
    const first = replay({ db, window: PRESSURED })
    const sessionId = "replay:swe-agent:sweagent-gpt4-pydicom-1458"
    const compartments = listCompartments(db, sessionId)
    const second = replay({ db, window: PRESSURED })
    expect(second).toEqual(first)
    // Generated once: the second run cuts the same compartments with the same tiers, folded the same way.
    expect(listCompartments(db, sessionId)).toEqual(compartments)
    const third = replay({ db, window: PRESSURED })
    expect(third).toEqual(first)
  })

  it.each([8_000, 12_000, 20_000])("gives the same output when replayed again into the same store at %i tokens, where the cost rule weighs folds", async (usable) => {
    const window = fixedWindow({ usableTokens: usable, config: { ...defaultConfig(), protected_tokens: 400 } })
    const db = await freshStore()
    const first = replay({ db, window })
    expect(replay({ db, window })).toEqual(first)
  })

  it("gives the same output in the same store after a run in another window", async () => {
    const db = await freshStore()
    const pressured = replay({ db: await freshStore(), window: PRESSURED })
    replay({ db, window: QUIET })
    expect(replay({ db, window: PRESSURED })).toEqual(pressured)
  })

  describe("in a quiet session", () => {
    it("folds nothing and demotes nothing, while compartments are still cut once", async () => {
      const db = await freshStore()
      const turns = parsed(replay({ db, window: QUIET }))
      expect(turns).toHaveLength(12)
      for (const turn of turns) {
        expect(turn.pass).toBe("replay")
        expect(turn.tiers).toEqual({})
        expect(turn.floorViolations).toBe(0)
        expect(turn.tierSwitches).toBe(0)
        expect(turn.tokens.history).toBe(0)
        expect(turn.prefixChanged).toBe(false)
        expect(JSON.stringify(turn.prompt)).not.toContain("<session-history>")
      }
      const compartments = listCompartments(db, "replay:swe-agent:sweagent-gpt4-pydicom-1458")
      expect(compartments.length).toBeGreaterThan(0)
      expect(compartments.every((compartment) => compartment.status === "closed")).toBe(true)
      expect(db.prepare("SELECT COUNT(*) AS n FROM selections").get()).toEqual({ n: 0 })
    })

    it("gives the same output when replayed again into the same store", async () => {
      const db = await freshStore()
      const first = replay({ db, window: QUIET })
      const representations =
        "SELECT compartment_id, tier, strategy, content, tokens FROM representations ORDER BY compartment_id, tier"
      const rows = db.prepare(representations).all()
      expect(replay({ db, window: QUIET })).toEqual(first)
      expect(db.prepare(representations).all()).toEqual(rows)
    })
  })
})
