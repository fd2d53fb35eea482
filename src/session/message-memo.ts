/*
 * Over 300 lines: the memo's record types are documented field by field (every field is a reuse rule), beside the
 * pass's begin and end and the record-write sync that read them.
 */
import { finalShape, messageSignature, sameFinalShape, sameSignature, type FinalShape, type MessageSignature } from "./message-signature.js"
import type { HostMessage } from "../transcript/host-message.js"
import { listTrackables, type Trackable } from "../transcript/trackables.js"
import type { Edit } from "./edit.js"
import type { LiveFacts, LiveItem, SharedItems } from "./live-facts.js"
import { RecordMap } from "./record-map.js"
import type { SerializedLayout, SerializedPrompt } from "./serialized-prompt.js"

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
  /** The entries of the current list, by position (`entryAt`). */
  list: MessageMemoEntry[]
  /**
   * The host's messages of the current pass, by position: the entries of `list` answer for these objects only. Emptied
   * once the pass is done (`endPass`), so the host's copy is not kept from one call to the next.
   */
  current: readonly HostMessage[]
  /**
   * Where the memo last read the session's record maps (`recordWrites`): the maps, each one's write count then, the
   * sync's number, the first sync of the run of syncs that saw every write (facts confirmed before it are not known
   * to hold), and the lowest position of the current list whose records the latest sync found written.
   */
  records: { maps: readonly Map<unknown, unknown>[]; cursors: readonly number[]; sync: number; validFrom: number; firstWritten: number }
  /** How many leading messages of the current list have the entry that sat at their position in the last pass's. */
  stable: number
  /** The latest live view's results by position, for the next view of a list that only grew (`live-view.ts`). */
  view: ViewCache | null
  /**
   * The latest rendered serialization (`serializeRenderedChunks`): the prompt, the edits it rendered, the pass and how
   * many messages. The next pass over the same messages with the same edits has the same prompt.
   */
  serialized: { prompt: SerializedPrompt; edits: readonly Edit[]; generation: number; count: number; layout: SerializedLayout | null } | null
  /**
   * For a serialization whose leading chunks are an earlier one's very strings at the same positions: that one and how
   * many (`promptDivergence` skips them without a look).
   */
  sharedLeading: WeakMap<SerializedPrompt, { from: SerializedPrompt; count: number }>
  /**
   * For a view's items array made from an earlier view's (`buildLiveView`): that array and how many leading items are
   * its very objects, for work that takes up from what it made of that array (reclaim).
   */
  sharedItems: WeakMap<readonly LiveItem[], SharedItems>
  /**
   * How many leading messages of the list of pass `generation` ingest found stored whole (`plan-ingest.ts`): the next
   * pass skips as many of them as still sit where they sat.
   */
  storedLeading: { generation: number; count: number }
  /**
   * The list of the pass before this one, and whether it named the newest message of this pass's list (null: not
   * known, the list names an id twice): a pass asks whether its newest message is new without looking through the last
   * list.
   */
  newest: { previousList: readonly MessageMemoEntry[]; listed: boolean | null }
}

export type MessageMemoEntry = {
  /**
   * The message's signature while a part of it is not final; null once every part is: its final shape then stands for
   * it (a shape that differs is a signature that differs), and the strings of the copy it was taken from can go.
   */
  signature: MessageSignature | null
  /** The message's parts' ids, kinds and sizes when every part was final, else null (`FinalShape`). */
  final: FinalShape | null
  /** Ingest found the message and all its parts stored, each final (it has nothing more to store of it). */
  stored: boolean
  trackables: readonly Trackable[]
  generation: number
  /** The message's id (the entry of a position is checked by it before the map is asked). */
  id: string
  /**
   * The renderer's edits for the message and what they were made from: the live view's facts of the message (the
   * same object while its records are), tag visibility and the reminders on its items; or, rendered without a view,
   * tag visibility then per item its tag's number, status, drop reason, superseding tag and reminders. Null until
   * rendered. `partAt`: per edit, the position in the message of the part a content edit writes (-1 for other edits),
   * so the shell can write into the pass's own copy without looking parts up (`applyRenderedEdits`).
   */
  rendered: { made: RenderedFrom; edits: readonly Edit[]; partAt: readonly number[] } | null
  /** The rendered message's serialized chunk and its UTF-8 size, for `rendered`'s edits. */
  chunk: { text: string; bytes: number } | null
  /** The live view's facts of the message (`live-view.ts`), with the stored records they were made from. */
  live: LiveFacts | null
  /** The message's sequence number as the live view last read it (undefined: not stored). */
  seq: number | undefined
  /**
   * The `recordWrites` sync at which `seq` and `live` were last known to match the session's records: they still do
   * while that is not before the memo's `validFrom` and no later sync found a record of the message written.
   */
  confirmedAt: number
  /** The latest `recordWrites` sync that found a record of the message written. */
  writtenAt: number
  /** The message's position in the current list. */
  index: number
}

