import type { ReplyCreated } from "../../src/pass/calibrate.js"
import { beforeEach, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { runPass } from "../../src/pass/run-pass.js"
import type { ReadyHistory } from "../../src/session/session-state.js"
import type { SessionState } from "../../src/session/session-state.js"
import { fixedWindow, type WindowSettings } from "../../src/pressure/model-window.js"
import { renderPrompt } from "../../src/render/render-prompt.js"
import { joinPrompt, serializePrompt } from "../../src/session/serialize-prompt.js"
import { queueDrops } from "../../src/store/applied-state-repository.js"
import type { Database } from "../../src/store/driver.js"
import { listPasses } from "../../src/store/pass-repository.js"
import { statement } from "../../src/store/statements.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  allParts,
  assistantMessage,
  completed,
  fixedClock,
  memoryStore,
  partById,
  passAndRender,
  running,
  sessionState,
  storedContentJson,
  text,
  tool,
  userMessage,
  visibleText,
} from "../helpers/host-messages.js"
import { tokCounter, toks } from "../helpers/pure-session.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

/**
 * Passes over sessions measured with the "tok" counter (prefixes and markers cost nothing), in a 100k window with a
 * 5k protected window: the threshold is 65k, the force band 85k, the emergency band 95k.
 */
const WINDOW: WindowSettings = fixedWindow({
  usableTokens: 100_000,
  config: { ...defaultConfig(), protected_tokens: 5_000 },
})
const BASE = 1_800_000_000_000
const TTL = WINDOW.cacheTtlMs

let db: Database
let state: SessionState
let clock: number

beforeEach(async () => {
  db = await memoryStore()
  state = sessionState({ db, counter: tokCounter })
  clock = BASE
})

const at = (): number => (clock += 1_000)
const user = (id: string, size: number): HostMessage => userMessage({
  id,
  created: at(),
  parts: [text(`p-${id}`, toks(size))],
})
const read = (id: string, size: number): HostMessage =>
  assistantMessage({ id: `m-${id}`, created: at(), parts: [tool(id, "read", completed({ path: id }, toks(size)))] })

/** One transform call at `now` (default: a second after the newest message, so the prompt cache is warm). */
function pass(
  messages: HostMessage[],
  options: { now?: number; trigger?: "transform" | "compaction"; tagsVisible?: boolean; smartDrops?: boolean; replyCreated?: ReplyCreated; fixedTokens?: number } = {},
) {
  const now = options.now ?? Math.max(...messages.map((message) => message.info.time.created)) + 1_000
  const { result, rendered } = passAndRender({
    db,
    state,
    messages,
    counter: tokCounter,
    window: WINDOW,
    now,
    trigger: options.trigger ?? "transform",
    tagsVisible: options.tagsVisible ?? true,
    smartDrops: options.smartDrops ?? false,
    ...(options.replyCreated ? { replyCreated: options.replyCreated } : {}),
    ...(options.fixedTokens !== undefined ? { fixedTokens: options.fixedTokens } : {}),
  })
  return { result, rendered, serialized: serializePrompt(rendered) }
}

/** The first byte where two strings' UTF-8 encodings differ (null when `previous` is a prefix of `current`). */
function byteDivergence(previous: string, current: string): number | null {
  const [a, b] = [Buffer.from(previous), Buffer.from(current)]
  let index = 0
  while (index < a.length && index < b.length && a[index] === b[index]) index += 1
  return index === a.length ? null : index
}

const tag = (partId: string): number => {
  const found = state.tagsByPart.get(partId)?.tag
  if (found === undefined) throw new Error(`no tag for ${partId}`)
  return found
}

const queue = (...partIds: string[]): void => {
  for (const drop of queueDrops(db, state.sessionId, partIds.map(tag), { pass: state.nextPass - 1, now: clock })) {
    state.queued.set(drop.tag, drop)
  }
}

const rows = (sql: string, params: (string | number)[] = []) => statement(db, sql).all(params)

