import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { applyEdits } from "../../src/session/apply-edits.js"
import type { Edit } from "../../src/session/edit.js"
import { renderPrompt } from "../../src/render/render-prompt.js"
import { firstDivergence, promptDivergence } from "../../src/session/prompt-divergence.js"
import {
  joinPrompt,
  serializeChunks,
  serializePrompt,
  serializeRendered,
  serializeRenderedChunks,
  type SerializedPrompt,
} from "../../src/session/serialize-prompt.js"
import { beginPass, createMessageMemo } from "../../src/session/message-memo.js"
import { utf8Length } from "../../src/session/utf8-length.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
  freshCopy,
  mediaFile,
  reasoning,
  running,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"
import { scenarioArbitrary } from "../helpers/random-session.js"

const session = (): HostMessage[] => [
  userMessage({
    id: "m1",
    parts: [text("u1", "fix it"), text("i1", "hidden", { ignored: true }), mediaFile("f1", "shot.png")],
  }),
  assistantMessage({
    id: "m2",
    parts: [
      reasoning("r1", "hm"),
      tool("t1", "read", completed({ path: "a.ts", limit: 2 }, "line")),
      tool("t2", "bash", failed({ command: "make" }, "boom")),
      tool("t3", "bash", running({ command: "sleep" })),
      (owner) => ({
        id: "s1",
        ...owner,
        type: "step-finish",
        reason: "stop",
        cost: 0,
        tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      }),
    ],
  }),
]

describe("serializePrompt", () => {
  it("writes each message's role and the visible text of its parts", () => {
    expect(serializePrompt(session())).toBe(
      "\u0001user\n" +
        "\u0002text fix it\n" +
        "\u0002file image/png shot.png\n" +
        "\u0001assistant\n" +
        "\u0002reasoning hm\n" +
        '\u0002call read {"limit":2,"path":"a.ts"}\n' +
        "\u0002tool line\n" +
        '\u0002call bash {"command":"make"}\n' +
        "\u0002tool boom\n" +
        '\u0002call bash {"command":"sleep"}\n' +
        "\u0002tool [Tool execution was interrupted]\n",
    )
  })

  it("serializes an empty list as nothing", () => {
    expect(serializePrompt([])).toBe("")
  })

  it("does not depend on the order of a tool input's keys", () => {
    const reordered = session()
    reordered[1] = assistantMessage({
      id: "m2",
      parts: [tool("t1", "read", completed({ limit: 2, path: "a.ts" }, "line"))],
    })
    const original = session()
    original[1] = assistantMessage({
      id: "m2",
      parts: [tool("t1", "read", completed({ path: "a.ts", limit: 2 }, "line"))],
    })
    expect(serializePrompt(reordered)).toBe(serializePrompt(original))
  })
})

describe("firstDivergence", () => {
  it.each<[string, string, string, number | null]>([
    ["an equal prompt", "abc", "abc", null],
    ["a longer prompt with the same start", "abc", "abcdef", null],
    ["an empty previous prompt", "", "abc", null],
    ["a change at the start", "abc", "xbc", 0],
    ["a change after ASCII", "abcd", "abXd", 2],
    ["a change after a section sign (2 bytes)", "§1§ a", "§1§ b", 6],
    ["a change after a euro sign (3 bytes)", "€a", "€b", 3],
    ["a change after an emoji (4 bytes)", "😀a", "😀b", 4],
    ["a shorter prompt", "abcdef", "abc", 3],
  ])("finds %s", (_name, previous, current, offset) => {
    expect(firstDivergence(previous, current)).toBe(offset)
  })
})

describe("utf8Length", () => {
  it.each([
    ["", 0],
    ["a", 1],
    ["§", 2],
    ["€", 3],
    ["😀", 4],
    ["a§€😀", 10],
  ])("measures %j as %i bytes", (body, bytes) => {
    expect(utf8Length(body)).toBe(bytes)
  })

  it("agrees with Node's UTF-8 encoder on well-formed text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (body) => {
        expect(utf8Length(body)).toBe(Buffer.byteLength(body, "utf8"))
      }),
    )
  })
})

