/**
 * The session's mean prompt growth per call, in tokens, from the estimates of its recent passes (oldest first): the
 * mean of the rises between consecutive passes. A fall (an execute pass freed more than the call added) says nothing
 * about growth and is left out; 0 when no rise is known yet. Pure.
 */
export function growthPerCall(estimates: readonly { estimate: number }[]): number {
  let total = 0
  let rises = 0
  for (let index = 1; index < estimates.length; index += 1) {
    const rise = (estimates[index]?.estimate ?? 0) - (estimates[index - 1]?.estimate ?? 0)
    if (rise <= 0) continue
    total += rise
    rises += 1
  }
  return rises === 0 ? 0 : total / rises
}
