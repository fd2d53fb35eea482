/**
 * Nudge bands (seed: "Read the nudge bands"). Built-in behaviour, not configuration: the agent is reminded to
 * call ctx_reduce in proportion to how much of the live tail is reclaimable.
 */
export type NudgeLevel = "quiet" | "gentle" | "firm" | "urgent"

export const NUDGE_MIN_LIVE_TAIL = 60_000
export const NUDGE_MIN_RECLAIMABLE = 25_000
export const CHANNEL_TWO_SHARE = 0.75
export const CHANNEL_TWO_MIN_RECLAIMABLE = 50_000

export type NudgeDecision = {
  level: NudgeLevel
  /** The reclaimable share of the live tail (0 when the tail is empty). */
  share: number
  /** The stronger hidden steer message (channel 2) is due. */
  channelTwo: boolean
}

/** Which reminder the reclaimable share calls for. */
export function nudgeFor(options: { liveTailTokens: number; reclaimableTokens: number }): NudgeDecision {
  const { liveTailTokens, reclaimableTokens } = options
  const share = liveTailTokens > 0 ? reclaimableTokens / liveTailTokens : 0
  if (liveTailTokens < NUDGE_MIN_LIVE_TAIL || reclaimableTokens < NUDGE_MIN_RECLAIMABLE) {
    return { level: "quiet", share, channelTwo: false }
  }
  const channelTwo = share >= CHANNEL_TWO_SHARE && reclaimableTokens >= CHANNEL_TWO_MIN_RECLAIMABLE
  if (share >= 0.6) return { level: "urgent", share, channelTwo }
  if (share >= 0.4) return { level: "firm", share, channelTwo }
  if (share >= 0.2) return { level: "gentle", share, channelTwo }
  return { level: "quiet", share, channelTwo }
}
