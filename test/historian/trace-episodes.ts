import { fileURLToPath } from "node:url"
import { cutCompartments, type CutMessage } from "../../src/historian/cut-compartments.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { createHostTranscriptBuilder } from "../../src/transcript/host-transcript-builder.js"
import { readTranscript } from "../../src/transcript/read-transcript.js"
import { listTrackables } from "../../src/transcript/trackables.js"

/** One settled episode of a real trace, ready for `extractCanonicalRecord`. */
export type TraceEpisode = { id: string; messages: HostMessage[] }

/** A real trace as host messages, with session tags and its episodes. */
export type TraceEpisodes = {
  messages: HostMessage[]
  tagOf: (partId: string) => number | null
  episodes: TraceEpisode[]
}

/** Absolute path of a fixture file (`traces/raw/<name>[#N]` or `opencode-session/session.json`); keeps a `#N`. */
export function fixturePath(relative: string): string {
  const [file = relative, trajectory] = relative.split("#")
  const path = fileURLToPath(new URL(`../../fixtures/${file}`, import.meta.url))
  return trajectory === undefined ? path : `${path}#${trajectory}`
}

/**
 * Reads a trace, rebuilds the host messages a live session would have had, tags every trackable in order (as
 * the pass does: §1§, §2§, …) and cuts the whole history into episodes with `cutCompartments` (nothing
 * protected), the way the historian will see it. Token counts are estimated as characters / 4.
 */
export function loadTraceEpisodes(spec: string): TraceEpisodes {
  const transcript = readTranscript(spec)
  const builder = createHostTranscriptBuilder(transcript, "ses_trace")
  for (const turn of transcript.turns) builder.append(turn)
  const messages = builder.snapshot()
  const tagOf = tagMessages(messages)
  const cuts = cutCompartments({
    messages: messages.map((message, seq) => toCutMessage(message, seq)),
    coveredThroughSeq: -1,
    protectedFromSeq: Number.MAX_SAFE_INTEGER,
  })
  const byId = new Map(messages.map((message) => [message.info.id, message]))
  const episodes = cuts.map((cut, index) => ({
    id: `c${index + 1}`,
    messages: cut.messageIds.flatMap((id) => byId.get(id) ?? []),
  }))
  return { messages, tagOf, episodes }
}

/** Tags every trackable of `messages` in order, as the pass does (§1§, §2§, …), and returns the lookup. */
export function tagMessages(messages: readonly HostMessage[]): (partId: string) => number | null {
  const tags = new Map<string, number>()
  for (const message of messages) {
    for (const trackable of listTrackables(message)) tags.set(trackable.partId, tags.size + 1)
  }
  return (partId) => tags.get(partId) ?? null
}

function toCutMessage(message: HostMessage, seq: number): CutMessage {
  const authoredUser =
    message.info.role === "user" &&
    message.parts.some((part) => part.type === "text" && part.synthetic !== true && part.text.trim() !== "")
  const tokens = Math.ceil(contentChars(message) / 4)
  return { id: message.info.id, seq, role: message.info.role, tokens, authoredUser }
}

function contentChars(message: HostMessage): number {
  let chars = 0
  for (const part of message.parts) {
    if (part.type === "text" || part.type === "reasoning") chars += part.text.length
    if (part.type !== "tool") continue
    chars += JSON.stringify(part.state.input).length
    if (part.state.status === "completed") chars += part.state.output.length
    if (part.state.status === "error") chars += part.state.error.length
  }
  return chars
}
