import type { HostMessage, HostPart } from "../transcript/host-message.js"
import type { Edit, PlacedEdits } from "./edit.js"
import { entryAt, type MessageMemo } from "./message-memo.js"
import type { SerializedLayout, SerializedPrompt } from "./serialized-prompt.js"
import { partText } from "../transcript/part-content.js"
import { utf8Length } from "./utf8-length.js"

export type { SerializedPrompt } from "./serialized-prompt.js"

/**
 * A canonical serialization of what the model reads from a message list: per message its role, then each part's
 * visible text (text, reasoning, tool call and result, a media file's name). Two prompts the provider would see as
 * equal serialize to equal strings, so "the previous prompt is a byte prefix of this one" is a string prefix test.
 */
export function serializePrompt(messages: readonly HostMessage[]): string {
  return messages.map(serializeMessage).join("")
}

/**
 * The per-message serialization of `messages`. A chunk equal to one of `previous` takes its size from there, so a
 * pass over an unchanged session counts no byte twice.
 */
export function serializeChunks(messages: readonly HostMessage[], previous: SerializedPrompt | null = null): SerializedPrompt {
  const sizes = chunkSizes(previous)
  const chunks = messages.map(serializeMessage)
  const bytes = chunks.map(sizes)
  return { chunks, bytes, totalBytes: bytes.reduce((sum, size) => sum + size, 0) }
}

/** Sizes chunks, taking a chunk equal to one of `previous` from there (most sit where they sat; after an execute pass they moved). */
function chunkSizes(previous: SerializedPrompt | null): (chunk: string, index: number) => number {
  let moved: Map<string, number> | null = null
  return (chunk, index) => {
    // A chunk past the previous prompt's end is new (the session grew): sizing it is cheaper than indexing the rest.
    if (previous === null || index >= previous.chunks.length) return utf8Length(chunk)
    if (previous.chunks[index] === chunk) return previous.bytes[index] ?? utf8Length(chunk)
    moved ??= new Map(previous.chunks.map((known, at) => [known, previous.bytes[at] ?? 0]))
    return moved.get(chunk) ?? utf8Length(chunk)
  }
}

/** The whole serialized prompt as one string. */
export function joinPrompt(prompt: SerializedPrompt): string {
  return prompt.chunks.join("")
}

function serializeMessage(message: HostMessage): string {
  let chunk = `\u0001${message.info.role}\n`
  for (const part of message.parts) {
    if (part.type === "file") {
      chunk += `\u0002file ${part.mime} ${part.filename ?? part.url}\n`
      continue
    }
    const { content, call } = partText(part)
    if (call.length > 0) chunk += `\u0002call ${call}\n`
    if (content.length > 0) chunk += `\u0002${part.type} ${content}\n`
  }
  return chunk
}

/**
 * Serializes the prompt that applying `edits` to `messages` would produce, without applying them (so the pass can
 * check the cache contract while the shell alone writes into the host's objects). Equal, by construction and by
 * test, to `serializePrompt` of the edited messages.
 */
export function serializeRendered(messages: readonly HostMessage[], edits: readonly Edit[]): string {
  return serializePrompt(renderedMessages(messages, edits))
}

/**
 * `serializeRendered` kept per message (see `serializeChunks`). With the memo the latest `renderPrompt` of `edits`
 * filled, a message it rendered unchanged takes its chunk from there, and a new chunk is kept for the next pass.
 */
