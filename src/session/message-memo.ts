import { finalShape, messageSignature, sameFinalShape, sameSignature, type FinalShape, type MessageSignature } from "./message-signature.js"
import type { HostMessage } from "../transcript/host-message.js"
import { listTrackables, type Trackable } from "../transcript/trackables.js"
import type { Edit } from "./edit.js"
import type { LiveFacts } from "./live-view.js"

/**
 * What earlier passes computed per host message (in memory, per session): the host hands the plugin fresh copies
 * on every call, so a pass first checks each message's signature (`beginPass`); a message equal to last time keeps
 * its trackables, the live view its facts, the measure its share, the renderer its edits and the serializer its
 * chunk, each while what it was made from is unchanged, so a pass over a session that only grew computes them only
 * for the new messages. A cache: every result is the same without it. Never stored; a new process starts empty.
 */
export type MessageMemo = {
  /** Counts passes; an entry whose `generation` is the current one belongs to a message of the current list. */
  generation: number
  messages: Map<string, MessageMemoEntry>
  /** The current list names no message id twice (a host's never does; a pass keeps exact results if one did). */
  uniqueIds: boolean
}

export type MessageMemoEntry = {
  signature: MessageSignature
  /** The message's parts' ids, kinds and sizes when every part was final, else null (`FinalShape`). */
  final: FinalShape | null
  /** Ingest found the message and all its parts stored, each final (it has nothing more to store of it). */
  stored: boolean
  trackables: readonly Trackable[]
  generation: number
  /** The host's object for the message in the current pass: the entry answers for that object only. */
  source: HostMessage
  /** The renderer's edits for the message and what they were made from (tags visible, then per item its tag's number, status, drop reason, superseding tag and reminders); null until rendered. */
  rendered: { inputs: readonly unknown[]; edits: readonly Edit[] } | null
  /** The rendered message's serialized chunk and its UTF-8 size, for `rendered`'s edits. */
  chunk: { text: string; bytes: number } | null
  /** The live view's facts of the message (`live-view.ts`), with the stored records they were made from. */
  live: LiveFacts | null
  /** The measure's share of the message (`render/measure-prompt.ts`) and what it was made from. */
  measured: { inputs: readonly unknown[]; sums: { tool: number; other: number; tags: number; reclaimable: number } } | null
}

export function createMessageMemo(): MessageMemo {
  return { generation: 0, messages: new Map(), uniqueIds: true }
}

/**
 * Starts a pass over `messages`: each message's entry is kept when its signature is unchanged, made anew when not,
 * and entries of messages gone from the list are forgotten. A message whose parts were all final last time is
 * compared by its parts' ids, kinds and sizes only (`sameFinalShape`): the host does not rewrite a finished part,
 * except when it prunes a tool's output, which the shape sees.
 */
export function beginPass(memo: MessageMemo, messages: readonly HostMessage[]): void {
  memo.generation += 1
  memo.uniqueIds = true
  for (const message of messages) {
    const known = memo.messages.get(message.info.id)
    if (known?.generation === memo.generation) memo.uniqueIds = false
    // A message whose parts were all final is trusted by their ids and sizes, as ingest trusts a final part's id.
    if (known && known.final !== null && sameFinalShape(known.final, message)) {
      known.generation = memo.generation
      known.source = message
      continue
    }
    const signature = messageSignature(message)
    if (known && sameSignature(known.signature, signature)) {
      // The current copy's strings stand for it from now on: the host's older copies can be collected.
      known.signature = signature
      known.final = finalShape(message)
      known.stored = false
      known.generation = memo.generation
      known.source = message
      continue
    }
    const entry = { signature, final: finalShape(message), stored: false, trackables: listTrackables(message), generation: memo.generation, source: message, rendered: null, chunk: null, live: null, measured: null }
    memo.messages.set(message.info.id, entry)
  }
  for (const [id, entry] of memo.messages) if (entry.generation !== memo.generation) memo.messages.delete(id)
}

/** The entry of a message of the current pass, or null (no memo, or a message object `beginPass` did not see). */
export function currentEntry(memo: MessageMemo | null | undefined, message: HostMessage): MessageMemoEntry | null {
  const entry = memo?.messages.get(message.info.id)
  return entry !== undefined && entry.generation === memo?.generation && entry.source === message ? entry : null
}
