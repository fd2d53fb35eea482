import { describe, expect, it } from "vitest"
import { initialAppliedState, type AppliedState } from "../../src/session/session-state.js"
import type { NudgeLevel } from "../../src/pressure/nudge-band.js"
import { planNudge } from "../../src/pressure/plan-nudge.js"
import { reclaimableItems } from "../../src/reduce/plan-reclaim.js"
import type { LiveView } from "../../src/session/live-view.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, running, text, tool, userMessage } from "../helpers/host-messages.js"
import { liveView, markDropped, ingestedState, toks } from "../helpers/pure-session.js"
import { createReduceCaches } from "../../src/reduce/reduce-caches.js"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"

const arc = (id: string, name: string, size: number): HostMessage =>
  assistantMessage({ id: `m-${id}`, parts: [tool(id, name, completed({}, toks(size)))] })

/** A live tail of `conversation` + `reclaimable` + 2,500 (the newest tool output, protected by a 2k window). */
function viewWith(conversation: number, reclaimable: number): LiveView {
  const messages = [
    userMessage({ id: "u1", parts: [text("p1", toks(conversation))] }),
    arc("r1", "read", reclaimable),
    arc("x", "bash", 2_500),
  ]
  return liveView(messages, { protectedTokens: 2_000 })
}

const VIEWS: Record<Exclude<NudgeLevel, "quiet">, LiveView> = {
  gentle: viewWith(70_000, 30_000),
  firm: viewWith(50_000, 50_000),
  urgent: viewWith(25_000, 45_000),
}

/** Counts words (what reminders hold is measured in it here). */
const words = (body: string): number => body.split(/\s+/).filter(Boolean).length

function plan(
  view: LiveView,
  options: {
    applied?: Partial<AppliedState>
    pass?: number
    queued?: number[]
    tagsVisible?: boolean
    budgetTokens?: number
    thresholdPercent?: number
  } = {},
) {
  return planNudge({
    view,
    caches: createReduceCaches(),
    newestToolPartId: "x",
    newestMessageId: "m-x",
    applied: { ...initialAppliedState(), ...options.applied },
    queued: new Set(options.queued ?? []),
    pass: options.pass ?? 20,
    usagePercent: 36.75,
    // A 200k window whose threshold (40%) is close above the usage: the level follows the reclaimable share alone.
    usableTokens: 200_000,
    thresholdPercent: options.thresholdPercent ?? 40,
    tagsVisible: options.tagsVisible ?? true,
    budgetTokens: options.budgetTokens ?? Number.POSITIVE_INFINITY,
    count: words,
  })
}