export function serializeRenderedChunks(
  messages: readonly HostMessage[],
  edits: readonly Edit[],
  previous: SerializedPrompt | null,
  memo: MessageMemo | null = null,
  /** Where the live messages' edits of `edits` are (`renderPromptPlaced`): that run has no edit of a whole message. */
  placed: PlacedEdits | null = null,
): SerializedPrompt {
  const same = memo?.serialized
  // The messages of the last pass, each where it sat, rendered by the same edits: the prompt is the last one.
  const count = messages.length
  if (memo && same?.edits === edits && same.generation === memo.generation - 1 && same.count === count && memo.stable === count && memo.current === messages) {
    memo.serialized = { ...same, generation: memo.generation }
    return same.prompt
  }
  const sizes = chunkSizes(previous)
  const chunks: string[] = []
  const bytes: number[] = []
  let totalBytes = 0
  const add = (text: string, size: number = sizes(text, chunks.length)): void => {
    chunks.push(text)
    bytes.push(size)
    totalBytes += size
  }
  const { atStart, after, removed } = messageEdits(edits, placed)
  // The part edits are gathered only when a message is rendered (most chunks of a pass are reused whole).
  let allPartEdits: PartEdits | null = null
  // The last prompt's layout, when its live messages followed its inserted-at-start ones with nothing between them.
  const last = same !== null && same !== undefined && memo !== null && same.generation === memo.generation - 1 ? same.layout : null
  // How many leading chunks are the last prompt's at the same positions.
  let shared = 0
  atStart.forEach((message, index) => {
    const known = last !== null && last.atStart[index] === message ? same?.prompt.chunks[index] : undefined
    if (known === undefined) add(serializeMessage(message))
    else add(known, same?.prompt.bytes[index])
    if (known !== undefined && shared === index) shared += 1
  })
  // The leading live messages the render kept from the last prompt's run sit where they sat: their chunks are its.
  const plain = placed !== null && after.size === 0 && removed.size === placed.removed
  const kept = plain && memo !== null && last !== null ? keptChunks(memo, messages, placed, last) : 0
  if (kept > 0 && same && last) {
    const { chunks: lastChunks, bytes: lastBytes } = same.prompt
    for (let at = last.liveAt; at < last.liveAt + kept; at += 1) {
      const size = lastBytes[at] as number
      chunks.push(lastChunks[at] as string)
      bytes.push(size)
      totalBytes += size
    }
    if (shared === atStart.length && last.liveAt === atStart.length) shared += kept
  }
  // The memo's entries by position, when they are this list's (`entryAt` otherwise).
  const entries = memo !== null && memo.current === messages ? memo.list : null
  for (let index = kept > 0 && placed ? placed.liveFrom + kept : 0; index < messages.length; index += 1) {
    const message = messages[index] as HostMessage
    if (removed.size > 0 && removed.has(message.info.id)) continue
    // A chunk is kept only beside the edits it was serialized with: `rendered` is the latest render's.
    const entry = entries !== null ? (entries[index] ?? null) : entryAt(memo, index, message)
    const known = entry?.rendered ? entry.chunk : null
    if (known) {
      chunks.push(known.text)
      bytes.push(known.bytes)
      totalBytes += known.bytes
    } else {
      // A message the latest render memoized carries its own part edits: rendering it reads those, not the whole list
      // (unless two messages share an id, and so maybe part ids: then the whole list's last edit of a part wins).
      const own = memo?.uniqueIds === true ? (entry?.rendered?.edits ?? null) : null
      const text = serializeMessage(withPartEdits(message, own !== null ? gatherPartEdits(own) : (allPartEdits ??= gatherPartEdits(edits))))
      const size = sizes(text, chunks.length)
      add(text, size)
      if (entry?.rendered) entry.chunk = { text, bytes: size }
    }
    if (after.size > 0) for (const inserted of after.get(message.info.id) ?? []) add(serializeMessage(inserted))
  }
  const prompt = { chunks, bytes, totalBytes }
  if (memo && shared > 0 && same) memo.sharedLeading.set(prompt, { from: same.prompt, count: shared })
  const layout = plain && placed ? { atStart, liveAt: atStart.length, liveFrom: placed.liveFrom, run: placed.run } : null
  if (memo) memo.serialized = { prompt, edits, generation: memo.generation, count, layout }
  return prompt
}

/**
 * How many leading live messages take their chunks from the last prompt: those the render kept from the run that
 * prompt serialized (`PlacedEdits.kept`), while they are the memo's current list's leading messages, each where it
 * sat (so their content is what was serialized then), live from the same position.
 */
function keptChunks(memo: MessageMemo, messages: readonly HostMessage[], placed: PlacedEdits, last: SerializedLayout): number {
  if (placed.keptFrom === null || placed.keptFrom !== last.run || placed.liveFrom !== last.liveFrom || memo.current !== messages) return 0
  return Math.max(0, Math.min(placed.kept, memo.stable - placed.liveFrom))
}

/**
 * The index in `messages` of the first host message that applying `edits` would place at or after position
 * `renderedIndex` of the rendered list (messages inserted by the edits take positions too, removed ones none);
 * `messages.length` when there is none.
 */
