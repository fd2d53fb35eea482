import { inlinedFileRuns } from "../transcript/inlined-file-runs.js"
import type { Placement, SessionState } from "../session/session-state.js"
import type { LiveView } from "../session/live-view.js"
import { isFinalPart, type HostMessage } from "../transcript/host-message.js"
import { currentEntry, type MessageMemo } from "../session/message-memo.js"
import { sameSignature } from "../session/message-signature.js"
import { listTrackables, type Trackable } from "../transcript/trackables.js"
import { dropMarker, editedPath, itemLabel } from "./markers.js"
import { droppedInput, renderedSteers } from "./render-prompt.js"
import { isPrunedTool, stableJson } from "../transcript/part-content.js"

/**
 * Where the tokens of a rendered prompt go (seed: "Where a pass lands"): the fixed prompt, compartment history,
 * settled conversation, the protected recent window, tool output; `reclaimable` is the part of `tool` that
 * reclaim or ctx_reduce could take now, and `tags` the part of everything spent on `§N§` prefixes.
 */
export type Breakdown = {
  total: number
  fixed: number
  history: number
  conversation: number
  protected: number
  tool: number
  reclaimable: number
  tags: number
}

/** Counts short rendered strings (markers, reminders); callers memoize, since the same strings recur every pass. */
export type CountText = (text: string) => number

/**
 * Measures the prompt a render produces from stored counts: every part's count was made at ingest, prefixes at
 * tag creation, so only markers and reminders (short, memoized by the caller) are counted here. Never
 * re-tokenizes message content.
 */
export function measurePrompt(options: {
  /** The host's messages (the view holds the live ones; steer messages need the whole list). */
  messages: readonly HostMessage[]
  state: SessionState
  view: LiveView
  tagsVisible: boolean
  placements: readonly Placement[]
  fixedTokens: number
  reclaimableTags: ReadonlySet<number>
  count: CountText
  /** The pass's memo (`beginPass` ran for these messages): a message whose inputs did not change is not measured again. */
  memo?: MessageMemo
}): Breakdown {
  const { state, view, placements, count } = options
  const breakdown: Breakdown = {
    total: 0,
    fixed: options.fixedTokens,
    // The history message is rendered only in place of folded messages the host still sends.
    history: view.foldedCount > 0 ? (state.applied.history?.tokens ?? 0) : 0,
    conversation: 0,
    protected: 0,
    tool: 0,
    reclaimable: 0,
    tags: 0,
  }
  const nudgeTokens = new Map<string, number>()
  for (const placement of placements) {
    if (placement.kind === "nudge") nudgeTokens.set(placement.anchorId, (nudgeTokens.get(placement.anchorId) ?? 0) + count(`\n\n${placement.text}`))
  }

  view.messages.forEach((message, index) => {
    const sums = memoizedSums(options, message, nudgeTokens)
    breakdown.tags += sums.tags
    breakdown.reclaimable += sums.reclaimable
    if (index >= view.protectedFrom) breakdown.protected += sums.tool + sums.other
    else {
      breakdown.tool += sums.tool
      breakdown.conversation += sums.other
    }
  })
  for (const placement of renderedSteers({ messages: options.messages, state, placements })) {
    breakdown.protected += count(placement.text)
  }
  breakdown.total = breakdown.fixed + breakdown.history + breakdown.conversation + breakdown.protected + breakdown.tool
  return breakdown
}

/** One message's share of the breakdown: tool-like and other tokens as rendered, prefix tokens, reclaimable tokens. */
type MessageSums = { tool: number; other: number; tags: number; reclaimable: number }

type MeasureOptions = Parameters<typeof measurePrompt>[0]

/**
 * `messageSums`, reused from the memo while what it reads is the same: tags visible, the stored records of the
 * message's parts and of its items' tags (replaced, never changed, when they change), each item's reminder tokens
 * and whether it is reclaimable.
 */
