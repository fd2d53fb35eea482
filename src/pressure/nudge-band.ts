/**
 * Nudge bands (seed: "Read the nudge bands"). Built-in behaviour, not configuration: the agent is reminded to
 * call ctx_reduce in proportion to how much of the live tail is reclaimable and how close usage is to the execute
 * threshold. The seed's floors are written for large windows: they hold from a 200k usable window up and shrink in
 * proportion below it, so a 40k model is reminded too.
 */
export type NudgeLevel = "quiet" | "gentle" | "firm" | "urgent"

export const NUDGE_MIN_LIVE_TAIL = 60_000
export const NUDGE_MIN_RECLAIMABLE = 25_000
export const CHANNEL_TWO_SHARE = 0.75
export const CHANNEL_TWO_MIN_RECLAIMABLE = 50_000
/** The usable window the floors above are written for; below it they scale with the window. */
export const FLOORS_FULL_AT_USABLE = 200_000

/** Below this share of the threshold a reminder is at most gentle, below CLOSE_TO_THRESHOLD at most firm. */
export const FAR_FROM_THRESHOLD = 0.5
export const CLOSE_TO_THRESHOLD = 0.8

export type NudgeDecision = {
  level: NudgeLevel
  /** The reclaimable share of the live tail (0 when the tail is empty). */
  share: number
  /** The stronger hidden steer message (channel 2) is due. */
  channelTwo: boolean
}

export type NudgeFloors = { minLiveTail: number; minReclaimable: number; channelTwoMinReclaimable: number }

/** The floors for a usable window: the seed's from 200k up, in proportion below. */
export function nudgeFloors(usableTokens: number): NudgeFloors {
  const scale = Math.min(1, Math.max(0, usableTokens) / FLOORS_FULL_AT_USABLE)
  return {
    minLiveTail: Math.round(NUDGE_MIN_LIVE_TAIL * scale),
    minReclaimable: Math.round(NUDGE_MIN_RECLAIMABLE * scale),
    channelTwoMinReclaimable: Math.round(CHANNEL_TWO_MIN_RECLAIMABLE * scale),
  }
}

const CAP_BY_PROXIMITY: readonly { below: number; cap: NudgeLevel }[] = [
  { below: FAR_FROM_THRESHOLD, cap: "gentle" },
  { below: CLOSE_TO_THRESHOLD, cap: "firm" },
]
/** The levels in order of urgency. */
export const NUDGE_RANK: Readonly<Record<NudgeLevel, number>> = { quiet: 0, gentle: 1, firm: 2, urgent: 3 }

/** Which reminder the reclaimable share and the distance to the threshold call for. */
export function nudgeFor(options: {
  liveTailTokens: number
  reclaimableTokens: number
  usableTokens: number
  usagePercent: number
  thresholdPercent: number
}): NudgeDecision {
  const { liveTailTokens, reclaimableTokens } = options
  const floors = nudgeFloors(options.usableTokens)
  const share = liveTailTokens > 0 ? reclaimableTokens / liveTailTokens : 0
  if (liveTailTokens === 0 || liveTailTokens < floors.minLiveTail || reclaimableTokens < floors.minReclaimable) {
    return { level: "quiet", share, channelTwo: false }
  }
  const proximity = options.thresholdPercent > 0 ? options.usagePercent / options.thresholdPercent : 1
  const channelTwo =
    share >= CHANNEL_TWO_SHARE && reclaimableTokens >= floors.channelTwoMinReclaimable && proximity >= CLOSE_TO_THRESHOLD
  const byShare: NudgeLevel = share >= 0.6 ? "urgent" : share >= 0.4 ? "firm" : share >= 0.2 ? "gentle" : "quiet"
  const cap = CAP_BY_PROXIMITY.find((band) => proximity < band.below)?.cap ?? "urgent"
  return { level: NUDGE_RANK[byShare] <= NUDGE_RANK[cap] ? byShare : cap, share, channelTwo }
}