export function firstHostMessageFrom(messages: readonly HostMessage[], edits: readonly Edit[], renderedIndex: number): number {
  const { atStart, after, removed } = messageEdits(edits)
  let position = atStart.length
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index] as HostMessage
    if (removed.has(message.info.id)) continue
    if (position >= renderedIndex) return index
    position += 1 + (after.get(message.info.id)?.length ?? 0)
  }
  return messages.length
}

/** The index of the chunk of `prompt` that holds byte `offset` (the number of chunks when it is past the end). */
export function chunkAtByte(prompt: SerializedPrompt, offset: number): number {
  let start = 0
  for (let index = 0; index < prompt.bytes.length; index += 1) {
    start += prompt.bytes[index] ?? 0
    if (offset < start) return index
  }
  return prompt.bytes.length
}

/** The messages applying `edits` would produce, built beside the host's (which stay untouched). */
function renderedMessages(messages: readonly HostMessage[], edits: readonly Edit[]): HostMessage[] {
  const { atStart, after, removed } = messageEdits(edits)
  const partEdits = gatherPartEdits(edits)
  const rendered = [...atStart]
  for (const message of messages) {
    if (removed.has(message.info.id)) continue
    rendered.push(withPartEdits(message, partEdits), ...(after.get(message.info.id) ?? []))
  }
  return rendered
}

/**
 * The edits of whole messages: inserted at the start, inserted after a message (by its id), removed. The run of live
 * messages' edits `placed` names is not looked at (it edits parts only).
 */
function messageEdits(
  edits: readonly Edit[],
  placed: PlacedEdits | null = null,
): { atStart: HostMessage[]; after: Map<string, HostMessage[]>; removed: Set<string> } {
  const after = new Map<string, HostMessage[]>()
  const atStart: HostMessage[] = []
  const removed = new Set<string>()
  const liveFrom = placed?.offset ?? edits.length
  const liveTo = placed === null ? edits.length : placed.offset + placed.targets.length / 2
  for (let index = 0; index < edits.length; index += 1) {
    if (index === liveFrom) index = liveTo
    const edit = edits[index]
    if (edit === undefined) break
    if (edit.type === "remove-message") removed.add(edit.messageId)
    else if (edit.type === "insert-message" && edit.afterMessageId === null) atStart.push(edit.message)
    else if (edit.type === "insert-message" && edit.afterMessageId !== null) {
      after.set(edit.afterMessageId, [...(after.get(edit.afterMessageId) ?? []), edit.message])
    }
  }
  return { atStart, after, removed }
}

/** A message as its part edits render it. */
function withPartEdits(message: HostMessage, partEdits: PartEdits): HostMessage {
  const { texts, inputs, insertedBefore, removed } = partEdits
  const parts: HostPart[] = []
  for (const part of message.parts) {
    for (const text of insertedBefore.get(part.id) ?? []) {
      parts.push({ id: `${part.id}-inserted`, sessionID: part.sessionID, messageID: part.messageID, type: "text", text, synthetic: true })
    }
    if (removed.has(part.id)) continue
    parts.push(withEdits(part, texts.get(part.id), inputs.get(part.id)))
  }
  return { info: message.info, parts }
}

/** The edits of parts, by part id. */
type PartEdits = {
  texts: Map<string, string>
  inputs: Map<string, Record<string, unknown>>
  insertedBefore: Map<string, string[]>
  removed: Set<string>
}

function gatherPartEdits(edits: readonly Edit[]): PartEdits {
  const gathered: PartEdits = { texts: new Map(), inputs: new Map(), insertedBefore: new Map(), removed: new Set() }
  for (const edit of edits) {
    if (edit.type === "set-text" || edit.type === "set-tool-result") gathered.texts.set(edit.partId, edit.text)
    else if (edit.type === "set-tool-input") gathered.inputs.set(edit.partId, edit.input)
    else if (edit.type === "insert-part") gathered.insertedBefore.set(edit.beforePartId, [...(gathered.insertedBefore.get(edit.beforePartId) ?? []), edit.text])
    else if (edit.type === "remove-part") gathered.removed.add(edit.partId)
  }
  return gathered
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
