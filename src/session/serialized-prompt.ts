import type { HostMessage } from "../transcript/host-message.js"
import type { Edit } from "./edit.js"

/**
 * A serialized prompt kept per message, with each message's UTF-8 size, so a pass compares and measures only what
 * changed: the chunks joined are `serializePrompt` of the same messages.
 */
export type SerializedPrompt = { chunks: readonly string[]; bytes: readonly number[]; totalBytes: number }

/**
 * How a rendered serialization laid out its chunks, when its live messages follow the messages inserted at its start
 * with nothing between them (the folded ones removed, nothing inserted after a message): those inserted messages, the
 * chunk of the first live message, that message's position in the host's list and the live run rendered there.
 */
export type SerializedLayout = { atStart: readonly HostMessage[]; liveAt: number; liveFrom: number; run: readonly Edit[] }