function memoizedSums(options: MeasureOptions, message: HostMessage, nudgeTokens: ReadonlyMap<string, number>): MessageSums {
  const entry = currentEntry(options.memo, message)
  if (!entry) return messageSums(options, message, listTrackables(message), nudgeTokens)
  const { state } = options
  const inputs: unknown[] = [options.tagsVisible]
  for (const part of message.parts) inputs.push(state.parts.get(part.id))
  for (const trackable of entry.trackables) {
    const tag = state.tagsByPart.get(trackable.partId)
    inputs.push(tag, nudgeTokens.get(trackable.partId), tag !== undefined && options.reclaimableTags.has(tag.tag))
  }
  if (entry.measured && sameSignature(entry.measured.inputs, inputs)) return entry.measured.sums
  const sums = messageSums(options, message, entry.trackables, nudgeTokens)
  entry.measured = { inputs, sums }
  return sums
}

function messageSums(
  options: MeasureOptions,
  message: HostMessage,
  trackables: readonly Trackable[],
  nudgeTokens: ReadonlyMap<string, number>,
): MessageSums {
  const { state, view, tagsVisible, count } = options
  const sums: MessageSums = { tool: 0, other: 0, tags: 0, reclaimable: 0 }
  const tokensByPart = new Map<string, { tokens: number; isTool: boolean }>()
  for (const part of message.parts) {
    const known = state.parts.get(part.id)
    const isTool = part.type === "tool" || known?.kind === "file" || part.type === "file"
    tokensByPart.set(part.id, { tokens: known ? known.tokens + known.callTokens : 0, isTool })
  }
  for (const trackable of trackables) {
    const tag = state.tagsByPart.get(trackable.partId)
    if (!tag) continue
    const carrier = trackable.render.partId
    if (tag.status === "live") {
      const part = message.parts.find((candidate) => candidate.id === trackable.partId)
      // The model sees no prefix on an unfinished tool, and neither prefix nor reminder on an output OpenCode pruned
      // (it sends its own marker; see renderPrompt).
      const pruned = part?.type === "tool" && isPrunedTool(part)
      const finished = part === undefined || (isFinalPart(part) && !pruned)
      const prefix = tagsVisible && finished ? tag.prefixTokens : 0
      sums.tags += prefix
      add(tokensByPart, carrier, prefix + (pruned ? 0 : (nudgeTokens.get(trackable.partId) ?? 0)), trackable.kind !== "message")
      if (options.reclaimableTags.has(tag.tag)) {
        const item = view.byTag.get(tag.tag)
        sums.reclaimable += (item?.contentTokens ?? 0) + (item?.callTokens ?? 0) + prefix
      }
      continue
    }
    const subject = message.parts.find((part) => part.id === trackable.partId)
    const marker = dropMarker({
      tag,
      label: itemLabel(tag, subject?.type === "file" ? (subject.filename ?? null) : null),
      tagsVisible,
      supersededPath: editedPath(subject),
    })
    const markerTokens = count(marker)
    if (trackable.kind === "tool") {
      const known = state.parts.get(trackable.partId)
      const input = subject?.type === "tool" ? droppedInput(tag, subject.state.input as Record<string, unknown>, editedPath(subject)) : null
      const call = input === null ? (known?.callTokens ?? 0) : count(`${tag.tool ?? ""} ${stableJson(input)}`)
      tokensByPart.set(trackable.partId, { tokens: call + markerTokens, isTool: true })
      continue
    }
    const covered = trackable.kind === "file" ? fileRunIds(message, trackable.partId) : messageTextIds(message)
    for (const id of covered) tokensByPart.set(id, { tokens: 0, isTool: trackable.kind === "file" })
    tokensByPart.set(carrier, { tokens: markerTokens, isTool: trackable.kind === "file" })
  }
  for (const { tokens, isTool } of tokensByPart.values()) {
    if (isTool) sums.tool += tokens
    else sums.other += tokens
  }
  return sums
}

function add(map: Map<string, { tokens: number; isTool: boolean }>, id: string, tokens: number, isTool: boolean): void {
  const entry = map.get(id)
  map.set(id, { tokens: (entry?.tokens ?? 0) + tokens, isTool: entry?.isTool ?? isTool })
}
/** The file part and the text parts its inlined content came in. */
function fileRunIds(message: HostMessage, filePartId: string): string[] {
  return [filePartId, ...(inlinedFileRuns(message.parts).get(filePartId) ?? []).map((part) => part.id)]
}

function messageTextIds(message: HostMessage): string[] {
  const inFiles = new Set([...inlinedFileRuns(message.parts).values()].flat().map((part) => part.id))
  return message.parts.filter((part) => part.type === "text" && !inFiles.has(part.id)).map((part) => part.id)
}
