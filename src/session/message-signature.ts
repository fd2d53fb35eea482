import type { HostMessage } from "../transcript/host-message.js"

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
