import { beforeEach, describe, expect, it } from "vitest"
import { runPass } from "../../src/pass/run-pass.js"
import type { ReadyHistory } from "../../src/session/session-state.js"
import type { SessionState } from "../../src/session/session-state.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import { queueDrops } from "../../src/store/applied-state-repository.js"
import type { Database } from "../../src/store/driver.js"
import { defaultConfig } from "../../src/config/schema.js"
import type { TokenCounter } from "../../src/tokens/token-counter.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  fixedClock,
  memoryStore,
  sessionState,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

/**
 * The seed's worked example ("Worked example: a 200k window"): a 200k usable window at the default 65% threshold,
 * 15% history budget (19,500 tokens) and the derived 16k protected floor; a pass triggers at 140k (70%):
 *
 *   component                 before   after
 *   fixed prompt and memory     12k     12k
 *   compartment history         12k     19k
 *   settled conversation        48k      0k
 *   protected recent work       28k     28k
 *   tool output                 40k     31k   (9k queued or eligible, reclaimed)
 *   total                      140k     90k   (45%)
 *
 * Sizes are exact because this counter counts only the word "tok": tag prefixes and drop markers cost nothing,
 * so every number in the table is the sum of the material put in.
 */
const tokCounter: TokenCounter = { encoding: "tok", count: (text) => (text.match(/\btok\b/g) ?? []).length }
const toks = (count: number): string => "tok ".repeat(count).trimEnd()

const NOW = 1_800_000_000_000
const WINDOW = fixedWindow({ usableTokens: 200_000, config: defaultConfig() })

/** The session as the host hands it over: two messages already folded, 48k settled, 40k tools, 28k recent. */
function session(): HostMessage[] {
  let clock = NOW - 3_600_000
  const at = (): number => (clock += 1_000)
  const messages: HostMessage[] = [
    userMessage({ id: "m01", created: at(), parts: [text("p01", toks(500))] }),
    assistantMessage({ id: "m02", created: at(), parts: [text("p02", toks(500))] }),
  ]
  // Settled conversation: 48k of user and assistant text, outside the protected window.
  for (let index = 3; index <= 6; index += 1) {
    const id = `m${String(index).padStart(2, "0")}`
    const create = index % 2 === 1 ? userMessage : assistantMessage
    messages.push(create({ id, created: at(), parts: [text(`p${id}`, toks(12_000))] }))
  }
  // Tool output: 40k in five reads. Two (4k + 5k = 9k) are queued by ctx_reduce; three (31k) are newer than the
  // last execute boundary, so age-based reclaim leaves them.
  const reads = [4_000, 5_000, 10_000, 10_000, 11_000]
  reads.forEach((size, index) => {
    const id = `t${index + 1}`
    messages.push(assistantMessage({ id: `m-${id}`, created: at(), parts: [tool(id, "read", completed({ path: `f${index}` }, toks(size)))] }))
  })
  // Protected recent work: 28k (the 16k floor reaches 13k into the 25k message: most of it lies inside, so it is
  // protected whole).
  messages.push(assistantMessage({ id: "m98", created: NOW - 1_000, parts: [text("p98", toks(25_000))] }))
  messages.push(userMessage({ id: "m99", created: NOW - 500, parts: [text("p99", toks(3_000))] }))
  return messages
}

describe("runPass on the seed's worked example", () => {
  let db: Database
  let state: SessionState

  beforeEach(async () => {
    db = await memoryStore()
    state = sessionState({ db, counter: tokCounter })
    // A first pass stores and tags everything (below 65% there is nothing due).
    const first = runPass(options(session().slice(0, 2)))
    expect(first.decision).toBe("replay")
    runPass(options(session()))
    // The history of earlier execute passes: 12k covering m01-m02, and the execute boundary after the settled
    // conversation (m06).
    const seq = (id: string): number => state.messageSeq.get(id) ?? -1
    state.applied = {
      ...state.applied,
      history: { foldedThroughSeq: seq("m02"), text: toks(12_000), tokens: 12_000 },
      boundarySeq: seq("m06"),
      lastExecutePass: 1,
      epoch: 1,
    }
    const queued = [state.tagsByPart.get("t1")?.tag ?? -1, state.tagsByPart.get("t2")?.tag ?? -1]
    for (const drop of queueDrops(db, state.sessionId, queued, { pass: 2, now: NOW })) state.queued.set(drop.tag, drop)
  })

  function options(messages: HostMessage[], readyHistory: ReadyHistory | null = null) {
    return {
      db,
      state,
      caches: passCachesOf(state),
      messages,
      counter: tokCounter,
      clock: fixedClock,
      trigger: "transform" as const,
      tagsVisible: true,
      window: WINDOW,
      fixedTokens: 12_000,
      now: NOW,
      smartDrops: false,
      readyHistory,
    }
  }

  it("derives the seed's settings from the 200k window", () => {
    expect(WINDOW.thresholdPercent).toBe(65)
    expect(WINDOW.protectedTokens).toBe(16_000)
    expect((WINDOW.usableTokens * WINDOW.thresholdPercent * defaultConfig().history_budget) / 10_000).toBe(19_500)
  })

  it("reproduces the before and after table and lands at 90k (45%)", () => {
    const history: ReadyHistory = { foldThroughSeq: state.messageSeq.get("m06") ?? -1, text: toks(19_000), tokens: 19_000 }
    const messages = session()
    const result = runPass(options(messages, history))

    expect(result.usageBefore).toBe(140_000)
    expect(result.breakdownBefore).toMatchObject({
      fixed: 12_000,
      history: 12_000,
      conversation: 48_000,
      protected: 28_000,
      tool: 40_000,
      total: 140_000,
    })
    expect(result.band).toBe("execute")
    expect(result.decision).toBe("execute")
    expect(result.reason).toBe("threshold-work")
    expect(result.usageAfter).toBe(90_000)
    expect((result.usageAfter / WINDOW.usableTokens) * 100).toBe(45)
    expect(result.breakdown).toMatchObject({
      fixed: 12_000,
      history: 19_000,
      conversation: 0,
      protected: 28_000,
      tool: 31_000,
      total: 90_000,
    })
    expect(result.dropped).toEqual([state.tagsByPart.get("t1")?.tag, state.tagsByPart.get("t2")?.tag])
  })
})
