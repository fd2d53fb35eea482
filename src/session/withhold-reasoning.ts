import type { Edit } from "./edit.js"
import { RecordMap } from "./record-map.js"
import { chunkAtByte, firstHostMessageFrom, type SerializedPrompt } from "./serialize-prompt.js"
import type { KnownPart, SessionState } from "./session-state.js"
import type { HostMessage } from "../transcript/host-message.js"

/**
 * The reasoning parts an execute pass takes out of the prompt under Anthropic's preserved-thinking prefix check
 * (`reasoning-rules.ts`): a thinking block is valid only while everything before it is what it was when the model
 * made it, and the blocks kept must be an unbroken run of the ones made. So every block at or after the first change
 * of the prompt goes, and never comes back: the blocks before the change stay valid, the ones the model makes from
 * now on are made on the new prefix, and what goes is a trailing run (the documented way: "remove the thinking from
 * the turns you keep"). Without the last prompt (a new process) the change is taken to be at the start.
 *
 * `rendered` is the prompt this pass renders (before any withholding), `previous` the last prompt sent and
 * `divergence` where they first differ (null: the last prompt is a prefix of this one, nothing to withhold). `bound`
 * says which messages' blocks the check binds: those a prefix-check model made, whatever model runs now (a host sends
 * a model's own blocks back to it when it runs again). Returns the ids of the parts to withhold (stored, not withheld
 * yet), oldest first.
 */
export function reasoningToWithhold(options: {
  messages: readonly HostMessage[]
  edits: readonly Edit[]
  state: SessionState
  previous: SerializedPrompt | null
  divergence: number | null
  bound: (message: HostMessage) => boolean
}): string[] {
  const { messages, edits, state, previous, divergence, bound } = options
  if (previous !== null && divergence === null) return []
  const firstChanged = previous === null || divergence === null ? 0 : chunkAtByte(previous, divergence)
  const from = firstHostMessageFrom(messages, edits, firstChanged)
  const withheld: string[] = []
  for (let index = from; index < messages.length; index += 1) {
    const message = messages[index] as HostMessage
    if (!bound(message)) continue
    for (const part of message.parts) {
      if (part.type !== "reasoning") continue
      const known = state.parts.get(part.id)
      if (known && known.withheld !== true) withheld.push(part.id)
    }
  }
  return withheld
}

/**
 * The session with these reasoning parts withheld: their records replaced (the session's own map is copied, never
 * changed, as an execute plan's tags are; a copy that goes on from its record log, so the memo re-renders only their
 * messages).
 */
export function withheldState(state: SessionState, partIds: readonly string[]): SessionState {
  if (partIds.length === 0) return state
  const parts: Map<string, KnownPart> = state.parts instanceof RecordMap ? RecordMap.derive(state.parts) : new Map(state.parts)
  for (const id of partIds) {
    const known = parts.get(id)
    if (known) parts.set(id, { ...known, withheld: true })
  }
  return { ...state, parts }
}

/** Tokens the withheld parts held in the prompt. */
export function withheldTokens(state: SessionState, partIds: readonly string[]): number {
  return partIds.reduce((sum, id) => sum + (state.parts.get(id)?.tokens ?? 0), 0)
}
