/**
 * The FULL tier: an episode as the model saw it. User and assistant text (code blocks included), reasoning, the
 * files a user attached, every tool call with its input values decoded (a patch as its lines, not a JSON string) and
 * its output or error, each under its `§N§` tag. Drops that already landed render as their marker; a pruned output
 * as the host's marker. A part longer than MAX_FULL_PART_CHARS keeps its head and tail and says how much is left
 * out (`ctx_expand` returns the original). Deterministic: part order, sorted input keys, no clock.
 */
import { plainText } from "./plain-text.js"
import type { HostMessage, HostPart } from "../transcript/host-message.js"
import { partText, toolResultText } from "../transcript/part-content.js"

/** One part's text in FULL is cut to this many characters (head and tail); the original stays in the store. */
export const MAX_FULL_PART_CHARS = 16_000
const TAIL_CHARS = 4_000

/** What FULL says where it left part of a long part out (the checks of tier nesting read it back). */
export const FULL_CUT_NOTE = "characters not shown here; ctx_expand gives the original"

export type FullEpisodeOptions = {
  tagOf: (partId: string) => number | null
  /** Parts whose tag was dropped before the episode was cut (their marker is what the model saw). */
  droppedOf?: (partId: string) => boolean
}

/** The episode's messages as FULL text (without the tier header), or "" when nothing in it was shown to the model. */
export function renderFullEpisode(messages: readonly HostMessage[], options: FullEpisodeOptions): string {
  const blocks: string[] = []
  for (const message of messages) {
    for (const part of message.parts) {
      const block = partBlock(part, message.info.role, options)
      if (block !== null) blocks.push(block)
    }
  }
  return blocks.join("\n")
}

function partBlock(part: HostPart, role: "user" | "assistant", options: FullEpisodeOptions): string | null {
  const tag = options.tagOf(part.id)
  const mark = tag === null ? "" : `§${tag}§ `
  if (options.droppedOf?.(part.id) === true) return `${mark}[dropped ${part.type === "tool" ? `${part.tool} output` : "message"}]`
  switch (part.type) {
    case "text": {
      if (part.ignored === true || part.text.trim() === "") return null
      const label = part.synthetic === true ? (role === "user" ? "attached" : "note") : role
      return `${mark}${label}: ${bounded(part.text)}`
    }
    case "reasoning":
      return part.text.trim() === "" ? null : `reasoning: ${bounded(part.text)}`
    case "tool":
      return toolBlock(part, mark)
    case "file":
      return `${mark}file: ${part.filename ?? part.url} (${part.mime})`
    default: {
      const content = partText(part).content
      return content.trim() === "" ? null : `${mark}${part.type}: ${bounded(content)}`
    }
  }
}

function toolBlock(part: Extract<HostPart, { type: "tool" }>, mark: string): string {
  const input = inputLines(part.state.input).map((line) => `  ${line}`)
  const head = `${mark}tool ${part.tool}${input.length > 0 ? `\n${input.join("\n")}` : ""}`
  const state = part.state
  if (state.status === "completed") return `${head}\n${part.tool} output: ${bounded(plainText(toolResultText(part)))}`
  if (state.status === "error") return `${head}\n${part.tool} error: ${bounded(plainText(toolResultText(part)))}`
  return `${head}\n${part.tool} ${state.status}`
}

/** `key: value` per input leaf, strings decoded (a multi-line value starts after its key and goes on below it). */
function inputLines(value: unknown, path = ""): string[] {
  if (typeof value === "string") return [`${path}${path === "" ? "" : ": "}${bounded(value)}`]
  if (typeof value === "number" || typeof value === "boolean") return [`${path}: ${String(value)}`]
  if (value === null || value === undefined) return []
  if (Array.isArray(value)) return value.flatMap((item, index) => inputLines(item, `${path}[${index}]`))
  if (typeof value === "object") {
    return Object.keys(value as Record<string, unknown>)
      .sort()
      .flatMap((key) => inputLines((value as Record<string, unknown>)[key], path === "" ? key : `${path}.${key}`))
  }
  return []
}

function bounded(text: string): string {
  if (text.length <= MAX_FULL_PART_CHARS) return text
  const head = MAX_FULL_PART_CHARS - TAIL_CHARS
  return `${text.slice(0, head)}\n[… ${text.length - MAX_FULL_PART_CHARS} ${FULL_CUT_NOTE} …]\n${text.slice(-TAIL_CHARS)}`
}
