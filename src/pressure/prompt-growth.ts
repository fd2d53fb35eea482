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

/** How many of the newest complete turns `growthPerTurn` looks at. */
export const TURNS_LOOKED_AT = 3

/**
 * The most a recent turn added to the prompt, in tokens: for each of the newest complete turns of `roles` (a turn
 * runs from a user message to the next; the newest user message starts a turn not complete yet), the tokens of its
 * messages, and the largest of those. What a turn adds is its own messages, so a pass at a turn boundary that must not
 * run inside the coming turn looks this far ahead. 0 when no turn is complete. Pure.
 */
export function growthPerTurn(roles: readonly string[], tokensAt: (index: number) => number): number {
  let largest = 0
  let turn = 0
  let complete = 0
  let seenUser = false
  for (let index = roles.length - 1; index >= 0 && complete < TURNS_LOOKED_AT; index -= 1) {
    if (seenUser) turn += tokensAt(index)
    if (roles[index] !== "user") continue
    if (seenUser) {
      largest = Math.max(largest, turn)
      complete += 1
    }
    seenUser = true
    turn = 0
  }
  return largest
}