/**
 * What a view built with the memo leaves for the next one (`MessageMemo.view`), by position: of the host's list, each
 * message's entry, sequence number and whether it is live, and how many live messages come before it; of the live
 * list, each message's facts, sequence number, the tokens before it and the items before it.
 */
export type ViewCache = {
  generation: number
  /** Every message of the view's list had the memo's entry of its position (the view was of the memo's own list). */
  aligned: boolean
  sync: number
  folded: number
  entries: readonly (MessageMemoEntry | null)[]
  seqs: readonly (number | undefined)[]
  live: readonly boolean[]
  liveBefore: readonly number[]
  facts: readonly LiveFacts[]
  liveSeqs: readonly number[]
  tokensBefore: readonly number[]
  itemsBefore: readonly number[]
  items: readonly LiveItem[]
  protectedFrom: number
}

/** What a message's edits were rendered from (`MessageMemoEntry.rendered`). */
export type RenderedFrom = { facts: LiveFacts; tagsVisible: boolean; nudges: string } | { inputs: readonly unknown[] }

export function createMessageMemo(): MessageMemo {
  return {
    generation: 0,
    messages: new Map(),
    uniqueIds: true,
    list: [],
    current: [],
    records: { maps: [], cursors: [], sync: 0, validFrom: 0, firstWritten: Number.POSITIVE_INFINITY },
    stable: 0,
    view: null,
    serialized: null,
    sharedLeading: new WeakMap(),
    sharedItems: new WeakMap(),
    storedLeading: { generation: 0, count: 0 },
    newest: { previousList: [], listed: null },
  }
}

/**
 * Starts a pass over `messages`: each message's entry is kept when its signature is unchanged, made anew when not,
 * and entries of messages gone from the list are forgotten. A message whose parts were all final last time is
 * compared by its parts' ids, kinds and sizes only (`sameFinalShape`): the host does not rewrite a finished part,
 * except when it prunes a tool's output, which the shape sees.
 */
export function beginPass(memo: MessageMemo, messages: readonly HostMessage[]): void {
  memo.generation += 1
  // The last list's entries by position are the entries by id when it named no id twice: a message that sits where
  // it sat is found without hashing its id (the host's ids are fresh strings on every call).
  const previous = memo.uniqueIds ? memo.list : []
  // The memo's map holds the last list's entries here: a newest message it knows was in that list.
  const newest = messages[messages.length - 1]
  memo.newest = { previousList: memo.list, listed: newest === undefined || !memo.uniqueIds ? null : memo.messages.has(newest.info.id) }
  memo.uniqueIds = true
  memo.current = messages
  // The leading messages that sit where they sat, finished and the same shape, keep the last list's entries in place:
  // no lookup, and the last list's leading entries copied at once (or the list itself, when the call replays it).
  const generation = memo.generation
  const leading = Math.min(messages.length, previous.length)
  let stable = 0
  while (stable < leading) {
    const sitting = previous[stable] as MessageMemoEntry
    const message = messages[stable] as HostMessage
    if (sitting.id !== message.info.id || sitting.final === null || !sameFinalShape(sitting.final, message)) break
    sitting.generation = generation
    stable += 1
  }
  memo.stable = stable
  const whole = stable === messages.length && stable === previous.length
  const list: MessageMemoEntry[] = whole ? previous : previous.slice(0, stable)
  memo.list = list
  for (let index = stable; index < messages.length; index += 1) {
    const message = messages[index] as HostMessage
    const sitting = previous[index]
    const known = sitting !== undefined && sitting.id === message.info.id ? sitting : memo.messages.get(message.info.id)
    if (known?.generation === memo.generation) memo.uniqueIds = false
    // A message whose parts were all final is trusted by their ids and sizes, as ingest trusts a final part's id.
    if (known && known.final !== null && sameFinalShape(known.final, message)) {
      keep(memo, known, index, sitting)
      continue
    }
    const signature = messageSignature(message)
    if (known && known.signature !== null && sameSignature(known.signature, signature)) {
      // The current copy's strings stand for it from now on: the host's older copies can be collected.
      const final = finalShape(message)
      known.signature = final === null ? signature : null
      known.final = final
      known.stored = false
      keep(memo, known, index, sitting)
      continue
    }
    const final = finalShape(message)
    const entry: MessageMemoEntry = {
      signature: final === null ? signature : null,
      final,
      stored: false,
      trackables: listTrackables(message),
      generation: memo.generation,
      id: message.info.id,
      rendered: null,
      chunk: null,
      live: null,
      seq: undefined,
      confirmedAt: -1,
      writtenAt: -1,
      index,
    }
    memo.messages.set(message.info.id, entry)
    list.push(entry)
  }
  // A list of distinct ids with as many entries as the memo holds left none behind.
  if (memo.uniqueIds && list.length === memo.messages.size) return
  for (const [id, entry] of memo.messages) if (entry.generation !== memo.generation) memo.messages.delete(id)
}

