import { describe, expect, it } from "vitest"
import type { Probe } from "../../src/lab/probe-file.js"
import { createProbeTracker } from "../../src/lab/track-probes.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { text, userMessage } from "../helpers/host-messages.js"

const probe = (id: string, need: number | null, exact: string): Probe => ({
  id,
  trace: "s.jsonl",
  tracePath: "/s.jsonl",
  kind: need === null ? "incidental" : "identifier",
  t: 0,
  need,
  exact,
})

const prompt = (body: string): HostMessage[] => [userMessage({ id: "m", parts: [text("p", body)] })]

describe("createProbeTracker", () => {
  it("checks each probe at the first model call at or after its need", () => {
    const tracker = createProbeTracker([
      probe("late", 7, "alpha"),
      probe("between", 4, "beta"),
      probe("exact-turn", 3, "alpha"),
    ])
    tracker.observe({ turn: 3, prompt: prompt("alpha beta") })
    tracker.observe({ turn: 6, prompt: prompt("alpha") })
    tracker.observe({ turn: 9, prompt: prompt("gamma") })
    expect(tracker.observations()).toEqual([
      { probeId: "late", needTurn: 9, survived: false },
      { probeId: "between", needTurn: 6, survived: false },
      { probeId: "exact-turn", needTurn: 3, survived: true },
    ])
  })

  it("leaves a probe unchecked when no call comes at or after its need, or it has none", () => {
    const tracker = createProbeTracker([probe("after-end", 12, "alpha"), probe("never", null, "alpha")])
    tracker.observe({ turn: 3, prompt: prompt("alpha") })
    expect(tracker.observations()).toEqual([
      { probeId: "after-end", needTurn: null, survived: null },
      { probeId: "never", needTurn: null, survived: null },
    ])
  })
})
