import { describe, expect, it } from "vitest"
import type { Placement, SessionState } from "../../src/session/session-state.js"
import { applyEdits } from "../../src/session/apply-edits.js"
import type { Edit } from "../../src/session/edit.js"
import { renderPrompt } from "../../src/render/render-prompt.js"
import { buildLiveView } from "../../src/session/live-view.js"
import { beginPass, createMessageMemo } from "../../src/session/message-memo.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
  freshCopy,
  inlinedFile,
  mediaFile,
  partById,
  reasoning,
  running,
  syntheticText,
  TEST_MODEL,
  TEST_SESSION,
  text,
  tool,
  userMessage,
  visibleText,
} from "../helpers/host-messages.js"
import { ingestedState, markDropped } from "../helpers/pure-session.js"
import { createRenderCaches } from "../../src/render/render-caches.js"

const LONG = "o".repeat(200)

/** Tags: u1 1, f1 2, f2 3, a1 4, t1 5, t2 6, t3 7, e1 8, e2 9, u2 10. */
const session = (): HostMessage[] => [
  userMessage({
    id: "m1",
    created: 100,
    parts: [
      text("u1", "fix the bug"),
      inlinedFile("f1", "notes.txt", ["Called read", "line 1"]),
      mediaFile("f2", "shot.png"),
    ],
  }),
  assistantMessage({
    id: "m2",
    created: 200,
    parts: [
      reasoning("r1", "thinking"),
      text("a1", "reading"),
      tool("t1", "read", completed({ path: "a.txt" }, "contents")),
      tool("t2", "bash", failed({ command: "make" }, "boom")),
      tool("t3", "bash", running({ command: "sleep" })),
      text("a1b", "done"),
    ],
  }),
  assistantMessage({
    id: "m3",
    created: 300,
    parts: [
      tool("e1", "edit", completed({ filePath: "src/x.ts", oldString: LONG, newString: "n" }, "edited")),
      tool("e2", "edit", completed({ filePath: "src/x.ts", oldString: "a", newString: "b" }, "edited again")),
    ],
  }),
  userMessage({ id: "m4", created: 400, parts: [text("u2", "thanks")] }),
]

function render(
  options: { state?: SessionState; tagsVisible?: boolean; placements?: Placement[]; messages?: HostMessage[] } = {},
): readonly Edit[] {
  const messages = options.messages ?? session()
  return renderPrompt({
    messages,
    state: options.state ?? ingestedState(messages),
    tagsVisible: options.tagsVisible ?? true,
    placements: options.placements ?? [],
  })
}

const PREFIXES: Edit[] = [
  { type: "set-text", messageId: "m1", partId: "u1", text: "§1§ fix the bug" },
  { type: "set-text", messageId: "m1", partId: "f1-c0", text: "§2§ Called read" },
  { type: "insert-part", messageId: "m1", beforePartId: "f2", partId: "f2-tag", text: "§3§ " },
  { type: "set-text", messageId: "m2", partId: "a1", text: "§4§ reading" },
  { type: "set-tool-result", messageId: "m2", partId: "t1", text: "§5§ contents" },
  { type: "set-tool-result", messageId: "m2", partId: "t2", text: "§6§ boom" },
  { type: "set-tool-result", messageId: "m3", partId: "e1", text: "§8§ edited" },
  { type: "set-tool-result", messageId: "m3", partId: "e2", text: "§9§ edited again" },
  { type: "set-text", messageId: "m4", partId: "u2", text: "§10§ thanks" },
]

/** The prefix edits with the edits of one item replaced. */
const replacing = (partIds: string[], edits: Edit[]): Edit[] => {
  const index = PREFIXES.findIndex((edit) => "partId" in edit && partIds.includes(edit.partId))
  return [...PREFIXES.slice(0, index), ...edits, ...PREFIXES.slice(index + 1)]
}

