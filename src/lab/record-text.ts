import type { Transcript, Turn } from "../transcript/turn-model.js"
import { toolInputText } from "./tool-input-text.js"

/**
 * The text of one source record (a transcript turn) as `promptText` would show it once it is in a prompt: texts and
 * reasoning, tool calls as name and decoded input values, tool results, file names; parts separated by newlines.
 *
 * A tool output the host later pruned (`prunedAt`) keeps its text here: the record holds it and the model read it in
 * every prompt until the pruning, so "exact first appears in record t" is about that text. Prompts after the pruning
 * carry only the marker (`promptText`), so a probe needed there fails in the unreduced replay: a fixture problem, not
 * a policy result.
 */
export function recordText(turn: Turn): string {
  return turn.parts
    .map((part) => {
      switch (part.type) {
        case "text":
        case "reasoning":
          return part.text
        case "tool-call":
          return toolInputText(part.tool, part.input)
        case "tool-result":
          return part.output
        case "file":
          return part.filename
      }
    })
    .join("\n")
}

/** The text of every record of a transcript, by record index, in order. */
export function recordTexts(transcript: Transcript): Map<number, string> {
  return new Map(transcript.turns.map((turn) => [turn.index, recordText(turn)]))
}
