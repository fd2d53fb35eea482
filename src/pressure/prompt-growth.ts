/**
 * The session's mean prompt growth per call, in tokens, from the estimates of its recent passes (oldest first): the
 * mean of the rises between consecutive passes, fixed prompt left out (its count changes when a new process learns
 * the system prompt, not when the session grows). A fall (an execute pass freed more than the call added) says
 * nothing about growth and is left out; 0 when no rise is known yet. Pure.
 */
export function growthPerCall(estimates: readonly { estimate: number; fixed: number }[]): number {
  const variable = (at: number): number => (estimates[at]?.estimate ?? 0) - (estimates[at]?.fixed ?? 0)
  let total = 0
  let rises = 0
  for (let index = 1; index < estimates.length; index += 1) {
    const rise = variable(index) - variable(index - 1)
    if (rise <= 0) continue
    total += rise
    rises += 1
  }
  return rises === 0 ? 0 : total / rises
}
