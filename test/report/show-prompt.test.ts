import { describe, expect, it } from "vitest"
import { composeHistory, type RenderedCompartment } from "../../src/historian/compose-history.js"
import type { ReplayTurn } from "../../src/pass/replay-transcript.js"
import { showPrompt, type RawRecords } from "../../src/report/show-prompt.js"
import type { HostMessage } from "../../src/transcript/host-message.js"

const RAW: RawRecords = {
  episode: (id) => (id === "c9" ? null : `raw of ${id}`),
  tag: (tag) => (tag === 99 ? null : `raw of §${tag}§`),
}

/** A replayed call whose prompt is `messages`, with the planner's tiers `tiers`. */
function call(messages: HostMessage[], tiers: Record<string, string> | null): ReplayTurn {
  return {
    turn: 7,
    pass: "execute",
    reason: "threshold-work",
    band: "execute",
    messages: messages.length,
    tokens: { total: 100, fixed: 0, history: 60, conversation: 10, protected: 20, tool: 10, reclaimable: 0, tags: 2 },
    usageBefore: 70,
    prefixChanged: true,
    firstDivergence: 12,
    dropped: [],
    nudge: null,
    history: tiers === null ? null : { tiers, floorViolations: 0, switches: 0, recalledLines: 0, recalledTokens: 0 },
    newTags: [],
    tagCount: 3,
    prompt: messages,
  }
}

const time = { created: 1 }
function user(id: string, text: string): HostMessage {
  return {
    info: { id, sessionID: "s", role: "user", time, agent: "build", model: { providerID: "p", modelID: "m" } },
    parts: [{ id: `${id}-text`, sessionID: "s", messageID: id, type: "text", text }],
  } as HostMessage
}
function toolCall(id: string, output: string): HostMessage {
  return {
    info: { id, sessionID: "s", role: "assistant", time, parentID: "u", modelID: "m", providerID: "p", mode: "build", path: { cwd: "/", root: "/" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } } },
    parts: [
      {
        id: `${id}-tool`,
        sessionID: "s",
        messageID: id,
        type: "tool",
        callID: "c",
        tool: "bash",
        state: { status: "completed", input: { command: "ls" }, output, title: "", metadata: {}, time: { start: 1, end: 2 } },
      },
    ],
  } as HostMessage
}

const EMPTY_WORKING_SET = { objective: null, filesModified: [], earlierFilesModified: 0, openTodos: [], lastFailure: null }

describe("showPrompt", () => {
  // The history exactly as composeHistory writes it: a blank line inside an episode, an omitted line, condensed pins
  // in an episode, the ledger and the working set.
  const compartments: RenderedCompartment[] = [
    { id: "c2", tier: "dense", text: "[c2 §5§–§9§]\nDecisions:\n- keep the cache\n\n- and the index" },
    { id: "c3", tier: "anchor", text: "[c3 §10§–§12§] ran the tests: 3 failed", pins: [{ text: "never push to main", tags: [11] }] },
    { id: "c10", tier: "compact", text: "[c10 §40§–§57§]\nFailures:\n- make → error" },
    { id: "c9", tier: "full", text: "[c9]\nno tagged item here" },
  ]
  const history = composeHistory({
    workingSet: { objective: "fix the build", filesModified: ["a.ts"], earlierFilesModified: 0, openTodos: [], lastFailure: null },
    pins: [{ text: "use tabs", tags: [3] }],
    compartments,
    omitted: { count: 1, first: "c1", last: "c1", firstTag: 1, lastTag: 4 },
  })
  const tiers = { c1: "omitted", c2: "dense", c3: "anchor", c9: "full", c10: "compact" }

  it("takes the history apart into its episodes at their tiers, the omitted line, the ledger and the working set", () => {
    const shown = showPrompt(call([user("h", history), user("u", "§20§ go on")], tiers), RAW)
    expect(shown.history?.episodes.map((episode) => [episode.id, episode.tier, episode.tags, episode.raw])).toEqual([
      ["c2", "dense", "§5§–§9§", "raw of c2"],
      ["c3", "anchor", "§10§–§12§", "raw of c3"],
      ["c10", "compact", "§40§–§57§", "raw of c10"],
      ["c9", "full", "", null],
    ])
    // Each episode's block is its text as composed, blank lines inside it and its condensed pins included.
    expect(shown.history?.episodes[0]?.text).toBe(compartments[0]?.text)
    expect(shown.history?.episodes[1]?.text).toContain("never push to main")
    expect(shown.history?.omittedIds).toEqual(["c1"])
    expect(shown.history?.omitted).toMatch(/^\(Not shown: 1 earlier episode from c1 to c1 \(§1§–§4§\): .*\)$/)
    expect(shown.history?.ledger).toEqual(["- §3§ use tabs"])
    expect(shown.history?.workingSet).toEqual(["Current objective (user's words): fix the build", "Files modified: a.ts"])
    expect(shown.conversation).toEqual([{ role: "user", parts: [{ kind: "text", tag: 20, text: "§20§ go on", dropped: null }] }])
    expect(shown.history?.recalled).toEqual([])
  })

  it("reads recalled lines apart from the ledger and the last episode", () => {
    const recalled = [{ displayId: "c2", tag: 6, text: "- `--keep-daily=N`: daily snapshots to keep" }]
    const withLedger = composeHistory({ workingSet: EMPTY_WORKING_SET, pins: [{ text: "use tabs", tags: [3] }], compartments, recalled })
    const shown = showPrompt(call([user("h", withLedger)], tiers), RAW).history
    expect([shown?.ledger, shown?.recalled]).toEqual([["- §3§ use tabs"], ["- c2 §6§: - `--keep-daily=N`: daily snapshots to keep"]])
    const withoutLedger = composeHistory({ workingSet: EMPTY_WORKING_SET, pins: [], compartments, recalled })
    const alone = showPrompt(call([user("h", withoutLedger)], tiers), RAW).history
    expect(alone?.episodes.at(-1)?.text).toBe(compartments.at(-1)?.text)
    expect(alone?.recalled).toHaveLength(1)
  })

  it("reads a drop marker's tag and gives what the item said, or null where the store has nothing", () => {
    const shown = showPrompt(
      call([toolCall("a", "[dropped §12§ bash output]"), toolCall("b", "[superseded §99§ edit output of a.ts; the newest edit of it is §100§]"), toolCall("c", "§13§ a.ts")], null),
      RAW,
    )
    expect(shown.history).toBeNull()
    expect(shown.conversation.map((message) => message.parts[0])).toEqual([
      { kind: "tool", tag: 12, text: 'bash {"command":"ls"}\n[dropped §12§ bash output]', dropped: { tag: 12, marker: "[dropped §12§ bash output]", raw: "raw of §12§" } },
      {
        kind: "tool",
        tag: 99,
        text: 'bash {"command":"ls"}\n[superseded §99§ edit output of a.ts; the newest edit of it is §100§]',
        dropped: { tag: 99, marker: "[superseded §99§ edit output of a.ts; the newest edit of it is §100§]", raw: null },
      },
      { kind: "tool", tag: 13, text: 'bash {"command":"ls"}\n§13§ a.ts', dropped: null },
    ])
  })
})
