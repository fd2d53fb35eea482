import { isFinalPart, type HostMessage, type HostPart, type HostToolPart } from "../transcript/host-message.js"
import { isPrunedTool } from "../transcript/part-content.js"

/**
 * Every field of a host message that rendering and serializing read, as a flat list of primitives: the host hands
 * the plugin fresh copies on every call, so "the same message as last time" is an equal signature, never the same
 * object. Strings are the host's own (compared natively, not copied); a tool's input is its JSON.
 */
export type MessageSignature = readonly unknown[]

export function messageSignature(message: HostMessage): MessageSignature {
  const signature: unknown[] = [message.info.id, message.info.role, message.parts.length]
  for (const part of message.parts) {
    signature.push(part.id, part.type)
    switch (part.type) {
      case "text":
        signature.push(part.text, part.synthetic === true, part.ignored === true)
        break
      case "reasoning":
        signature.push(part.text)
        break
      case "tool": {
        const state = part.state
        signature.push(part.tool, state.status, JSON.stringify(state.input))
        if (state.status === "completed") signature.push(state.output, Boolean(state.time.compacted))
        else if (state.status === "error") signature.push(state.error)
        break
      }
      case "file":
        signature.push(part.mime, part.filename ?? null, part.url)
        break
      case "subtask":
        signature.push(part.prompt)
        break
      default:
        break
    }
  }
  return signature
}

/** True when two signatures are equal field by field. */
export function sameSignature(a: MessageSignature, b: MessageSignature): boolean {
  if (a.length !== b.length) return false
  for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false
  return true
}

/**
 * A message whose parts are all final, by what a finished part can still change: its role, and per part its id and
 * type and its size (a text's length, a tool's output or error length) and a tool's state (completed, pruned, failed).
 * Null while a part is not final (a tool still running fills in its input and output). `parts` holds `PART_SLOTS`
 * values per part, in a row: id, type, kind (which field `size` measures, read once the type is known to be the
 * same), size and tool state. One array per message, not an object per part: every pass reads every message's shape,
 * and under Node the reads of objects scattered over the heap cost more than the comparisons.
 */
export type FinalShape = { role: string; parts: readonly (string | number)[] }

/** How many values of `FinalShape.parts` describe one part. */
const PART_SLOTS = 5

/** Which field of a part its size is: a text's (text, reasoning), a tool's result, a file's url, a subtask's prompt. */
const PartKind = { Text: 0, Tool: 1, File: 2, Subtask: 3, Other: 4 } as const
type PartKind = (typeof PartKind)[keyof typeof PartKind]

/** A tool's state as a number (0 for other parts): what a final tool part can still become is pruned. */
const ToolState = { None: 0, Completed: 1, Pruned: 2, Failed: 3, Unfinished: 4 } as const
type ToolState = (typeof ToolState)[keyof typeof ToolState]

export function finalShape(message: HostMessage): FinalShape | null {
  if (!message.parts.every(isFinalPart)) return null
  const parts: (string | number)[] = []
  for (const part of message.parts) parts.push(part.id, part.type, ...kindSizeState(part))
  return { role: message.info.role, parts }
}

/**
 * True when the message has the role and the parts `shape` describes, each of the same size and state. The host
 * hands fresh strings on every call: a part's type is compared once, and its size read by the kind the shape knows.
 */
export function sameFinalShape(shape: FinalShape, message: HostMessage): boolean {
  const parts = message.parts
  const known = shape.parts
  if (message.info.role !== shape.role || parts.length * PART_SLOTS !== known.length) return false
  for (let index = 0, at = 0; index < parts.length; index += 1, at += PART_SLOTS) {
    const part = parts[index] as HostPart
    if (part.id !== known[at] || part.type !== known[at + 1]) return false
    const size = known[at + 3]
    switch (known[at + 2]) {
      case PartKind.Text:
        if ((part as Extract<HostPart, { type: "text" | "reasoning" }>).text.length !== size) return false
        break
      case PartKind.Tool: {
        const tool = part as HostToolPart
        if (toolState(tool) !== known[at + 4] || toolSize(tool) !== size) return false
        break
      }
      case PartKind.File:
        if ((part as Extract<HostPart, { type: "file" }>).url.length !== size) return false
        break
      case PartKind.Subtask:
        if ((part as Extract<HostPart, { type: "subtask" }>).prompt.length !== size) return false
        break
      default:
        break
    }
  }
  return true
}

/** A part's kind, size and tool state, the last three slots of its `FinalShape` entry. */
function kindSizeState(part: HostPart): [PartKind, number, ToolState] {
  switch (part.type) {
    case "text":
    case "reasoning":
      return [PartKind.Text, part.text.length, ToolState.None]
    case "tool":
      return [PartKind.Tool, toolSize(part), toolState(part)]
    case "file":
      return [PartKind.File, part.url.length, ToolState.None]
    case "subtask":
      return [PartKind.Subtask, part.prompt.length, ToolState.None]
    default:
      return [PartKind.Other, 0, ToolState.None]
  }
}

function toolState(part: HostToolPart): ToolState {
  const status = part.state.status
  if (status === "completed") return isPrunedTool(part) ? ToolState.Pruned : ToolState.Completed
  return status === "error" ? ToolState.Failed : ToolState.Unfinished
}

function toolSize(part: HostToolPart): number {
  const state = part.state
  return state.status === "completed" ? state.output.length : state.status === "error" ? state.error.length : 0
}
