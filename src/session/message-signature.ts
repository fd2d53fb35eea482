import { isFinalPart, type HostMessage, type HostPart } from "../transcript/host-message.js"

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
 * type and its size (a text's length, a tool's status, output length and pruned flag). Null while a part is not final
 * (a tool still running fills in its input and output).
 */
export type FinalShape = {
  role: string
  parts: readonly { id: string; type: string; size: number; status: string | null; pruned: boolean }[]
}

export function finalShape(message: HostMessage): FinalShape | null {
  if (!message.parts.every(isFinalPart)) return null
  return {
    role: message.info.role,
    parts: message.parts.map((part) => ({ id: part.id, type: part.type, size: partSize(part), status: statusOf(part), pruned: isPruned(part) })),
  }
}

/** True when the message has the role and the parts `shape` describes, each of the same size and status. */
export function sameFinalShape(shape: FinalShape, message: HostMessage): boolean {
  const parts = message.parts
  if (message.info.role !== shape.role || parts.length !== shape.parts.length) return false
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index] as HostPart
    const known = shape.parts[index]
    if (known === undefined || part.id !== known.id || part.type !== known.type || partSize(part) !== known.size) return false
    if (statusOf(part) !== known.status || isPruned(part) !== known.pruned) return false
  }
  return true
}

function partSize(part: HostPart): number {
  switch (part.type) {
    case "text":
    case "reasoning":
      return part.text.length
    case "tool":
      return part.state.status === "completed" ? part.state.output.length : part.state.status === "error" ? part.state.error.length : 0
    case "file":
      return part.url.length
    case "subtask":
      return part.prompt.length
    default:
      return 0
  }
}

function statusOf(part: HostPart): string | null {
  return part.type === "tool" ? part.state.status : null
}

function isPruned(part: HostPart): boolean {
  return part.type === "tool" && part.state.status === "completed" && Boolean(part.state.time.compacted)
}