/** Keeps `entry` as the `index`-th of the pass's list (`sitting`: the entry the last list had there). */
function keep(memo: MessageMemo, entry: MessageMemoEntry, index: number, sitting: MessageMemoEntry | undefined): void {
  entry.generation = memo.generation
  entry.index = index
  if (memo.stable === index && entry === sitting) memo.stable += 1
  memo.list.push(entry)
}

/**
 * The entry of `message`, the `index`-th of a list: the entry at that position of the current pass when it is the
 * message's (the usual case: the caller walks the pass's own list), else `currentEntry`.
 */
export function entryAt(memo: MessageMemo | null | undefined, index: number, message: HostMessage): MessageMemoEntry | null {
  const entry = memo?.list[index]
  return entry !== undefined && entry.generation === memo?.generation && memo.current[index] === message ? entry : currentEntry(memo, message)
}

/**
 * Reads which messages had stored records written in `maps` (the session's `RecordMap`s) since the memo last read
 * them, and marks their entries (`writtenAt`). Each call is a new sync. When that cannot be told (other maps than
 * last time, maps that keep no log, or a list naming an id twice), the sync starts a new run (`validFrom`): nothing
 * confirmed before it holds, and every message's records must be checked once.
 */
export function recordWrites(memo: MessageMemo, maps: readonly Map<unknown, unknown>[]): void {
  const previous = memo.records
  const sync = previous.sync + 1
  const cursors = maps.map((map) => (map instanceof RecordMap ? map.writes : -1))
  memo.records = { maps, cursors, sync, validFrom: sync, firstWritten: Number.POSITIVE_INFINITY }
  // The same maps, or copies that go on from them (an execute pass's planned records, `RecordMap.derive`).
  const sameMaps =
    maps.length === previous.maps.length &&
    maps.every((map, index) => {
      const earlier = previous.maps[index]
      return map instanceof RecordMap && earlier !== undefined && map.continues(earlier, previous.cursors[index] ?? -1)
    })
  if (!sameMaps || !memo.uniqueIds) return
  let firstWritten = Number.POSITIVE_INFINITY
  for (let index = 0; index < maps.length; index += 1) {
    const owners = (maps[index] as RecordMap<unknown, unknown>).ownersSince(previous.cursors[index] ?? -1)
    if (owners === null) return
    for (const owner of owners) {
      const entry = memo.messages.get(owner)
      if (!entry) continue
      entry.writtenAt = sync
      firstWritten = Math.min(firstWritten, entry.index)
    }
  }
  memo.records = { maps, cursors, sync, validFrom: previous.validFrom, firstWritten }
}

/**
 * True when the memo's latest sync read these very maps and none was written since: what it confirmed then still holds
 * for them (a read-only view relies on it).
 */
export function syncedWith(memo: MessageMemo, maps: readonly Map<unknown, unknown>[]): boolean {
  const { maps: read, cursors } = memo.records
  return (
    maps.length === read.length &&
    maps.every((map, index) => map === read[index] && map instanceof RecordMap && map.writes === cursors[index])
  )
}

/** True when the entry's `seq` and `live` still match the session's records as of the memo's latest sync. */
export function recordsConfirmed(memo: MessageMemo, entry: MessageMemoEntry): boolean {
  return entry.confirmedAt >= 0 && entry.confirmedAt >= memo.records.validFrom && entry.writtenAt <= entry.confirmedAt
}

/** The entry of a message of the current pass, or null (no memo, or a message object `beginPass` did not see). */
export function currentEntry(memo: MessageMemo | null | undefined, message: HostMessage): MessageMemoEntry | null {
  const entry = memo?.messages.get(message.info.id)
  return entry !== undefined && entry.generation === memo?.generation && memo.current[entry.index] === message ? entry : null
}

/** True when `messages` are the memo's current list, object by object (its entries stand for them). */
export function isCurrentList(memo: MessageMemo, messages: readonly HostMessage[]): boolean {
  const current = memo.current
  if (current.length !== messages.length) return false
  for (let index = 0; index < messages.length; index += 1) if (current[index] !== messages[index]) return false
  return true
}

/**
 * Ends the pass: the memo lets go of the host's messages (its entries keep what they learnt of them, and the next
 * `beginPass` finds them by id). Until the next `beginPass` no entry answers for a message.
 */
export function endPass(memo: MessageMemo): void {
  memo.current = []
}