describe("planNudge", () => {
  it("places an urgent reminder on the newest tool output and the ceiling steer message after the newest message", () => {
    const messages = [
      userMessage({ id: "u1", parts: [text("p1", toks(1_000))] }),
      arc("r1", "read", 40_000),
      arc("r2", "read", 30_000),
      arc("x", "bash", 2_500),
    ]
    const result = plan(liveView(messages, { protectedTokens: 2_000 }), { pass: 5 })
    expect(result.decision).toEqual({ level: "urgent", share: 70_000 / 73_500, channelTwo: true })
    expect(result.reclaimableTokens).toBe(70_000)
    expect(result.placements).toEqual([
      {
        kind: "nudge",
        anchorId: "x",
        level: "urgent",
        placedPass: 5,
        text:
          "<system-reminder>magic-context: Most of the context is older tool output: drop what you no longer " +
          "need now. 37% of the window is in use; 70.0k tokens (95% of the conversation) are finished tool " +
          "output. Drop spent outputs with ctx_reduce in the same response as your next real tool call, largest first: " +
          '§2§ read (40.0k), §3§ read (30.0k). Example: ctx_reduce(drop="2-3").</system-reminder>',
      },
      {
        kind: "steer",
        anchorId: "m-x",
        level: "ceiling",
        placedPass: 5,
        text:
          "<system-reminder>magic-context: the context window is 37% full and 70.0k tokens of it are old tool " +
          "output. Call ctx_reduce for the outputs you are done with (largest: §2§ read (40.0k), §3§ read (30.0k)) " +
          "in the same response as your next real tool call.</system-reminder>",
      },
    ])
  })

  it("holds the reminder and the steer at their pinned o200k_base token counts, whatever the wording", () => {
    // The epoch's reminder budget and the usage reminders add are measured in tokens: rewording a reminder must not
    // move them, so its wording is held to these counts for this view (numbers, tags and lists as above).
    const messages = [
      userMessage({ id: "u1", parts: [text("p1", toks(1_000))] }),
      arc("r1", "read", 40_000),
      arc("r2", "read", 30_000),
      arc("x", "bash", 2_500),
    ]
    const counter = createTokenCounterPool().counterFor("o200k_base")
    const placements = plan(liveView(messages, { protectedTokens: 2_000 }), { pass: 5 }).placements
    expect(placements.map((placement) => [placement.kind, counter.count(placement.text)])).toEqual([
      ["nudge", 108],
      ["steer", 78],
    ])
  })

  it("names the five largest outputs, largest first and the lower tag first among equals, however many there are", () => {
    // Nine outputs with ties at the top and at the fifth place: the reminder and the steer list the same five.
    const sizes = [15_000, 45_000, 25_000, 45_000, 5_000, 35_000, 25_000, 10_000, 40_000]
    const messages = [
      userMessage({ id: "u1", parts: [text("p1", toks(1_000))] }),
      ...sizes.map((size, index) => arc(`r${index}`, index % 2 === 0 ? "read" : "bash", size)),
      arc("x", "bash", 2_500),
    ]
    const view = liveView(messages, { protectedTokens: 2_000 })
    const reference = [...reclaimableItems(view, new Set(), createReduceCaches())]
      .sort((a, b) => b.contentTokens - a.contentTokens || a.tag.tag - b.tag.tag)
      .slice(0, 5)
    expect(reference.map((item) => item.contentTokens)).toEqual([45_000, 45_000, 40_000, 35_000, 25_000])
    const listed = reference.map((item) => `§${item.tag.tag}§ ${item.tag.tool} (${(item.contentTokens / 1000).toFixed(1)}k)`).join(", ")
    const result = plan(view, { pass: 5 })
    expect(result.decision.channelTwo).toBe(true)
    const [nudge, steer] = result.placements
    expect(nudge?.text).toContain(`largest first: ${listed}. Example:`)
    expect(steer?.text).toContain(`(largest: ${listed})`)
  })

  it.each<[NudgeLevel, string]>([
    ["gentle", "Some older tool output could be dropped."],
    ["firm", "A large share of the context is older tool output you could drop."],
    ["urgent", "Most of the context is older tool output: drop what you no longer need now."],
  ])("opens a %s reminder with its own sentence", (level, opening) => {
    const result = plan(VIEWS[level as Exclude<NudgeLevel, "quiet">])
    expect(result.decision.level).toBe(level)
    expect(result.decision.channelTwo).toBe(false)
    expect(result.placements.map((placement) => placement.kind)).toEqual(["nudge"])
    expect(result.placements[0]?.text).toContain(`magic-context: ${opening} 37% of the window`)
  })

  it.each<[Exclude<NudgeLevel, "quiet">, NudgeLevel, number, number, boolean]>([
    ["gentle", "gentle", 10, 19, false],
    ["gentle", "gentle", 10, 20, true],
    ["firm", "firm", 10, 15, false],
    ["firm", "firm", 10, 16, true],
    ["urgent", "urgent", 10, 13, false],
    ["urgent", "urgent", 10, 14, true],
    // One reminder at a time: a rising level waits for the gap (4 passes) too.
    ["firm", "gentle", 10, 13, false],
    ["firm", "gentle", 10, 14, true],
    ["urgent", "firm", 10, 11, false],
    ["urgent", "firm", 10, 14, true],
    ["gentle", "firm", 10, 11, false],
    ["gentle", "urgent", 10, 20, true],
  ])("repeats a %s reminder after a %s one at pass %i on pass %i: %s", (level, lastLevel, lastPass, pass, due) => {
    const result = plan(VIEWS[level], { applied: { lastNudgePass: lastPass, lastNudgeLevel: lastLevel }, pass })
    expect(result.placements.length > 0).toBe(due)
  })

  it("is quiet for an agent without ctx_reduce, while drops are queued, and for 8 passes after a ctx_reduce call", () => {
    const urgent = VIEWS.urgent
    expect(plan(urgent, { tagsVisible: false }).placements).toEqual([])
    expect(plan(urgent, { tagsVisible: false }).decision.level).toBe("urgent")
    expect(plan(urgent, { queued: [99] }).placements).toEqual([])
    expect(plan(urgent, { applied: { lastReducePass: 12 }, pass: 19 }).placements).toEqual([])
    expect(plan(urgent, { applied: { lastReducePass: 12 }, pass: 20 }).placements).toHaveLength(1)
  })

  it("is quiet below the floors", () => {
    expect(plan(viewWith(10_000, 40_000)).decision.level).toBe("quiet")
    expect(plan(viewWith(10_000, 40_000)).placements).toEqual([])
    expect(plan(viewWith(100_000, 24_000)).decision.level).toBe("quiet")
  })

  it("places the steer message once per epoch and needs an anchor for each channel", () => {
    const ceiling = viewWith(10_000, 80_000)
    const steer = { kind: "steer" as const, anchorId: "m-old", level: "ceiling", text: "x", placedPass: 1 }
    expect(plan(ceiling).placements.map((placement) => placement.kind)).toEqual(["nudge", "steer"])
    expect(plan(ceiling, { applied: { placements: [steer] } }).placements.map((placement) => placement.kind)).toEqual([
      "nudge",
    ])
    const noTool = planNudge({
      view: ceiling,
      caches: createReduceCaches(),
      newestToolPartId: null,
      newestMessageId: null,
      applied: initialAppliedState(),
      queued: new Set(),
      pass: 2,
      usagePercent: 50,
      usableTokens: 200_000,
      thresholdPercent: 55,
      tagsVisible: true,
      budgetTokens: Number.POSITIVE_INFINITY,
      count: words,
    })
    expect(noTool.placements).toEqual([])
  })

  it("keeps the reminders of an epoch within their budget however many passes it lasts", () => {
    const ceiling = viewWith(10_000, 80_000)
    const first = plan(ceiling, { pass: 1 }).placements
    const nudgeWords = words(first[0]?.text ?? "")
    const steerWords = words(first[1]?.text ?? "")
    // Room for the steer message and two nudges: the epoch's reminders stop there, pass after pass.
    const budgetTokens = steerWords + 2 * nudgeWords
    let placements: AppliedState["placements"] = []
    for (let pass = 1; pass <= 200; pass += 4) {
      const planned = plan(ceiling, { pass, budgetTokens, applied: { placements, lastNudgePass: placements.length > 0 ? pass - 4 : null, lastNudgeLevel: "urgent" } })
      placements = [...placements, ...planned.placements]
    }
    expect(placements.map((placement) => placement.kind)).toEqual(["nudge", "steer", "nudge"])
    expect(placements.reduce((sum, placement) => sum + words(placement.text), 0)).toBeLessThanOrEqual(budgetTokens)
    // A new epoch (no placements) has the whole budget again.
    expect(plan(ceiling, { pass: 300, budgetTokens }).placements).toHaveLength(2)
  })

  it("places the steer message before a nudge when only one of them fits", () => {
    const ceiling = viewWith(10_000, 80_000)
    const steerWords = words(plan(ceiling).placements[1]?.text ?? "")
    expect(plan(ceiling, { budgetTokens: steerWords }).placements.map((placement) => placement.kind)).toEqual(["steer"])
  })
})

