import { reportedPromptTokens } from "../pressure/estimate-usage.js"
import type { SessionState } from "../session/session-state.js"
import type { HostMessage } from "../transcript/host-message.js"

/**
 * When a host creates the assistant message that carries a request's usage report: before the pass that sends the
 * request (OpenCode) or after it (Pi creates it as the reply starts streaming; checked in the real binary).
 */
export type ReplyCreated = "before-pass" | "after-pass"

/**
 * Learns the gap between our estimate and the provider's report: when the newest assistant message carries a
 * usage report we have not used yet, the estimate of the pass that sent its request is compared with it. OpenCode
 * creates a step's assistant message just before it runs the transform for that step, so the pass that sent the
 * request is the first one that started at or after the message was created (a replayed transcript gives both the
 * same time); Pi creates it once the reply starts, so it is the last one that started at or before.
 *
 * The gap is taken against the sent estimate with the fixed prompt as we count it now (`fixedTokens`): the request
 * carried the whole fixed prompt whatever we had counted of it then, so a count that changed since (a new process
 * knows the system prompt only after its first transform: 2k tokens short at every `opencode run`, measured in
 * bench:e2e) must not move the calibration, or the next pass is estimated that much too high.
 */
export function calibrated(
  session: SessionState,
  messages: readonly HostMessage[],
  replyCreated: ReplyCreated,
  fixedTokens: number,
): SessionState {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const info = messages[index]?.info
    if (!info || info.role !== "assistant") continue
    const reported = reportedPromptTokens(info.tokens)
    if (reported <= 0) return session
    if (info.id === session.applied.calibratedMessageId) return session
    const created = info.time.created
    const sent =
      replyCreated === "before-pass"
        ? session.recentEstimates.find((estimate) => estimate.startedAt >= created)
        : session.recentEstimates.findLast((estimate) => estimate.startedAt <= created)
    if (!sent) return session
    const sentNow = sent.estimate - sent.fixed + fixedTokens
    const applied = { ...session.applied, calibrationTokens: reported - sentNow, calibratedMessageId: info.id }
    return { ...session, applied }
  }
  return session
}
