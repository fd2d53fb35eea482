import type { PartKind, SessionState } from "../pass/session-state.js"
import { isFinalPart, type HostMessage } from "../transcript/host-message.js"

/** Tokens of a rendered prompt by kind of material (the message list only; the system prompt is separate). */
export type Composition = {
  total: number
  user: number
  assistant: number
  reasoning: number
  toolCalls: number
  toolOutputs: number
  files: number
  tags: number
}

/** An all-zero composition. */
export function emptyComposition(): Composition {
  return { total: 0, user: 0, assistant: 0, reasoning: 0, toolCalls: 0, toolOutputs: 0, files: 0, tags: 0 }
}

const FIELD_BY_KIND: Record<Exclude<PartKind, "none" | "tool">, keyof Composition> = {
  user: "user",
  assistant: "assistant",
  reasoning: "reasoning",
  file: "files",
}

/**
 * Sums the stored token counts of the parts in `messages` plus the tag prefixes that are rendered. Uses only
 * counts made at ingest, so it never re-tokenizes text.
 */
export function measureComposition(options: {
  messages: readonly HostMessage[]
  state: SessionState
  tagsRendered: boolean
}): Composition {
  const { messages, state, tagsRendered } = options
  const composition = emptyComposition()
  for (const message of messages) {
    for (const part of message.parts) {
      const known = state.parts.get(part.id)
      if (!known) continue
      if (known.kind === "tool") {
        composition.toolCalls += known.callTokens
        composition.toolOutputs += known.tokens
      } else if (known.kind !== "none") {
        composition[FIELD_BY_KIND[known.kind]] += known.tokens
      }
      // A tool that has not finished gets no prefix written (see plugin/apply-edits.ts), so none is counted.
      if (!tagsRendered || !isFinalPart(part)) continue
      const tag = state.tagsByPart.get(part.id)
      if (tag) composition.tags += tag.prefixTokens
    }
  }
  composition.total =
    composition.user +
    composition.assistant +
    composition.reasoning +
    composition.toolCalls +
    composition.toolOutputs +
    composition.files +
    composition.tags
  return composition
}
