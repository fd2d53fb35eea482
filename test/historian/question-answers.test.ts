import { describe, expect, it } from "vitest"
import { extractCanonicalRecord } from "../../src/historian/canonical-record.js"
import { questionAnswers } from "../../src/historian/question-answers.js"
import { recognizersWithout } from "../../src/session/recognizers.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, text, tool, userMessage } from "../helpers/host-messages.js"
import { tagMessages } from "./trace-episodes.js"

/** What OpenCode's `question` tool (and Claude Code's AskUserQuestion) return once the user has chosen. */
const ANSWERED =
  'User has answered your questions: "Reuse the module from the old migration plan?"="No, not in this step; we port it after the cutover", ' +
  '"Which database does the staging run use?"="the staging replica, not the primary", "Notify the on-call channel?"="Unanswered". ' +
  "You can now continue with the user's answers in mind."

describe("questionAnswers", () => {
  it("takes each answered question with its answer, verbatim, and leaves the unanswered out", () => {
    expect(questionAnswers(ANSWERED)).toEqual([
      '"Reuse the module from the old migration plan?"="No, not in this step; we port it after the cutover"',
      '"Which database does the staging run use?"="the staging replica, not the primary"',
    ])
  })

  it("keeps quotes inside an answer", () => {
    expect(questionAnswers('User has answered your questions: "Name?"="call it "ledger-v2" for now". You can now continue.')).toEqual([
      '"Name?"="call it "ledger-v2" for now"',
    ])
  })

  it("reads an output in another shape as one answer while it is short, and nothing from an empty one", () => {
    expect(questionAnswers("keep the old endpoint until Friday")).toEqual(["keep the old endpoint until Friday"])
    expect(questionAnswers("x".repeat(5000))).toEqual([])
    expect(questionAnswers("  ")).toEqual([])
  })
})

function episode(): HostMessage[] {
  return [
    userMessage({ id: "u1", parts: [text("u1-t", "Plan the ledger migration and ask me what you need to know.")] }),
    assistantMessage({
      id: "a1",
      parts: [
        tool("a1-q", "question", completed({ questions: [{ question: "Reuse the module from the old migration plan?" }] }, ANSWERED)),
        text("a1-t", "Understood: the old plan's module stays out of this step, and staging runs against the replica."),
      ],
    }),
  ]
}

function record(off: string[] = []) {
  const messages = episode()
  return extractCanonicalRecord({ compartmentId: "c2", messages, tagOf: tagMessages(messages), recognizers: recognizersWithout(off) })
}

describe("the user's answers in the canonical record", () => {
  it("are pinned constraints, word for word (the pinned ledger carries them, as it carries typed words)", () => {
    const pinned = record().facts.filter((fact) => fact.retention === "PIN").map((fact) => fact.text)
    expect(pinned).toContain('user answered: "Reuse the module from the old migration plan?"="No, not in this step; we port it after the cutover"')
    expect(pinned).toContain('user answered: "Which database does the staging run use?"="the staging replica, not the primary"')
  })

  it("are the question-answers rule's doing", () => {
    const pinned = record(["question-answers"]).facts.filter((fact) => fact.retention === "PIN").map((fact) => fact.text)
    expect(pinned.join("\n")).not.toContain("we port it after the cutover")
  })
})