describe("reclaimableItems", () => {
  it("counts finished, live tool arcs of 250 tokens or more outside the protected window, not queued or kept", () => {
    const messages = [
      userMessage({ id: "u1", parts: [text("p1", toks(5_000))] }),
      arc("big", "read", 5_000),
      arc("queued", "read", 5_000),
      arc("dropped", "read", 5_000),
      arc("small", "bash", 249),
      arc("todo", "todowrite", 5_000),
      assistantMessage({ id: "m-run", parts: [tool("run", "bash", running({ note: toks(600) }))] }),
      arc("recent", "grep", 5_000),
    ]
    const state = ingestedState(messages)
    markDropped(state, "dropped")
    const view = liveView(messages, { state, protectedTokens: 5_000 })
    const queued = new Set([state.tagsByPart.get("queued")?.tag ?? -1])
    expect(reclaimableItems(view, queued, createReduceCaches()).map((item) => item.tag.partId)).toEqual(["big"])
  })

  it("well below the threshold the same tail gets a firm reminder and no steer message (37% of 200k, threshold 65%)", () => {
    const result = plan(viewWith(10_000, 80_000), { thresholdPercent: 65 })
    expect(result.decision).toMatchObject({ level: "firm", channelTwo: false })
    expect(result.placements.map((placement) => [placement.kind, placement.level])).toEqual([["nudge", "firm"]])
  })
})