describe("utf8Length on long text (the encoder, in windows)", () => {
  /** The definition: 1, 2 or 3 bytes per UTF-16 unit, 4 per surrogate pair, 3 for a lone surrogate (U+FFFD). */
  const reference = (text: string): number => {
    let bytes = 0
    for (const char of text) {
      const code = char.codePointAt(0) ?? 0
      bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
    }
    return bytes
  }

  it("counts a pair that straddles a window edge as 4 bytes, and a lone surrogate there as 3", () => {
    const edge = 1 << 16
    for (const at of [edge - 2, edge - 1, edge, 2 * edge - 1]) {
      const pair = `${"a".repeat(at)}😀${"b".repeat(100)}`
      expect(utf8Length(pair)).toBe(at + 4 + 100)
      const loneHigh = `${"a".repeat(at)}\ud83d${"b".repeat(100)}`
      expect(utf8Length(loneHigh)).toBe(at + 3 + 100)
      const loneLow = `${"a".repeat(at)}\ude00${"b".repeat(100)}`
      expect(utf8Length(loneLow)).toBe(at + 3 + 100)
    }
  })

  it("agrees with the definition on long text of any units, well-formed or not", () => {
    const unit = fc.constantFrom("a", "\n", "§", "€", "😀", "\ud83d", "\ude00")
    const long = fc.tuple(fc.array(unit, { minLength: 1, maxLength: 40 }), fc.integer({ min: 10, max: 5_000 })).map(([units, repeat]) => units.join("").repeat(repeat))
    fc.assert(
      fc.property(long, (body) => {
        expect(utf8Length(body)).toBe(reference(body))
      }),
      { numRuns: 60 },
    )
  })
})

describe("serializeRendered", () => {
  it("serializes the messages as they are when there are no edits", () => {
    expect(serializeRendered(session(), [])).toBe(serializePrompt(session()))
  })

  it("serializes every kind of edit as if it had been applied", () => {
    const inserted = (id: string): HostMessage => userMessage({
      id,
      parts: [text(`${id}-t`, `inserted ${id}`, { synthetic: true })],
    })
    const edits: Edit[] = [
      { type: "set-text", messageId: "m1", partId: "u1", text: "§1§ fix it" },
      {
        type: "insert-part",
        messageId: "m1",
        beforePartId: "f1",
        partId: "f1-tag",
        text: "[dropped §2§ file shot.png]",
      },
      { type: "remove-part", messageId: "m1", partId: "f1" },
      { type: "set-tool-input", messageId: "m2", partId: "t1", input: { path: "a.ts" } },
      { type: "set-tool-result", messageId: "m2", partId: "t1", text: "[dropped §3§ read output]" },
      { type: "set-tool-result", messageId: "m2", partId: "t2", text: "§4§ boom" },
      { type: "insert-message", afterMessageId: "m2", message: inserted("steer") },
      { type: "insert-message", afterMessageId: null, message: inserted("history") },
      { type: "remove-message", messageId: "m1" },
    ]
    const applied = freshCopy(session())
    applyEdits(applied, edits)
    expect(serializeRendered(session(), edits)).toBe(serializePrompt(applied))
    expect(serializeRendered(session(), edits)).toBe(
      "\u0001user\n\u0002text inserted history\n" +
        "\u0001assistant\n\u0002reasoning hm\n" +
        '\u0002call read {"path":"a.ts"}\n\u0002tool [dropped §3§ read output]\n' +
        '\u0002call bash {"command":"make"}\n\u0002tool §4§ boom\n' +
        '\u0002call bash {"command":"sleep"}\n\u0002tool [Tool execution was interrupted]\n' +
        "\u0001user\n\u0002text inserted steer\n",
    )
  })

  it("equals serializePrompt of the messages after applyEdits, for any session and rendered state", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { messages, state, tagsVisible, placements } = scenario
        const edits = renderPrompt({ messages, state, tagsVisible, placements })
        const applied = structuredClone(messages)
        applyEdits(applied, edits)
        expect(serializeRendered(messages, edits)).toBe(serializePrompt(applied))
      }),
      { numRuns: 300 },
    )
  })
})

