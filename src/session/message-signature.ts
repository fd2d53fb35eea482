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
 * Null while a part is not final (a tool still running fills in its input and output).
 */
export type FinalShape = { role: string; parts: readonly FinalPart[] }

/** A part of a `FinalShape`: `kind` says which field `size` measures (read once the type is known to be the same). */
type FinalPart = { id: string; type: string; kind: PartKind; size: number; state: ToolState }

/** Which field of a part its size is: a text's (text, reasoning), a tool's result, a file's url, a subtask's prompt. */
const PartKind = { Text: 0, Tool: 1, File: 2, Subtask: 3, Other: 4 } as const
type PartKind = (typeof PartKind)[keyof typeof PartKind]

/** A tool's state as a number (0 for other parts): what a final tool part can still become is pruned. */
const ToolState = { None: 0, Completed: 1, Pruned: 2, Failed: 3, Unfinished: 4 } as const
type ToolState = (typeof ToolState)[keyof typeof ToolState]

export function finalShape(message: HostMessage): FinalShape | null {
  if (!message.parts.every(isFinalPart)) return null
  return { role: message.info.role, parts: message.parts.map(finalPart) }
}

/**
 * True when the message has the role and the parts `shape` describes, each of the same size and state. The host
 * hands fresh strings on every call: a part's type is compared once, and its size read by the kind the shape knows.
 */
export function sameFinalShape(shape: FinalShape, message: HostMessage): boolean {
  const parts = message.parts
  if (message.info.role !== shape.role || parts.length !== shape.parts.length) return false
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index] as HostPart
    const known = shape.parts[index] as FinalPart
    if (part.id !== known.id || part.type !== known.type) return false
    switch (known.kind) {
      case PartKind.Text:
        if ((part as Extract<HostPart, { type: "text" | "reasoning" }>).text.length !== known.size) return false
        break
      case PartKind.Tool: {
        const tool = part as HostToolPart
        if (toolState(tool) !== known.state || toolSize(tool) !== known.size) return false
        break
      }
      case PartKind.File:
        if ((part as Extract<HostPart, { type: "file" }>).url.length !== known.size) return false
        break
      case PartKind.Subtask:
        if ((part as Extract<HostPart, { type: "subtask" }>).prompt.length !== known.size) return false
        break
      case PartKind.Other:
        break
    }
  }
  return true
}

function finalPart(part: HostPart): FinalPart {
  // One object shape for every part: the comparison reads them all at one site.
  const { id, type } = part
  switch (part.type) {
    case "text":
    case "reasoning":
      return { id, type, kind: PartKind.Text, size: part.text.length, state: ToolState.None }
    case "tool":
      return { id, type, kind: PartKind.Tool, size: toolSize(part), state: toolState(part) }
    case "file":
      return { id, type, kind: PartKind.File, size: part.url.length, state: ToolState.None }
    case "subtask":
      return { id, type, kind: PartKind.Subtask, size: part.prompt.length, state: ToolState.None }
    default:
      return { id, type, kind: PartKind.Other, size: 0, state: ToolState.None }
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
