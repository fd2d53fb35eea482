import { beforeEach, describe, expect, it } from "vitest"
import type { SessionState } from "../../src/session/session-state.js"
import { compactionContext } from "../../src/plugin/compaction-context.js"
import type { Database } from "../../src/store/driver.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  inlinedFile,
  memoryStore,
  passAndRender,
  sessionState,
  text,
  tool,
  userMessage,
  wordCounter,
} from "../helpers/host-messages.js"

let db: Database
let state: SessionState

beforeEach(async () => {
  db = await memoryStore()
  state = sessionState({ db, counter: wordCounter })
})

const store = (messages: HostMessage[]): void => {
  passAndRender({ db, state, messages, counter: wordCounter })
}

const drop = (...tags: number[]): void => {
  for (const tag of tags) {
    const record = state.tagsByNumber.get(tag)
    if (record) record.status = "dropped"
  }
}

describe("compactionContext", () => {
  it("adds nothing for a session without user text or drops", () => {
    expect(compactionContext({ db, state })).toBeNull()
    store([assistantMessage({ id: "a1", parts: [text("p1", "hello")] })])
    expect(compactionContext({ db, state })).toBeNull()
  })

  it("keeps the user's own words verbatim, oldest first, on one line each", () => {
    store([
      userMessage({
        id: "u1",
        parts: [
          text("p1", "Use  pnpm,\nnot npm."),
          text("p2", "a reminder", { synthetic: true }),
          text("p3", "hidden", { ignored: true }),
          inlinedFile("f1", "a.txt", ["file content"]),
        ],
      }),
      assistantMessage({ id: "a1", parts: [text("p4", "ok"), tool("t1", "read", completed({}, "x"))] }),
      userMessage({ id: "u2", parts: [text("p5", "  Never touch the migrations.  "), text("p6", "   ")] }),
    ])
    expect(compactionContext({ db, state })).toBe(
      [
        "magic-context (the session's raw transcript is kept in full outside this summary):",
        "Keep these user instructions and constraints verbatim in the summary, newest last:",
        "- Use pnpm, not npm.",
        "- Never touch the migrations.",
      ].join("\n"),
    )
  })

  it("lists the dropped tags as compact ranges", () => {
    store([
      assistantMessage({
        id: "a1",
        parts: [1, 2, 3, 4, 5, 6].map((index) => tool(`t${index}`, "read", completed({}, `output ${index}`))),
      }),
    ])
    drop(1, 2, 3, 5)
    expect(compactionContext({ db, state })).toBe(
      [
        "magic-context (the session's raw transcript is kept in full outside this summary):",
        "Items already dropped as spent (no need to preserve): §1-3§, §5§.",
      ].join("\n"),
    )
  })

  it("keeps the newest user text within its 12,000-character budget", () => {
    const long = (letter: string): string => letter.repeat(5_000)
    store(["a", "b", "c"].map(
      (letter, index) => userMessage({ id: `u${index}`, parts: [text(`p${index}`, long(letter))] }),
    ))
    const context = compactionContext({ db, state }) ?? ""
    expect(context.split("\n").slice(2)).toEqual([`- ${long("b")}`, `- ${long("c")}`])
  })

  it("cuts the newest instruction to the budget when it alone is larger, and still lists the drops", () => {
    store([
      userMessage({ id: "u1", parts: [text("p1", "x".repeat(12_001))] }),
      assistantMessage({ id: "a1", parts: [tool("t1", "read", completed({}, "y"))] }),
    ])
    drop(2)
    const lines = (compactionContext({ db, state }) ?? "").split("\n")
    expect(lines[2]).toBe(`- ${"x".repeat(12_000)} [cut: 12001 characters in all]`)
    expect(lines.at(-1)).toBe("Items already dropped as spent (no need to preserve): §2§.")
  })

  it("leaves out older instructions that do not fit next to the newest", () => {
    store([
      userMessage({ id: "u1", parts: [text("p1", "o".repeat(6_000))] }),
      userMessage({ id: "u2", parts: [text("p2", "n".repeat(7_000))] }),
    ])
    const context = compactionContext({ db, state }) ?? ""
    expect(context).toContain("n".repeat(7_000))
    expect(context).not.toContain("ooo")
  })
})