describe("serializeChunks and promptDivergence", () => {
  /** Text with the serialization's own separators and multi-byte characters, so chunk edges can be mistaken. */
  const awkward = fc.string({ unit: fc.constantFrom("a", "b", "\u0001", "\u0002", "\n", "§", "😀"), maxLength: 6 })
  const messages = fc.array(fc.tuple(fc.constantFrom("user", "assistant"), fc.array(awkward, { minLength: 1, maxLength: 3 })), {
    maxLength: 5,
  })
  const build = (shape: [string, string[]][]): HostMessage[] =>
    shape.map(([role, texts], index) => {
      const parts = texts.map((body, at) => text(`p${index}-${at}`, body))
      return role === "user" ? userMessage({ id: `m${index}`, parts }) : assistantMessage({ id: `m${index}`, parts })
    })

  it("joins to serializePrompt, with each chunk's UTF-8 size, whatever the previous prompt was", () => {
    fc.assert(
      fc.property(messages, messages, (before, now) => {
        const previous = serializeChunks(build(before))
        const current = serializeChunks(build(now), previous)
        expect(joinPrompt(current)).toBe(serializePrompt(build(now)))
        expect(current.bytes).toEqual(current.chunks.map(utf8Length))
        expect(current.totalBytes).toBe(Buffer.byteLength(joinPrompt(current), "utf8"))
      }),
      { numRuns: 300 },
    )
  })

  it("finds where the joined prompts first differ, as firstDivergence does", () => {
    // Grown, shortened, edited in place or replaced: the second prompt often shares the first's start.
    const pair = messages.chain((before) =>
      fc.tuple(
        fc.constant(before),
        fc.oneof(
          messages,
          messages.map((added) => [...before, ...added]),
          fc.nat().map((cut) => before.slice(0, cut % (before.length + 1))),
          fc.tuple(fc.nat(), awkward).map(([at, body]) =>
            before.map(([role, texts], index) => [role, index === at % Math.max(before.length, 1) ? [...texts, body] : texts] as [string, string[]]),
          ),
        ),
      ),
    )
    fc.assert(
      fc.property(pair, ([before, now]) => {
        const previous = serializeChunks(build(before))
        const current = serializeChunks(build(now), previous)
        expect(promptDivergence(previous, current)).toBe(firstDivergence(joinPrompt(previous), joinPrompt(current)))
      }),
      { numRuns: 500 },
    )
  })

  it("finds the divergence deep inside long chunks, past whole blocks of equal text", () => {
    // A history message of ~20,000 characters that differs once: anywhere, or next to where a block of the comparison
    // ends (its chunk starts with 12 characters of framing), by a multi-byte character or a cut.
    const nearBlockEdge = fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: -2, max: 2 })).map(([block, step]) => block * 4096 + step - 12)
    const long = fc.tuple(fc.integer({ min: 3_000, max: 7_000 }), fc.oneof(fc.nat(), nearBlockEdge), fc.constantFrom("x", "😀", "§", ""), fc.boolean())
    fc.assert(
      fc.property(long, ([repeat, at, replacement, grow]) => {
        const body = "a😀b§\n".repeat(repeat)
        const cut = at % body.length
        const changed = `${body.slice(0, cut)}${replacement}${body.slice(cut + 1)}`
        const tail: [string, string[]][] = [["user", ["next"]]]
        const before = serializeChunks(build([["user", [body]], ...tail]))
        const after = serializeChunks(build(grow ? [["user", [body]], ...tail, ["assistant", ["more"]]] : [["user", [changed]], ...tail]), before)
        expect(promptDivergence(before, after)).toBe(firstDivergence(joinPrompt(before), joinPrompt(after)))
      }),
      { numRuns: 100 },
    )
  })

  it("serializeRenderedChunks joins to serializeRendered for any session and rendered state", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { messages: hostMessages, state, tagsVisible, placements } = scenario
        const edits = renderPrompt({ messages: hostMessages, state, tagsVisible, placements })
        const plain = serializeChunks(hostMessages)
        expect(joinPrompt(serializeRenderedChunks(hostMessages, edits, plain))).toBe(serializeRendered(hostMessages, edits))
      }),
      { numRuns: 200 },
    )
  })
})

describe("serializeRenderedChunks with a memo", () => {
  const memo = createMessageMemo()
  const serializeNext = (messages: HostMessage[], edits: readonly Edit[], previous: SerializedPrompt | null): SerializedPrompt => {
    beginPass(memo, messages)
    return serializeRenderedChunks(messages, edits, previous, memo)
  }
  const dropped: Edit[] = [{ type: "set-tool-result", messageId: "m2", partId: "t1", text: "[dropped]" }]

  it("gives the last pass's prompt again for the same messages and edits, and serializes anew when either differs", () => {
    const first = serializeNext(freshCopy(session()), dropped, null)
    expect(joinPrompt(first)).toBe(serializeRendered(session(), dropped))
    const again = serializeNext(freshCopy(session()), dropped, first)
    expect(again).toBe(first)
    expect(promptDivergence(first, again)).toBeNull()

    // An equal list that is another object is other edits (the renderer hands back its very list when nothing changed).
    const retitled: Edit[] = [...dropped, { type: "set-text", messageId: "m1", partId: "u1", text: "fix it now" }]
    const other = serializeNext(freshCopy(session()), retitled, again)
    expect(other).not.toBe(again)
    expect(joinPrompt(other)).toBe(serializeRendered(session(), retitled))

    const changed = freshCopy(session())
    const thought = changed[1]?.parts[0]
    if (thought?.type !== "reasoning") throw new Error("the session's second message starts with reasoning")
    thought.text = "hmm, the make target"
    const rewritten = serializeNext(changed, retitled, other)
    expect(joinPrompt(rewritten)).toBe(serializeRendered(changed, retitled))

    const grown = [...freshCopy(session()), userMessage({ id: "m3", parts: [text("u3", "and the tests")] })]
    expect(joinPrompt(serializeNext(grown, retitled, rewritten))).toBe(serializeRendered(grown, retitled))
  })
})
