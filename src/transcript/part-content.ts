import {
  COMPACTION_PROMPT_TEXT,
  INTERRUPTED_TOOL_TEXT,
  PRUNED_TOOL_TEXT,
  type HostPart,
  type HostToolPart,
} from "./host-message.js"

/** The text of a part as the model reads it (before any plugin rendering), split into call and content. */
export type PartText = { content: string; call: string }

/**
 * Mirrors how OpenCode turns a part into model input: text and reasoning as written, a tool as its call
 * (name + JSON input) and its result (output, the pruned marker, error text, or the interrupted marker), a compaction part as
 * the question OpenCode substitutes. Parts the model never reads have empty text.
 */
export function partText(part: HostPart): PartText {
  switch (part.type) {
    case "text":
      return { content: part.ignored ? "" : part.text, call: "" }
    case "reasoning":
      return { content: part.text, call: "" }
    case "tool":
      return { content: toolResultText(part), call: `${part.tool} ${stableJson(part.state.input)}` }
    case "compaction":
      return { content: COMPACTION_PROMPT_TEXT, call: "" }
    case "subtask":
      return { content: part.prompt, call: "" }
    default:
      return { content: "", call: "" }
  }
}

/**
 * The result of a tool part as the model reads it: the output, or PRUNED_TOOL_TEXT once OpenCode has pruned it (the
 * part keeps its output; see `isPrunedTool`), the error text, or the interrupted marker for an unfinished call. Every
 * reader of a tool's output that stands for what the model sees goes through here.
 */
export function toolResultText(part: HostToolPart): string {
  const state = part.state
  if (state.status === "completed") return isPrunedTool(part) ? PRUNED_TOOL_TEXT : state.output
  if (state.status === "error") return state.error
  return INTERRUPTED_TOOL_TEXT
}

/**
 * True for a finished tool whose output OpenCode pruned (`state.time.compacted` set): the model reads PRUNED_TOOL_TEXT,
 * whatever `state.output` holds, so nothing written into that output (a tag prefix, a marker) reaches it.
 */
export function isPrunedTool(part: HostToolPart): boolean {
  // Truthiness, as OpenCode itself tests the field.
  return part.state.status === "completed" && Boolean(part.state.time.compacted)
}

/** JSON with object keys in sorted order, so equal values always serialize to the same bytes. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null"
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value === null || typeof value !== "object") return value
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(entries.map(([key, inner]) => [key, sortKeys(inner)]))
}
