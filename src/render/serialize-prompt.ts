import type { HostMessage, HostPart } from "../transcript/host-message.js"
import type { Edit } from "./edit.js"
import { partText } from "../transcript/part-content.js"

/**
 * A canonical serialization of what the model reads from a message list: per message its role, then each part's
 * visible text (text, reasoning, tool call and result, a media file's name). Two prompts the provider would see as
 * equal serialize to equal strings, so "the previous prompt is a byte prefix of this one" is a string prefix test.
 */
export function serializePrompt(messages: readonly HostMessage[]): string {
  const chunks: string[] = []
  for (const message of messages) {
    chunks.push(`\u0001${message.info.role}\n`)
    for (const part of message.parts) {
      if (part.type === "file") {
        chunks.push(`\u0002file ${part.mime} ${part.filename ?? part.url}\n`)
        continue
      }
      const { content, call } = partText(part)
      if (call.length > 0) chunks.push(`\u0002call ${call}\n`)
      if (content.length > 0) chunks.push(`\u0002${part.type} ${content}\n`)
    }
  }
  return chunks.join("")
}

/** Where two serialized prompts first differ, in UTF-8 bytes of `previous`; null when `previous` is a prefix of `current`. */
export function firstDivergence(previous: string, current: string): number | null {
  if (current.startsWith(previous)) return null
  let index = 0
  const limit = Math.min(previous.length, current.length)
  while (index < limit && previous.charCodeAt(index) === current.charCodeAt(index)) index += 1
  return utf8Length(previous.slice(0, index))
}

/** The UTF-8 byte length of a string. */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4
      index += 1
    } else bytes += 3
  }
  return bytes
}

/**
 * Serializes the prompt that applying `edits` to `messages` would produce, without applying them (so the pass can
 * check the cache contract while the shell alone writes into the host's objects). Equal, by construction and by
 * test, to `serializePrompt` of the edited messages.
 */
export function serializeRendered(messages: readonly HostMessage[], edits: readonly Edit[]): string {
  const texts = new Map<string, string>()
  const inputs = new Map<string, Record<string, unknown>>()
  const insertedBefore = new Map<string, string[]>()
  const removed = new Set<string>()
  const after = new Map<string, HostMessage[]>()
  const atStart: HostMessage[] = []
  const removedMessages = new Set<string>()
  for (const edit of edits) {
    if (edit.type === "remove-message") {
      removedMessages.add(edit.messageId)
      continue
    }
    if (edit.type === "insert-message" && edit.afterMessageId === null) {
      atStart.push(edit.message)
      continue
    }
    if (edit.type === "set-text" || edit.type === "set-tool-result") texts.set(edit.partId, edit.text)
    else if (edit.type === "set-tool-input") inputs.set(edit.partId, edit.input)
    else if (edit.type === "insert-part") insertedBefore.set(edit.beforePartId, [...(insertedBefore.get(edit.beforePartId) ?? []), edit.text])
    else if (edit.type === "remove-part") removed.add(edit.partId)
    else if (edit.type === "insert-message" && edit.afterMessageId !== null) {
      after.set(edit.afterMessageId, [...(after.get(edit.afterMessageId) ?? []), edit.message])
    }
  }
  const rendered: HostMessage[] = [...atStart]
  for (const message of messages) {
    if (removedMessages.has(message.info.id)) continue
    const parts: HostPart[] = []
    for (const part of message.parts) {
      for (const text of insertedBefore.get(part.id) ?? []) {
        parts.push({ id: `${part.id}-inserted`, sessionID: part.sessionID, messageID: part.messageID, type: "text", text, synthetic: true })
      }
      if (removed.has(part.id)) continue
      parts.push(withEdits(part, texts.get(part.id), inputs.get(part.id)))
    }
    rendered.push({ info: message.info, parts }, ...(after.get(message.info.id) ?? []))
  }
  return serializePrompt(rendered)
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

function withEdits(part: HostPart, text: string | undefined, input: Record<string, unknown> | undefined): HostPart {
  if (text === undefined && input === undefined) return part
  if (part.type === "text") return { ...part, text: text ?? part.text }
  if (part.type !== "tool") return part
  const state = { ...part.state, ...(input ? { input } : {}) } as typeof part.state
  if (text !== undefined && state.status === "completed") return { ...part, state: { ...state, output: text } }
  if (text !== undefined && state.status === "error") return { ...part, state: { ...state, error: text } }
  return { ...part, state }
}
