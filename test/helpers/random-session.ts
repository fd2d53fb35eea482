import fc from "fast-check"
import type { DropReason, Placement, SessionState } from "../../src/session/session-state.js"
import type { TokenCounter } from "../../src/tokens/token-counter.js"
import { isFinalPart, type HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
  inlinedFile,
  mediaFile,
  pending,
  reasoning,
  running,
  text,
  tool,
  userMessage,
  wordCounter,
  type PartSpec,
} from "./host-messages.js"
import { ingestedState } from "./pure-session.js"

/**
 * Random sessions with a random applied state (drops of every kind and reason, reminders, folded history), for
 * properties of the renderer and the measure. Built the way a pass leaves them: only finished items are dropped,
 * nudges sit on finished tool outputs, a steer message follows a message that is still in the prompt.
 */
export type RandomScenario = {
  messages: HostMessage[]
  state: SessionState
  tagsVisible: boolean
  placements: Placement[]
  protectedTokens: number
  counter: TokenCounter
}

type PartGen =
  | { type: "text" | "synthetic" | "ignored" | "reasoning"; body: string }
  | {
      type: "tool"
      name: string
      status: "pending" | "running" | "completed" | "error"
      output: string
      file: string
      long: boolean
    }
  | { type: "file"; contents: string[] }
  | { type: "media"; withReadNote: boolean }

type MessageGen = { role: "user" | "assistant"; parts: PartGen[] }

const words = fc
  .array(fc.constantFrom("alpha", "beta", "gamma", "§3§", "see § 4.2", "x", "\n", "  "), { maxLength: 6 })
  .map((pieces) => pieces.join(" "))

const partGen: fc.Arbitrary<PartGen> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ type: fc.constant("text" as const), body: words }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("synthetic" as const), body: words }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("ignored" as const), body: words }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("reasoning" as const), body: words }) },
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant("tool" as const),
      name: fc.constantFrom("read", "bash", "edit", "write", "grep"),
      status: fc.constantFrom(
        "pending" as const,
        "running" as const,
        "completed" as const,
        "completed" as const,
        "error" as const,
      ),
      output: words,
      file: fc.constantFrom("a.ts", "b.ts"),
      long: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("file" as const),
      contents: fc.array(words, { minLength: 1, maxLength: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("media" as const), withReadNote: fc.boolean() }) },
)

const messageGen: fc.Arbitrary<MessageGen> = fc.record({
  role: fc.constantFrom("user" as const, "assistant" as const),
  parts: fc.array(partGen, { maxLength: 5 }),
})

const pick = fc.record({
  index: fc.nat(),
  reason: fc.constantFrom<DropReason>("reduce", "reclaim", "smart", "superseded"),
  by: fc.nat(),
})

export const scenarioArbitrary: fc.Arbitrary<RandomScenario> = fc
  .record({
    first: fc.array(partGen, { minLength: 1, maxLength: 4 }),
    rest: fc.array(messageGen, { maxLength: 7 }),
    drops: fc.array(pick, { maxLength: 8 }),
    nudges: fc.array(fc.record({ index: fc.nat(), text: words }), { maxLength: 3 }),
    steer: fc.option(fc.record({ index: fc.nat(), text: words }), { nil: null }),
    fold: fc.option(fc.record({ index: fc.nat(), text: words }), { nil: null }),
    tagsVisible: fc.boolean(),
    protectedTokens: fc.nat({ max: 60 }),
  })
  .map((generated) => {
    const specs: MessageGen[] = [{ role: "user", parts: generated.first }, ...generated.rest]
    const messages = specs.map((spec, index) => buildMessage(spec, index))
    const counter = wordCounter
    const state = ingestedState(messages, counter)
    const tags = [...state.tagsByNumber.values()]
    const finalParts = new Map(messages.flatMap((message) => message.parts).map((part) => [part.id, isFinalPart(part)]))

    for (const drop of generated.drops) {
      const tag = tags[drop.index % Math.max(tags.length, 1)]
      if (!tag || finalParts.get(tag.partId) === false) continue
      const newer = tags[drop.by % tags.length]
      tag.status = "dropped"
      tag.droppedReason = drop.reason
      tag.supersededBy = drop.reason === "superseded" && newer ? newer.tag : null
    }

    if (generated.fold) {
      const through = (generated.fold.index % messages.length) + 1
      state.applied = {
        ...state.applied,
        history: { foldedThroughSeq: through, text: generated.fold.text, tokens: counter.count(generated.fold.text) },
      }
    }
    const folded = state.applied.history?.foldedThroughSeq ?? 0

    const placements: Placement[] = []
    const finishedTools = messages.flatMap((message) =>
      message.parts.filter((part) => part.type === "tool" && isFinalPart(part)).map((part) => part.id),
    )
    generated.nudges.forEach((nudge, index) => {
      const anchorId = finishedTools[nudge.index % Math.max(finishedTools.length, 1)]
      if (anchorId) placements.push({
        kind: "nudge",
        anchorId,
        level: "firm",
        text: `<system-reminder>${nudge.text}</system-reminder>`,
        placedPass: index + 1,
      })
    })
    const unfolded = messages.filter((message) => (state.messageSeq.get(message.info.id) ?? 0) > folded)
    const anchor = generated.steer ? unfolded[generated.steer.index % Math.max(unfolded.length, 1)] : undefined
    if (generated.steer && anchor) {
      placements.push({
        kind: "steer",
        anchorId: anchor.info.id,
        level: "ceiling",
        text: generated.steer.text,
        placedPass: 9,
      })
    }
    return {
      messages,
      state,
      tagsVisible: generated.tagsVisible,
      placements,
      protectedTokens: generated.protectedTokens,
      counter,
    }
  })

function buildMessage(spec: MessageGen, index: number): HostMessage {
  const id = `m${index}`
  const parts = spec.parts.flatMap((part, position) => partSpecs(part, `${id}p${position}`))
  const build = spec.role === "user" ? userMessage : assistantMessage
  return build({ id, created: 1_000 + index, parts })
}

function partSpecs(part: PartGen, id: string): PartSpec[] {
  switch (part.type) {
    case "text":
      return [text(id, part.body)]
    case "synthetic":
      return [text(id, part.body, { synthetic: true })]
    case "ignored":
      return [text(id, part.body, { ignored: true })]
    case "reasoning":
      return [reasoning(id, part.body)]
    case "file":
      return [inlinedFile(id, `${id}.txt`, part.contents)]
    case "media":
      // OpenCode puts a synthetic "Called the Read tool" note before an attached binary file.
      return [
        ...(part.withReadNote
          ? [text(`${id}-note`, `Called the Read tool with the following input: ${id}.png`, { synthetic: true })]
          : []),
        mediaFile(id, `${id}.png`),
      ]
    case "tool": {
      const input = { filePath: part.file, content: part.long ? "y".repeat(300) : "short" }
      const state =
        part.status === "pending"
          ? pending(input)
          : part.status === "running"
            ? running(input)
            : part.status === "completed"
              ? completed(input, part.output)
              : failed(input, part.output)
      return [tool(id, part.name, state)]
    }
  }
}
