import { usagePercent } from "../pressure/bands.js"
import type { WindowSettings } from "../pressure/model-window.js"
import { planNudge } from "../pressure/plan-nudge.js"
import type { LiveView } from "../session/live-view.js"
import type { AppliedState, Placement, SessionState } from "../session/session-state.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { NudgeLevel } from "../pressure/nudge-band.js"
import type { MessageMemo } from "../session/message-memo.js"
import type { PassCaches } from "./pass-caches.js"

/** The reminder a pass placed: its level, and the channel (1: on a tool output; 2: a steer message). */
export type PlacedReminder = { level: NudgeLevel; channel: 1 | 2 }

/**
 * Where a reminder goes and the applied state with it (seed: "Nudging"): only into a message the previous prompt did
 * not have (or into a prompt that changes anyway), so it never rewrites what the provider has cached; on the newest
 * finished tool output when there is one (channel 1), else as a steer message (channel 2). Null when none is due.
 */
export function planReminder(options: {
  messages: readonly HostMessage[]
  session: SessionState
  planned: SessionState
  view: LiveView
  seq: number
  executes: boolean
  usageBefore: number
  window: WindowSettings
  tagsVisible: boolean
  count: (text: string) => number
  caches: PassCaches
}): { placements: Placement[]; applied: AppliedState; nudge: PlacedReminder } | null {
  const { messages, session, planned, seq } = options
  const newest = messages[messages.length - 1]
  const isNew = newest !== undefined && session.previousMessageIds !== null && !previouslyListed(session, newest, options.caches.memo)
  const placeable = newest !== undefined && (options.executes || isNew)
  const newestTool =
    placeable && newest.info.role === "assistant"
      ? [...newest.parts].reverse().find((part) => part.type === "tool" && part.state.status === "completed")
      : undefined
  const reminder = planNudge({
    view: options.view,
    newestToolPartId: newestTool?.id ?? null,
    newestMessageId: placeable ? newest.info.id : null,
    applied: planned.applied,
    queued: new Set(planned.queued.keys()),
    pass: seq,
    usagePercent: usagePercent(options.usageBefore, options.window.usableTokens),
    usableTokens: options.window.usableTokens,
    thresholdPercent: options.window.thresholdPercent,
    tagsVisible: options.tagsVisible,
    budgetTokens: options.window.reminderBudgetTokens,
    count: options.count,
    caches: options.caches.reduce,
  })
  if (reminder.placements.length === 0) return null
  return {
    placements: reminder.placements,
    applied: {
      ...planned.applied,
      placements: [...planned.applied.placements, ...reminder.placements],
      lastNudgePass: seq,
      lastNudgeLevel: reminder.decision.level,
    },
    nudge: { level: reminder.decision.level, channel: reminder.placements.some((placement) => placement.kind === "steer") ? 2 : 1 },
  }
}

/**
 * True when the previous prompt's messages name `newest`: told by the memo when that prompt's list is the one its pass
 * began from, else looked for.
 */
function previouslyListed(session: SessionState, newest: HostMessage, memo: MessageMemo): boolean {
  const previous = session.previousMessageIds ?? []
  const known = memo.newest
  const same = known.previousList === previous && memo.current[memo.current.length - 1] === newest
  return same && known.listed !== null ? known.listed : namesMessage(previous, newest.info.id)
}

/** True when `messages` name the message `id` (looked for from the newest: a message seen before is most likely among the last). */
function namesMessage(messages: readonly { readonly id: string }[], id: string): boolean {
  for (let index = messages.length - 1; index >= 0; index -= 1) if (messages[index]?.id === id) return true
  return false
}