describe("runPass: execute passes", () => {
  it("lands queued drops above the threshold, starts a new epoch and stores all of it", () => {
    const messages = [user("u1", 1_000), read("r1", 30_000), read("r2", 30_000), user("u2", 6_000)]
    const first = pass(messages)
    // 67k of 100k is above the 65% threshold, but nothing opens a rewrite yet; the drop is queued after this pass.
    expect(first.result).toMatchObject({
      decision: "replay",
      reason: "nothing-due",
      band: "execute",
      usageBefore: 67_000,
    })
    queue("r1")
    const second = pass(messages)
    expect(second.result).toMatchObject({
      decision: "execute",
      reason: "threshold-work",
      band: "execute",
      dropped: [tag("r1")],
    })
    expect(second.result.usageBefore).toBe(67_000)
    expect(second.result.usageAfter).toBe(37_000)
    expect(state.applied).toMatchObject({
      epoch: 1,
      lastExecutePass: second.result.seq,
      boundarySeq: 4,
      placements: [],
    })
    expect(state.queued.size).toBe(0)
    expect(visibleText(partById(second.rendered, "r1"))).toBe(`[dropped §${tag("r1")}§ read output]`)
    expect(second.result.prefixChanged).toBe(true)
    expect(second.result.firstDivergence).toBe(byteDivergence(first.serialized, second.serialized))

    expect(rows("SELECT tag, status, dropped_reason, dropped_pass FROM tags WHERE status = 'dropped'")).toEqual([
      { tag: tag("r1"), status: "dropped", dropped_reason: "reduce", dropped_pass: second.result.seq },
    ])
    expect(rows("SELECT tag, status, applied_pass FROM operations")).toEqual([
      { tag: tag("r1"), status: "applied", applied_pass: second.result.seq },
    ])
    expect(rows("SELECT epoch, last_execute_pass, boundary_seq FROM session_state")).toEqual([
      { epoch: 1, last_execute_pass: second.result.seq, boundary_seq: 4 },
    ])
    const [record] = listPasses(db, state.sessionId, 1)
    expect(record).toMatchObject({ decision: "execute", band: "execute", usageTokens: 67_000, renderedTokens: 37_000 })
    expect(record?.detail).toMatchObject({ reason: "threshold-work", dropped: [tag("r1")], drain: "idle" })
  })

  it("lands queued drops below the threshold once they pay for the break, and records what it weighed", () => {
    // A 500-token read and a 20k one, then 500 tokens a call (12 calls, past the 5k protected window): the prompt
    // grows 500 a call and stands at 27.5k, 75 calls below the 65k threshold; the session is 14 calls old, so the rule
    // counts on 14 calls ahead.
    const messages: HostMessage[] = [user("u1", 1_000), read("old", 500), read("r1", 20_000)]
    pass(messages)
    for (let index = 0; index < 12; index += 1) {
      messages.push(read(`s${index}`, 500))
      pass(messages)
    }
    // The small read would save 500 × 0.1 × 14 = 700; re-sending the 27.5k after the change costs 24,750: it waits.
    queue("old")
    const small = pass(messages)
    expect(small.result).toMatchObject({ decision: "replay", reason: "below-threshold", band: "below", usageBefore: 27_500 })
    expect(listPasses(db, state.sessionId, 1)[0]?.detail["cost"]).toMatchObject({ expectedCalls: 14, pays: false })
    // The 20k read saves 20,000 × 0.1 × 15 = 30,000 over the calls ahead, but the drops wait until keeping them since
    // the session began has cost the break too: 20,500 × 0.1 × (n + 1) / 2 ≥ 24,750 from n = 24 calls. They then land
    // together, on one break.
    queue("r1")
    const waited: number[] = []
    let large = pass(messages)
    while (large.result.decision !== "execute" && waited.length < 20) {
      waited.push(large.result.usageBefore)
      large = pass(messages)
    }
    expect(waited.length).toBe(9)
    expect(large.result).toMatchObject({ decision: "execute", reason: "pays", band: "below", dropped: [tag("old"), tag("r1")] })
    expect(large.result.usageAfter).toBe(27_500 - 20_500)
    const [record, before] = listPasses(db, state.sessionId, 2)
    expect(record?.detail["cost"]).toMatchObject({ freedTokens: 20_500, rewrittenTokens: 27_500, breakCost: 24_750, pays: true })
    expect(record?.detail["cost"]).toMatchObject({ dropCarriedCost: 20_500 * 0.1 * 25 / 2 })
    expect(before?.detail["cost"]).toMatchObject({ dropCarriedCost: 20_500 * 0.1 * 24 / 2, pays: false })
    expect(record?.detail["billed"]).toMatchObject({ readPrice: 0.1 })
  })

  it("bills an execute's system prompt and tools as read from the cache: they come before the messages it changes", () => {
    const messages = [user("u1", 1_000), read("r1", 30_000), read("r2", 30_000), user("u2", 6_000)]
    pass(messages, { fixedTokens: 5_000 })
    queue("r1")
    const executed = pass(messages, { fixedTokens: 5_000 })
    expect(executed.result).toMatchObject({ decision: "execute", dropped: [tag("r1")] })
    const billed = listPasses(db, state.sessionId, 1)[0]?.detail["billed"] as { cachedRead: number; cacheWrite: number; uncached: number }
    // The drop changes the messages after u1 (about 1,000 tokens in); the 5,000 before the messages are unchanged.
    expect(billed.cachedRead).toBeGreaterThanOrEqual(5_000 + 900)
    expect(billed.cachedRead).toBeLessThan(5_000 + 1_500)
  })

  it("never changes a part's stored content, whatever it drops", () => {
    const messages = [user("u1", 1_000), read("r1", 30_000), read("r2", 30_000), user("u2", 6_000)]
    pass(messages)
    queue("r1", "r2")
    pass(messages)
    const stored = storedContentJson(db)
    for (const part of allParts(messages)) expect(stored.get(part.id)).toBe(JSON.stringify(part))
  })

  it("defers an execute pass while the newest message waits for a tool result, and the force band does not", () => {
    const base = [user("u1", 1_000), read("r1", 30_000), read("r2", 30_000), user("u2", 6_000)]
    const waiting = assistantMessage({
      id: "m-w",
      created: at(),
      parts: [tool("w", "bash", running({ command: "make" }))],
    })
    pass(base)
    queue("r1")
    expect(pass([...base, waiting]).result).toMatchObject({
      decision: "replay",
      reason: "mid-tool-deferred",
      dropped: [],
    })
    const heavy = [...base, read("r3", 20_000), waiting]
    expect(pass(heavy).result).toMatchObject({ band: "force", decision: "execute", reason: "force-band" })
  })

  it.each([
    ["lands", true, ["r1", "r2", "r3"]],
    ["keeps", false, ["r1", "r2"]],
  ])("%s a queued drop in the newest message in an emergency, where reclaim keeps that message", (_verb, queued, dropped) => {
    const messages = [user("u1", 1_000), read("r1", 2_000), read("r2", 94_000), read("r3", 1_000)]
    // A compaction pass stores and tags without deciding anything.
    pass(messages, { trigger: "compaction" })
    if (queued) queue("r3")
    const result = pass(messages).result
    expect(result).toMatchObject({ band: "emergency", decision: "execute", reason: "emergency" })
    expect(result.dropped).toEqual(dropped.map(tag))
  })

  it("changes nothing in memory or the store when its commit fails, and the next pass does the same work", () => {
    const messages = [user("u1", 1_000), read("r1", 2_000), read("r2", 94_000), read("r3", 1_000)]
    pass(messages, { trigger: "compaction" })
    queue("r3")
    const before = { applied: state.applied, tags: [...state.tagsByNumber.values()].map((record) => ({ ...record })), queued: [...state.queued.keys()], prompt: state.previousPrompt }
    const stored = () => ({ tags: rows("SELECT tag, status FROM tags ORDER BY tag"), passes: listPasses(db, state.sessionId).length, operations: rows("SELECT status FROM operations") })
    const storedBefore = stored()
    // The pass record is the commit's last write but the history's: when it fails, the drops written before it in
    // the same transaction must not stay.
    db.exec("CREATE TEMP TRIGGER refuse_pass BEFORE INSERT ON passes BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
    expect(() => pass(messages)).toThrow("disk I/O error")
    db.exec("DROP TRIGGER refuse_pass")
    expect(state.applied).toBe(before.applied)
    expect([...state.tagsByNumber.values()]).toEqual(before.tags)
    expect([...state.queued.keys()]).toEqual(before.queued)
    expect(state.previousPrompt).toBe(before.prompt)
    expect(stored()).toEqual(storedBefore)
    const retried = pass(messages).result
    expect(retried).toMatchObject({ band: "emergency", decision: "execute", reason: "emergency", dropped: ["r1", "r2", "r3"].map(tag) })
    expect(rows("SELECT status FROM operations")).toEqual([{ status: "applied" }])
  })

  it("keeps a queued drop inside the protected window queued outside an emergency", () => {
    const messages = [user("u1", 1_000), read("r1", 30_000), read("r2", 30_000), read("r3", 4_000), user("u2", 1_000)]
    pass(messages)
    queue("r1", "r3")
    const result = pass(messages).result
    expect(result.dropped).toEqual([tag("r1")])
    expect([...state.queued.keys()]).toEqual([tag("r3")])
    expect(rows("SELECT tag, status FROM operations ORDER BY tag")).toEqual([
      { tag: tag("r1"), status: "applied" },
      { tag: tag("r3"), status: "queued" },
    ])
  })

  it("starts the emergency drain in the force band, drains in the execute band, and ends 10 points under the threshold", () => {
    const messages = [user("u1", 1_000), read("r1", 33_000), read("r2", 30_000), read("r3", 22_000), user("u2", 1_000)]
    const force = pass(messages).result
    expect(force).toMatchObject({ band: "force", decision: "execute", reason: "force-band", usageBefore: 87_000 })
    const startedAt = messages.at(-1)?.info.time.created ?? NaN
    expect(state.applied.drain).toEqual({ active: true, startedAt: startedAt + 1_000 })
    // The newest read (22k) is a quarter of the 85k of reads: the navigation reserve keeps it.
    expect(force.dropped).toEqual([tag("r1"), tag("r2")])
    expect(force.usageAfter).toBe(24_000)

    // Back in the execute band with 52k that force reclaim would free (the minimum is 2% of 100k): the drain goes on.
    messages.push(read("r4", 30_000), read("r5", 20_000), user("u3", 1_000))
    const draining = pass(messages).result
    expect(draining).toMatchObject({ band: "execute", decision: "execute", reason: "drain", usageBefore: 75_000 })
    expect(draining.dropped).toEqual([tag("r3"), tag("r4")])
    expect(state.applied.drain).toEqual({ active: true, startedAt: startedAt + 1_000 })

    messages.push(user("u4", 1_000))
    const after = pass(messages).result
    expect(after).toMatchObject({ band: "below", decision: "replay", usageBefore: 24_000 })
    expect(state.applied.drain).toEqual({ active: false })
    expect(listPasses(db, state.sessionId, 3).map((record) => record.detail["drain"])).toEqual([
      "ended-below-target",
      "continued",
      "started",
    ])
  })

  it("lets age reclaim ride only what came before the last execute boundary", () => {
    const messages = [user("u1", 1_000), read("r1", 30_000), read("r2", 30_000), user("u2", 6_000)]
    pass(messages)
    queue("r1")
    pass(messages) // epoch 1: boundary at u2 (sequence 4)
    const later = [...messages, read("r3", 40_000), user("u3", 6_000)]
    expect(pass(later).result).toMatchObject({ band: "execute", decision: "replay", reason: "waiting-for-rebuild" })
    queue("r3")
    const result = pass(later).result
    // r2 is before the boundary and leaves by age; r3 (after it) leaves only because it was queued.
    expect(result).toMatchObject({ decision: "execute", reason: "threshold-work" })
    expect(result.dropped).toEqual([tag("r2"), tag("r3")])
    expect(state.applied.boundarySeq).toBe(6)
  })

  it("applies smart drops only when they are on, and only on an execute pass", () => {
    const edits = (id: string) =>
      assistantMessage({
        id: `m-${id}`,
        created: at(),
        parts: [tool(id, "edit", completed({ filePath: "a.ts" }, toks(1_000)))],
      })
    const messages = [user("u1", 1_000), edits("e1"), edits("e2"), read("r1", 64_000), user("u2", 6_000)]
    pass(messages, { smartDrops: true })
    const warm = pass(messages, { smartDrops: true }).result
    expect(warm).toMatchObject({ decision: "replay", reason: "waiting-for-rebuild", dropped: [] })
    const expired = pass(messages, { smartDrops: true, now: clock + TTL + 1 }).result
    expect(expired).toMatchObject({ decision: "execute", reason: "cache-expired" })
    expect(expired.dropped).toContain(tag("e1"))
    expect(state.tagsByPart.get("e1")).toMatchObject({ droppedReason: "superseded", supersededBy: tag("e2") })
  })
})

describe("runPass: the cache contract", () => {
  it("keeps the previous prompt a byte prefix on replay passes and reports where an execute pass diverged", () => {
    const session: HostMessage[] = [user("u1", 1_000), read("r1", 20_000)]
    let previous = pass(session).serialized
    for (const next of [read("r2", 20_000), user("u2", 500), read("r3", 10_000)]) {
      session.push(next)
      const { result, serialized } = pass(session)
      expect(result.decision).toBe("replay")
      expect(result.prefixChanged).toBe(false)
      expect(result.firstDivergence).toBeNull()
      expect(serialized.startsWith(previous)).toBe(true)
      previous = serialized
    }
    queue("r1")
    // Below the threshold the drop waits for the cache to expire.
    expect(pass(session).result).toMatchObject({ decision: "replay", prefixChanged: false })
    const execute = pass(session, { now: clock + TTL + 10_000 })
    expect(execute.result).toMatchObject({ decision: "execute", reason: "cache-expired" })
    expect(execute.result.prefixChanged).toBe(true)
    expect(execute.result.firstDivergence).toBe(byteDivergence(previous, execute.serialized))
    // The next replay pass compares against the new epoch's prompt.
    session.push(user("u3", 10))
    expect(pass(session).result.prefixChanged).toBe(false)
  })

  it("does not compare a compaction pass, never executes in one, and leaves the previous prompt alone", () => {
    const messages = [user("u1", 1_000), read("r1", 50_000), read("r2", 46_000), user("u2", 500)]
    const first = pass(messages, { trigger: "compaction" })
    expect(first.result).toMatchObject({ band: "emergency", decision: "replay", reason: "nothing-due", dropped: [] })
    expect(state.previousPrompt).toBeNull()
    const main = pass(messages.slice(0, 2))
    const saved = state.previousPrompt
    expect(saved === null ? null : joinPrompt(saved)).toBe(main.serialized)
    const compaction = pass(messages, { trigger: "compaction" })
    expect(compaction.result).toMatchObject({ decision: "replay", prefixChanged: false, firstDivergence: null })
    expect(state.previousPrompt).toBe(saved)
    expect(state.applied.drain).toEqual({ active: false })
    expect(pass(messages).result).toMatchObject({ decision: "execute", reason: "emergency" })
  })
})

describe("runPass: usage", () => {
  it("calibrates with the usage the provider reported for the request a pass sent", () => {
    const messages = [user("u1", 10_000)]
    const sentAt = clock + 1_000
    const sending = pass(messages, { now: sentAt }).result
    expect(sending.usageAfter).toBe(10_000)
    // A later pass (for another request) must not be taken as the one that sent it.
    pass(messages, { now: sentAt + 60_000 })
    const reply = assistantMessage({ id: "m-reply", created: sentAt + 500, parts: [text("p-reply", toks(100))] })
    if (reply.info.role !== "assistant") throw new Error("assistant expected")
    reply.info.tokens = { input: 2_000, output: 100, reasoning: 0, cache: { read: 9_000, write: 500 } }
    const next = pass([...messages, reply], { now: sentAt + 70_000 }).result
    expect(state.applied).toMatchObject({ calibrationTokens: 11_500 - 10_000, calibratedMessageId: "m-reply" })
    expect(next.usageBefore).toBe(10_100 + 1_500)
    expect(rows("SELECT calibration_tokens, calibrated_message_id FROM session_state")).toEqual([
      { calibration_tokens: 1_500, calibrated_message_id: "m-reply" },
    ])
    // The same report is used once.
    pass([...messages, reply], { now: sentAt + 80_000 })
    expect(state.applied.calibrationTokens).toBe(1_500)
  })

  // The reply to the request of the pass at `sentAt` is created 500 ms before it (OpenCode) or after it (Pi); the
  // next request's pass estimates 15,100 tokens, so pairing the report with the wrong pass gives -3,500, not 1,500.
  it.each([
    ["before-pass", -500],
    ["after-pass", 500],
  ] as const)("pairs a report with the pass that sent its request when the host creates the reply %s", (replyCreated, offset) => {
    const messages = [user("u1", 10_000)]
    const sentAt = clock + 1_000
    expect(pass(messages, { now: sentAt, replyCreated }).result.usageAfter).toBe(10_000)
    const reply = assistantMessage({ id: "m-reply", created: sentAt + offset, parts: [text("p-reply", toks(100))] })
    if (reply.info.role !== "assistant") throw new Error("assistant expected")
    const grown = [...messages, user("u-next", 5_000)]
    expect(pass(grown, { now: sentAt + 60_000, replyCreated }).result.usageAfter).toBe(15_000)
    reply.info.tokens = { input: 2_000, output: 100, reasoning: 0, cache: { read: 9_000, write: 500 } }
    pass([...grown, reply], { now: sentAt + 70_000, replyCreated })
    expect(state.applied).toMatchObject({ calibrationTokens: 11_500 - 10_000, calibratedMessageId: "m-reply" })
  })

  it("ignores an assistant message that reports no usage", () => {
    pass([user("u1", 100)])
    pass([user("u1", 100), assistantMessage({ id: "m-a", created: at(), parts: [text("p-a", toks(5))] })])
    expect(state.applied).toMatchObject({ calibrationTokens: 0, calibratedMessageId: null })
  })

  it.each([
    ["a second before the TTL ends", -1_000, "replay", "waiting-for-rebuild"],
    ["exactly at the TTL", 0, "replay", "waiting-for-rebuild"],
    ["a millisecond after the TTL", 1, "execute", "cache-expired"],
  ])("takes the prompt cache as expired by the newest assistant message's time: %s", (_name, offset, decision, reason) => {
    const messages = [user("u1", 1_000), read("r1", 5_000), read("r2", 30_000), read("r3", 30_000), user("u2", 6_000)]
    pass(messages)
    queue("r1")
    expect(pass(messages).result.decision).toBe("execute") // epoch 1: r2 and r3 are now before the boundary, 67k left
    const newestAssistant = messages[3]?.info.time.created ?? 0
    // A newer user message does not warm the cache: only a request (an assistant message) does.
    const later = [...messages, user("u3", 100)]
    expect(pass(later, { now: newestAssistant + TTL + offset }).result).toMatchObject({ decision, reason })
  })

  it.each([
    [TTL, "replay", "below-threshold"],
    [TTL + 1, "execute", "cache-expired"],
  ])("lets queued drops land below the threshold once the cache expired (idle %i ms)", (idle, decision, reason) => {
    const messages = [user("u1", 1_000), read("r1", 20_000), user("u2", 6_000)]
    pass(messages)
    queue("r1")
    const result = pass(messages, { now: (messages[1]?.info.time.created ?? 0) + idle }).result
    expect(result).toMatchObject({ band: "below", decision, reason })
  })
})

describe("runPass: reminders", () => {
  /**
   * 75k of finished reads outside the protected window, 71% of a 110k window whose threshold is 80% (close to it):
   * urgent, and the channel-2 ceiling.
   */
  const NUDGE_WINDOW = fixedWindow({ usableTokens: 110_000, thresholdPercent: 80, config: { ...defaultConfig(), protected_tokens: 2_000 } })
  const nudgePass = (messages: HostMessage[], tagsVisible = true) => {
    const { result, rendered } = passAndRender({
      db,
      state,
      messages,
      counter: tokCounter,
      window: NUDGE_WINDOW,
      now: clock + 1_000,
      tagsVisible,
    })
    return { result, rendered, serialized: serializePrompt(rendered) }
  }
  const session = (): HostMessage[] => [user("u1", 1_000), read("r1", 40_000), read("r2", 35_000), read("r3", 2_500)]
  /** The pass before: the same session without its newest message (so that message is new in the next pass). */
  const passBefore = (messages: HostMessage[]): void => {
    expect(nudgePass(messages.slice(0, -1), false).result.nudge).toBeNull()
  }

  it("places the nudge on the newest tool output and the steer message after the newest message, in the new tail", () => {
    const messages = session()
    passBefore(messages)
    const { result, rendered } = nudgePass(messages)
    expect(result.nudge).toEqual({ level: "urgent", channel: 2 })
    const r3 = visibleText(partById(rendered, "r3"))
    const opening = "<system-reminder>magic-context: Most of the context is older tool output"
    expect(r3.startsWith(`§${tag("r3")}§ ${toks(2_500)}\n\n${opening}`)).toBe(true)
    expect(r3).toContain(`§${tag("r1")}§ read (40.0k), §${tag("r2")}§ read (35.0k)`)
    expect(rendered.map((message) => message.info.id)).toEqual([
      "u1",
      "m-r1",
      "m-r2",
      "m-r3",
      "m-r3-steer",
    ])
    expect(rows("SELECT kind, anchor_id, level, epoch, placed_pass FROM placements ORDER BY id")).toEqual([
      { kind: "nudge", anchor_id: "r3", level: "urgent", epoch: 0, placed_pass: result.seq },
      { kind: "steer", anchor_id: "m-r3", level: "ceiling", epoch: 0, placed_pass: result.seq },
    ])
    expect(state.applied).toMatchObject({ lastNudgePass: result.seq, lastNudgeLevel: "urgent" })
  })

  it("replays the placed reminders byte for byte on later passes of the epoch", () => {
    const messages = session()
    passBefore(messages)
    const first = nudgePass(messages)
    const r3 = visibleText(partById(first.rendered, "r3"))
    messages.push(user("u2", 10))
    const second = nudgePass(messages)
    expect(second.result).toMatchObject({ decision: "replay", prefixChanged: false, nudge: null })
    expect(second.serialized.startsWith(first.serialized)).toBe(true)
    expect(visibleText(partById(second.rendered, "r3"))).toBe(r3)
    expect(second.rendered.map((message) => message.info.id)).toEqual([
      "u1",
      "m-r1",
      "m-r2",
      "m-r3",
      "m-r3-steer",
      "u2",
    ])
  })

  it("places nothing on a newest message the previous prompt already had, nor when there was no previous prompt", () => {
    const messages = session()
    expect(nudgePass(messages).result.nudge).toBeNull()
    expect(nudgePass(structuredClone(messages)).result).toMatchObject({ decision: "replay", nudge: null, prefixChanged: false })
    expect(rows("SELECT COUNT(*) AS n FROM placements")).toEqual([{ n: 0 }])
  })

  it("places no reminders for an agent that cannot call ctx_reduce, or while drops are queued", () => {
    expect(nudgePass(session(), false).result.nudge).toBeNull()
    queue("r1")
    expect(nudgePass(session()).result.nudge).toBeNull()
    expect(rows("SELECT COUNT(*) AS n FROM placements")).toEqual([{ n: 0 }])
  })
})

describe("runPass: reload", () => {
  it("continues an epoch from the store: history, boundary, drops, placements and queued drops", () => {
    const window = fixedWindow({ usableTokens: 200_000, config: { ...defaultConfig(), protected_tokens: 2_000 } })
    const run = (messages: HostMessage[], now: number, readyHistory: ReadyHistory | null = null) => {
      const copy = structuredClone(messages)
      const result = runPass({
        db,
        state,
        caches: passCachesOf(state),
        messages: copy,
        counter: tokCounter,
        clock: fixedClock,
        trigger: "transform",
        tagsVisible: true,
        window,
        fixedTokens: 0,
        now,
        smartDrops: false,
        readyHistory,
      })
      return result
    }
    const messages = [user("u1", 1_000), read("r1", 40_000), read("r2", 40_000), user("u2", 1_000)]
    run(messages, clock + 1_000)
    queue("r1")
    // Idle past the TTL: the queued drop lands below the threshold, and the ready history folds u1 in.
    const folded = run(messages, clock + TTL + 10_000, { foldThroughSeq: 1, text: "the story so far", tokens: 4 })
    expect(folded).toMatchObject({ decision: "execute", reason: "cache-expired", dropped: [tag("r1")] })
    expect(state.applied).toMatchObject({ epoch: 1, boundarySeq: 4, history: { foldedThroughSeq: 1, tokens: 4 } })
    // New work in epoch 1: reminders placed, a protected drop queued (deferred).
    clock += TTL + 20_000
    messages.push(read("r3", 40_000), read("r4", 40_000), read("r5", 300))
    const nudged = run(messages, clock + 1_000)
    expect(nudged.decision).toBe("replay")
    expect(nudged.nudge).not.toBeNull()
    queue("r5")

    const reloaded = sessionState({ db, counter: tokCounter })
    expect(reloaded).not.toBe(state)
    expect(reloaded.applied).toEqual(state.applied)
    expect(reloaded.applied.placements.length).toBeGreaterThan(0)
    expect(reloaded.queued).toEqual(state.queued)
    expect(reloaded.tagsByNumber).toEqual(state.tagsByNumber)
    expect(reloaded.tagsByPart).toEqual(state.tagsByPart)
    expect(reloaded.messageSeq).toEqual(state.messageSeq)
    expect(reloaded.parts).toEqual(state.parts)
    expect(reloaded.nextPass).toBe(state.nextPass)

    const expected = renderPrompt({ messages, state, tagsVisible: true, placements: state.applied.placements })
    state = reloaded
    const after = run(messages, clock + 2_000)
    expect(after).toMatchObject({ decision: "replay", nudge: null, dropped: [] })
    expect(after.edits).toEqual(expected)
  })
})
