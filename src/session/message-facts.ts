import { inlinedFileRuns } from "../transcript/inlined-file-runs.js"
import { isFinalPart, type HostMessage } from "../transcript/host-message.js"
import { isPrunedTool } from "../transcript/part-content.js"
import { listTrackables, type Trackable } from "../transcript/trackables.js"
import { toolInputFacts } from "./host-tools.js"
import type { LiveFacts, LiveItem } from "./live-facts.js"
import type { MessageMemoEntry } from "./message-memo.js"
import { promptTokensOf } from "./part-records.js"
import type { SessionState } from "./session-state.js"

/**
 * One message's tokens and tagged items, as of its stored parts and tags. With the pass's memo they are reused while
 * the message (its entry) is unchanged and its records are: `confirmed` when the memo knows none was written since
 * they were last read, else checked one by one (ingest replaces a part's record when it changes, an execute pass a
 * tag's).
 */
export function messageFacts(message: HostMessage, state: SessionState, entry: MessageMemoEntry | null, seq: number, confirmed: boolean): LiveFacts {
  const trackables = entry?.trackables ?? listTrackables(message)
  const cached = entry?.live
  if (cached && cached.seq === seq && (confirmed || sameRecords(cached, message, trackables, state))) return cached
  const partsById = new Map(message.parts.map((part) => [part.id, part]))
  const runTokens = fileRunTokens(message, state)
  const items: LiveItem[] = []
  for (const trackable of trackables) {
    const tag = state.tagsByPart.get(trackable.partId)
    if (!tag) continue
    const part = partsById.get(trackable.partId)
    const known = state.parts.get(trackable.partId)
    const contentTokens =
      trackable.kind === "file"
        ? (runTokens.get(trackable.partId) ?? 0)
        : trackable.kind === "message"
          ? messageTextTokens(message, state, runTokens)
          : (known?.tokens ?? 0)
    items.push({
      tag,
      messageId: message.info.id,
      // Placed by the view (index, newest, protected window).
      messageIndex: -1,
      messageSeq: seq,
      role: message.info.role,
      contentTokens,
      callTokens: known?.callTokens ?? 0,
      final: part ? isFinalPart(part) : true,
      pruned: part?.type === "tool" && isPrunedTool(part),
      newest: false,
      protected: false,
      input: part?.type === "tool" ? toolInputFacts(part.tool, part.state.input as Record<string, unknown>) : null,
    })
  }
  const facts: LiveFacts = {
    seq,
    trackables,
    parts: message.parts.map((part) => state.parts.get(part.id)),
    tags: trackables.map((trackable) => state.tagsByPart.get(trackable.partId)),
    tokens: message.parts.reduce((sum, part) => sum + promptTokensOf(state.parts.get(part.id)), 0),
    items,
  }
  if (entry) entry.live = facts
  return facts
}

function sameRecords(facts: LiveFacts, message: HostMessage, trackables: readonly Trackable[], state: SessionState): boolean {
  if (facts.parts.length !== message.parts.length || facts.tags.length !== trackables.length) return false
  for (let index = 0; index < message.parts.length; index += 1) {
    if (facts.parts[index] !== state.parts.get(message.parts[index]?.id ?? "")) return false
  }
  for (let index = 0; index < trackables.length; index += 1) {
    if (facts.tags[index] !== state.tagsByPart.get(trackables[index]?.partId ?? "")) return false
  }
  return true
}

/** Tokens of each inlined file's synthetic content run, keyed by the file part id. */
function fileRunTokens(message: HostMessage, state: SessionState): Map<string, number> {
  const totals = new Map<string, number>()
  for (const [fileId, run] of inlinedFileRuns(message.parts)) {
    totals.set(fileId, run.reduce((sum, part) => sum + (state.parts.get(part.id)?.tokens ?? 0), 0))
  }
  return totals
}

/** Tokens of a message's own text parts (not reasoning, not a file's inlined content). */
function messageTextTokens(message: HostMessage, state: SessionState, runTokens: Map<string, number>): number {
  const fileRunTotal = [...runTokens.values()].reduce((sum, tokens) => sum + tokens, 0)
  const textTotal = message.parts
    .filter((part) => part.type === "text")
    .reduce((sum, part) => sum + (state.parts.get(part.id)?.tokens ?? 0), 0)
  return Math.max(0, textTotal - fileRunTotal)
}