describe("renderPrompt", () => {
  it("prefixes every finished tagged item, in message order, and leaves a running tool alone", () => {
    expect(render()).toEqual(PREFIXES)
  })

  it("writes no prefix or reminder into an output OpenCode pruned, whose marker is what the model reads", () => {
    const messages = session()
    const t1 = partById(messages, "t1")
    if (t1?.type !== "tool" || t1.state.status !== "completed") throw new Error("t1 is a finished tool")
    t1.state = { ...t1.state, time: { ...t1.state.time, compacted: 150 } }
    const placements: Placement[] = [{ kind: "nudge", anchorId: "t1", level: "firm", text: "remind", placedPass: 3 }]
    expect(render({ messages, placements })).toEqual(PREFIXES.filter((edit) => !("partId" in edit) || edit.partId !== "t1"))
  })

  it("renders nothing for live items when tags are not visible", () => {
    expect(render({ tagsVisible: false })).toEqual([])
  })

  it.each<[string, string, Edit[]]>([
    [
      "a message: the marker on its carrier, its other text emptied, its reasoning and tools kept",
      "a1",
      [
        { type: "set-text", messageId: "m2", partId: "a1", text: "[dropped §4§ message]" },
        { type: "set-text", messageId: "m2", partId: "a1b", text: "" },
      ],
    ],
    [
      "a tool output with a short input",
      "t1",
      [{ type: "set-tool-result", messageId: "m2", partId: "t1", text: "[dropped §5§ read output]" }],
    ],
    [
      "a failed tool",
      "t2",
      [{ type: "set-tool-result", messageId: "m2", partId: "t2", text: "[dropped §6§ bash output]" }],
    ],
    [
      "a tool with a long input, whose call keeps only short values",
      "e1",
      [
        { type: "set-tool-result", messageId: "m3", partId: "e1", text: "[dropped §8§ edit output]" },
        {
          type: "set-tool-input",
          messageId: "m3",
          partId: "e1",
          input: { filePath: "src/x.ts", oldString: "[200 chars dropped]", newString: "n" },
        },
      ],
    ],
    [
      "an inlined file: the marker on its first content part, the rest emptied",
      "f1",
      [
        { type: "set-text", messageId: "m1", partId: "f1-c0", text: "[dropped §2§ file notes.txt]" },
        { type: "set-text", messageId: "m1", partId: "f1-c1", text: "" },
      ],
    ],
    [
      "a media file: the marker inserted before it, the file removed",
      "f2",
      [
        {
          type: "insert-part",
          messageId: "m1",
          beforePartId: "f2",
          partId: "f2-tag",
          text: "[dropped §3§ file shot.png]",
        },
        { type: "remove-part", messageId: "m1", partId: "f2" },
      ],
    ],
  ])("renders a dropped %s", (_name, partId, edits) => {
    const messages = session()
    const state = ingestedState(messages)
    markDropped(state, partId, "reduce")
    const carrier: Record<string, string> = { f1: "f1-c0", f2: "f2-tag" }
    expect(render({ messages, state })).toEqual(replacing([carrier[partId] ?? partId], edits))
    // The edits fit the messages they were rendered for.
    expect(() => applyEdits(freshCopy(messages), render({ messages, state }))).not.toThrow()
  })

  it("drops the note OpenCode puts before an attached image with its message, and keeps it when the image is dropped", () => {
    const messages = [
      assistantMessage({
        id: "m1",
        parts: [syntheticText("note", "Called the Read tool"), mediaFile("img", "shot.png")],
      }),
    ]
    const message = ingestedState(messages)
    markDropped(message, "note")
    expect(render({ messages, state: message })).toEqual([
      { type: "set-text", messageId: "m1", partId: "note", text: "[dropped §1§ message]" },
      { type: "insert-part", messageId: "m1", beforePartId: "img", partId: "img-tag", text: "§2§ " },
    ])
    const image = ingestedState(messages)
    markDropped(image, "img")
    expect(render({ messages, state: image })).toEqual([
      { type: "set-text", messageId: "m1", partId: "note", text: "§1§ Called the Read tool" },
      {
        type: "insert-part",
        messageId: "m1",
        beforePartId: "img",
        partId: "img-tag",
        text: "[dropped §2§ file shot.png]",
      },
      { type: "remove-part", messageId: "m1", partId: "img" },
    ])
  })

  it("renders a superseded edit with its path and the newest edit, and keeps only its path in the call", () => {
    const messages = session()
    const state = ingestedState(messages)
    markDropped(state, "e1", "superseded", 9)
    expect(render({ messages, state })).toEqual(
      replacing(
        ["e1"],
        [
          {
            type: "set-tool-result",
            messageId: "m3",
            partId: "e1",
            text: "[superseded §8§ edit output of src/x.ts; the newest edit of it is §9§]",
          },
          { type: "set-tool-input", messageId: "m3", partId: "e1", input: { filePath: "src/x.ts" } },
        ],
      ),
    )
  })

  it("renders markers without tag numbers when tags are not visible", () => {
    const messages = session()
    const state = ingestedState(messages)
    markDropped(state, "t1", "reclaim")
    markDropped(state, "f2", "reduce")
    markDropped(state, "e1", "superseded", 9)
    expect(render({ messages, state, tagsVisible: false })).toEqual([
      { type: "insert-part", messageId: "m1", beforePartId: "f2", partId: "f2-tag", text: "[dropped file shot.png]" },
      { type: "remove-part", messageId: "m1", partId: "f2" },
      { type: "set-tool-result", messageId: "m2", partId: "t1", text: "[dropped read output]" },
      { type: "set-tool-result", messageId: "m3", partId: "e1", text: "[superseded edit output of src/x.ts]" },
      { type: "set-tool-input", messageId: "m3", partId: "e1", input: { filePath: "src/x.ts" } },
    ])
  })

  describe("reminders", () => {
    const nudge = (anchorId: string, text: string, placedPass = 3): Placement => ({
      kind: "nudge",
      anchorId,
      level: "firm",
      text,
      placedPass,
    })

    it("appends the nudges placed on a tool output, in placement order", () => {
      const placements = [
        nudge("e2", "<system-reminder>first</system-reminder>"),
        nudge("e2", "<system-reminder>second</system-reminder>", 5),
      ]
      expect(render({ placements })).toEqual(
        replacing(
          ["e2"],
          [
            {
              type: "set-tool-result",
              messageId: "m3",
              partId: "e2",
              text:
                "§9§ edited again\n\n<system-reminder>first</system-reminder>" +
                "\n\n<system-reminder>second</system-reminder>",
            },
          ],
        ),
      )
    })

    it("appends a nudge without a prefix when tags are not visible", () => {
      expect(render({ tagsVisible: false, placements: [nudge("t2", "remind")] })).toEqual([
        { type: "set-tool-result", messageId: "m2", partId: "t2", text: "boom\n\nremind" },
      ])
    })

    it("writes no nudge on a running or a dropped tool", () => {
      const messages = session()
      const state = ingestedState(messages)
      markDropped(state, "t1")
      const edits = render({ messages, state, placements: [nudge("t3", "remind"), nudge("t1", "remind")] })
      expect(JSON.stringify(edits)).not.toContain("remind")
    })

    it("inserts a steer message after its anchor, as a hidden user message of the current agent and model", () => {
      const steer: Placement = {
        kind: "steer",
        anchorId: "m3",
        level: "ceiling",
        text: "<system-reminder>drop now</system-reminder>",
        placedPass: 7,
      }
      expect(render({ placements: [steer] })).toEqual([
        ...PREFIXES,
        {
          type: "insert-message",
          afterMessageId: "m3",
          message: {
            info: {
              id: "m3-steer",
              sessionID: TEST_SESSION,
              role: "user",
              time: { created: 300 },
              agent: "build",
              model: TEST_MODEL,
            },
            parts: [
              {
                id: "m3-steer-text",
                sessionID: TEST_SESSION,
                messageID: "m3-steer",
                type: "text",
                text: "<system-reminder>drop now</system-reminder>",
                synthetic: true,
              },
            ],
          },
        },
      ])
    })

    it("inserts no steer message whose anchor is not in the list", () => {
      const steer: Placement = { kind: "steer", anchorId: "gone", level: "ceiling", text: "x", placedPass: 7 }
      expect(render({ placements: [steer] })).toEqual(PREFIXES)
    })
  })

  describe("folded history", () => {
    it("removes the folded messages and puts the history message at the start", () => {
      const messages = session()
      const state = ingestedState(messages)
      state.applied = { ...state.applied, history: { foldedThroughSeq: 2, text: "What happened so far.", tokens: 4 } }
      expect(render({ messages, state })).toEqual([
        { type: "remove-message", messageId: "m1" },
        { type: "remove-message", messageId: "m2" },
        {
          type: "insert-message",
          afterMessageId: null,
          message: {
            info: {
              id: "mc-history-2",
              sessionID: TEST_SESSION,
              role: "user",
              time: { created: 100 },
              agent: "build",
              model: TEST_MODEL,
            },
            parts: [
              {
                id: "mc-history-2-text",
                sessionID: TEST_SESSION,
                messageID: "mc-history-2",
                type: "text",
                text: "What happened so far.",
                synthetic: true,
              },
            ],
          },
        },
        ...PREFIXES.slice(6),
      ])
      const rendered = freshCopy(messages)
      applyEdits(rendered, render({ messages, state }))
      expect(rendered.map((message) => message.info.id)).toEqual(["mc-history-2", "m3", "m4"])
      expect(visibleText(partById(rendered, "mc-history-2-text"))).toBe("What happened so far.")
    })

    it("keeps the last pass's very list for a replay of a folded session, and renders anew when the head changes", () => {
      const messages = session()
      const state = ingestedState(messages)
      state.applied = { ...state.applied, history: { foldedThroughSeq: 2, text: "What happened so far.", tokens: 4 } }
      const memo = createMessageMemo()
      const caches = createRenderCaches()
      const pass = (list: HostMessage[], current: SessionState = state): readonly Edit[] => {
        beginPass(memo, list)
        const view = buildLiveView({ messages: list, state: current, protectedTokens: 0, memo })
        return renderPrompt({ messages: list, state: current, tagsVisible: true, placements: [], memo, view, caches })
      }
      const first = pass(freshCopy(messages))
      expect(first).toEqual(render({ messages, state }))
      // The same messages again (fresh copies): the same list object, so the serialization takes the last prompt.
      expect(pass(freshCopy(messages))).toBe(first)
      // Another history (folded further in a later epoch): the head is made anew.
      const further = { ...state, applied: { ...state.applied, history: { foldedThroughSeq: 3, text: "More happened.", tokens: 2 } } }
      const refolded = pass(freshCopy(messages), further)
      expect(refolded).not.toBe(first)
      expect(refolded).toEqual(render({ messages, state: further }))
      // The newest user message sent with another model: the history message says so.
      const switched = freshCopy(messages)
      const user = switched.findLast((message) => message.info.role === "user")
      if (user?.info.role === "user") user.info.model = { providerID: "openai", modelID: "gpt-5" }
      const afterSwitch = pass(switched, further)
      expect(afterSwitch).not.toBe(refolded)
      expect(afterSwitch).toEqual(render({ messages: switched, state: further }))
    })

    it("inserts no history message when none of the folded messages is in the list", () => {
      const messages = session()
      const state = ingestedState(messages)
      state.applied = { ...state.applied, history: { foldedThroughSeq: 2, text: "x", tokens: 1 } }
      expect(render({ messages: messages.slice(2), state })).toEqual(PREFIXES.slice(6))
    })
  })

  it("is a pure function: the same inputs give the same edits, and nothing it is given changes", () => {
    const messages = session()
    const state = ingestedState(messages)
    markDropped(state, "e1", "superseded", 9)
    const placements: Placement[] = [{ kind: "nudge", anchorId: "e2", level: "firm", text: "r", placedPass: 2 }]
    const before = JSON.stringify({ messages, tags: [...state.tagsByNumber.values()], applied: state.applied })
    const first = renderPrompt({ messages, state, tagsVisible: true, placements })
    const second = renderPrompt({ messages: freshCopy(messages), state, tagsVisible: true, placements })
    expect(second).toEqual(first)
    expect(JSON.stringify({ messages, tags: [...state.tagsByNumber.values()], applied: state.applied })).toBe(before)
  })

  it("renders a message without a tag as it is", () => {
    const messages = session()
    const state = ingestedState(messages.slice(0, 1))
    expect(render({ messages, state })).toEqual(PREFIXES.slice(0, 3))
  })
})
