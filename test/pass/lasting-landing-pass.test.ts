import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { replayTranscript, type ReplayTurn } from "../../src/pass/replay-transcript.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import type { PriceListName } from "../../src/session/price-lists.js"
import { createTokenCounterPool, type TokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { readTranscript } from "../../src/transcript/read-transcript.js"
import type { Transcript } from "../../src/transcript/turn-model.js"
import { fixedClock, memoryStore } from "../helpers/host-messages.js"
import { tracePath } from "../transcript/trace-path.js"

let pool: TokenCounterPool
let transcript: Transcript

beforeAll(() => {
  pool = createTokenCounterPool()
  transcript = readTranscript(tracePath("pi-sonnet45-large-session.jsonl"))
})

afterAll(() => {
  pool.dispose()
})

/** The prompt tokens right after each execute pass of a 32k replay under `priceList`, `lasting_landing` on or off. */
async function landings(priceList: PriceListName, lasting: boolean): Promise<number[]> {
  const config = { ...defaultConfig(), lasting_landing: lasting }
  const window = fixedWindow({ usableTokens: 32_000, config, priceList })
  const turns: ReplayTurn[] = []
  const db = await memoryStore()
  try {
    replayTranscript({
      transcript,
      db,
      counter: pool.counterFor("o200k_base"),
      clock: fixedClock,
      window,
      smartDrops: false,
      policy: "default",
      onTurn: (turn) => void turns.push(turn),
    })
  } finally {
    db.close()
  }
  return turns.filter((turn) => turn.pass === "execute").map((turn) => turn.tokens.total)
}

describe("lasting_landing in a replayed session", () => {
  it("under a write premium lands lower, so fewer execute passes break the cache", async () => {
    const line = await landings("anthropic-1h", false)
    const lasting = await landings("anthropic-1h", true)
    expect(line.length).toBeGreaterThan(3)
    expect(lasting.length).toBeLessThan(line.length)
    const mean = (values: readonly number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length
    expect(mean(lasting)).toBeLessThan(mean(line))
  }, 120_000)

  it("changes nothing without a write premium", async () => {
    expect(await landings("openai", true)).toEqual(await landings("openai", false))
  }, 120_000)
})
