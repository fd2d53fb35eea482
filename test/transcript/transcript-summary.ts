import type { Transcript } from "../../src/transcript/turn-model.js"

/** The counts a trace test pins. */
export type TranscriptSummary = {
  turns: number
  user: number
  assistant: number
  tool: number
  toolCalls: number
  toolResults: number
  errorResults: number
}

/** Counts turns by role and tool parts. */
export function summarizeTranscript(transcript: Transcript): TranscriptSummary {
  const summary: TranscriptSummary = {
    turns: transcript.turns.length,
    user: 0,
    assistant: 0,
    tool: 0,
    toolCalls: 0,
    toolResults: 0,
    errorResults: 0,
  }
  for (const turn of transcript.turns) {
    summary[turn.role] += 1
    for (const part of turn.parts) {
      if (part.type === "tool-call") summary.toolCalls += 1
      if (part.type === "tool-result") summary.toolResults += 1
      if (part.type === "tool-result" && part.isError) summary.errorResults += 1
    }
  }
  return summary
}

/** How many tool calls each tool received, sorted by tool name. */
export function countToolCalls(transcript: Transcript): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const turn of transcript.turns) {
    for (const part of turn.parts) {
      if (part.type === "tool-call") counts[part.tool] = (counts[part.tool] ?? 0) + 1
    }
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/**
 * The turn-model invariants every importer must keep: strictly increasing indices, no empty turns, and every
 * tool-result answering a tool-call of the same or an earlier turn (or, for an orphan, naming the tool "unknown").
 */
export function findInvariantViolations(transcript: Transcript): string[] {
  const violations: string[] = []
  const callIds = new Set<string>()
  let previousIndex = -1
  for (const turn of transcript.turns) {
    if (turn.index <= previousIndex) violations.push(`turn ${turn.index} does not follow turn ${previousIndex}`)
    previousIndex = turn.index
    if (turn.parts.length === 0) violations.push(`turn ${turn.index} has no parts`)
    for (const part of turn.parts) {
      if (part.type === "tool-call") callIds.add(part.callId)
      if (part.type === "tool-result" && !callIds.has(part.callId) && part.tool !== "unknown") {
        violations.push(`turn ${turn.index} answers unknown call ${part.callId}`)
      }
    }
  }
  return violations
}
