import { describe, expect, it } from "vitest"
import type { ChatMessage, ChatRequest } from "../../e2e/harness/mock-model-server.js"
import {
  hasUnansweredReminder,
  newReminders,
  oldToolOutputTags,
  reminderBlocks,
  reminderDrop,
} from "../../../bench/e2e/reminder-reply.js"

const NUDGE =
  "<system-reminder>magic-context: Some older tool output could be dropped. 61% of the window is in use; " +
  'drop spent outputs with ctx_reduce in the same response as your next real tool call, largest first: §3§ read (2.1k). ' +
  'Example: ctx_reduce(drop="3").' +
  "</system-reminder>"
const STEER =
  "<system-reminder>magic-context: the context window is 70% full and 9.0k tokens of it are old tool output. " +
  "Call ctx_reduce for the outputs you are done with in the same response as your next real tool call." +
  "</system-reminder>"

const call = (id: string, name: string): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, function: { name, arguments: "{}" } }],
})
const output = (id: string, content: string): ChatMessage => ({ role: "tool", tool_call_id: id, content })
const request = (...messages: ChatMessage[]): ChatRequest => ({
  model: "mock",
  tools: [{ function: { name: "read" } }],
  messages: [{ role: "system", content: "S" }, { role: "user", content: "§1§ survey" }, ...messages],
})

/** Finished reads with these tags, the newest carrying `last` after its output. */
const reads = (tags: readonly number[], last = ""): ChatMessage[] =>
  tags.flatMap((tag, index) => [
    call(`c${tag}`, "read"),
    output(`c${tag}`, `§${tag}§ file ${tag}${index === tags.length - 1 && last ? `\n${last}` : ""}`),
  ])
/** Five finished reads, tagged 2, 4, 6, 8 and 10. */
const session = (last = ""): ChatMessage[] => reads([2, 4, 6, 8, 10], last)

describe("reminderBlocks", () => {
  it("finds the nudge on a tool result and the steer message, in message order", () => {
    const blocks = reminderBlocks(request(...session(NUDGE), { role: "user", content: STEER }))
    expect(blocks).toEqual([NUDGE, STEER])
  })

  it("ignores other system reminders", () => {
    expect(reminderBlocks(request(output("c1", "§2§ x\n<system-reminder>other</system-reminder>")))).toEqual([])
  })
})

describe("newReminders", () => {
  it("counts the blocks the previous request did not have, each occurrence once", () => {
    expect(newReminders([], [NUDGE])).toBe(1)
    expect(newReminders([NUDGE], [NUDGE])).toBe(0)
    expect(newReminders([NUDGE], [NUDGE, NUDGE, STEER])).toBe(2)
    expect(newReminders([NUDGE, STEER], [])).toBe(0)
  })
})

describe("hasUnansweredReminder", () => {
  it("is true for a reminder with no ctx_reduce call after it", () => {
    expect(hasUnansweredReminder(request(...session(NUDGE)))).toBe(true)
    expect(hasUnansweredReminder(request(...session(), { role: "user", content: STEER }))).toBe(true)
  })

  it("is false once a ctx_reduce call follows the newest reminder, and without reminders", () => {
    const reduce = [call("c11", "ctx_reduce"), output("c11", "§12§ Queued 2 tool outputs")]
    const answered = request(...session(NUDGE), ...reduce)
    expect(hasUnansweredReminder(answered)).toBe(false)
    expect(hasUnansweredReminder(request(...session()))).toBe(false)
  })

  it("is true again for a newer reminder after an answered one", () => {
    const later = request(
      ...session(NUDGE),
      call("c11", "ctx_reduce"),
      output("c11", "§12§ Queued 2 tool outputs"),
      call("c13", "read"),
      output("c13", `§14§ file 14\n${STEER}`),
    )
    expect(hasUnansweredReminder(later)).toBe(true)
  })
})

describe("oldToolOutputTags", () => {
  it("lists the tags of every tool output but the newest few, oldest first", () => {
    expect(oldToolOutputTags(request(...session()), 3)).toEqual([2, 4])
    expect(oldToolOutputTags(request(...session()), 10)).toEqual([])
  })

  it("skips outputs without a tag prefix (a dropped output's marker)", () => {
    const messages = [call("c1", "read"), output("c1", "[dropped §2§ read output]"), ...session()]
    expect(oldToolOutputTags(request(...messages), 3)).toEqual([2, 4])
  })
})

describe("reminderDrop", () => {
  it("drops the old outputs as compact ranges when a reminder is unanswered", () => {
    expect(reminderDrop(request(...reads([3, 4, 5, 12, 13, 14, 15], NUDGE)))).toBe("3-5,12")
  })

  it("is null without an unanswered reminder, or with nothing old enough to drop", () => {
    expect(reminderDrop(request(...session()))).toBeNull()
    expect(reminderDrop(request(call("c2", "read"), output("c2", `§2§ x\n${NUDGE}`)))).toBeNull()
  })
})
