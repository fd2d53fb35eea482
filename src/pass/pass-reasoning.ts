import type { WindowSettings } from "../pressure/model-window.js"
import type { ReasoningRule } from "../session/reasoning-rules.js"
import type { RunningTurn } from "../session/running-turn.js"
import type { Edit } from "../session/edit.js"
import type { SerializedPrompt } from "../session/serialize-prompt.js"
import type { SessionState } from "../session/session-state.js"
import { reasoningToWithhold, withheldTokens } from "../session/withhold-reasoning.js"
import type { HostMessage } from "../transcript/host-message.js"

/**
 * The reasoning step of a pass under the providers' rules (`session/reasoning-rules.ts`): which reasoning parts leave
 * the prompt with a change of it, and where the running turn begins for the cut and the fold.
 */

/** What a pass withheld: how many reasoning parts, their tokens, and whether the running tool loop's were among them. */
export type WithheldReasoning = { withheld: number; tokens: number; runningLoop: boolean }

export const NOTHING_WITHHELD: { withheld: string[]; reasoning: WithheldReasoning | null } = { withheld: [], reasoning: null }

/**
 * The reasoning parts this pass withholds: under a prefix check, those at or after the first change of the prompt, on
 * an execute pass or after a change the host made to the last prompt; every reasoning part on a pass that recovers
 * from a provider's rejection. The rendered prompt is the pass's, before any withholding.
 */
export function reasoningToWithholdNow(options: {
  messages: readonly HostMessage[]
  edits: readonly Edit[]
  state: SessionState
  previous: SerializedPrompt | null
  divergence: number | null
  executes: boolean
  recovering: boolean
  window: WindowSettings
  ruleOf: ((providerID: string, modelID: string) => ReasoningRule) | undefined
  turn: RunningTurn | null
}): { withheld: string[]; reasoning: WithheldReasoning | null } {
  const { messages, recovering } = options
  if (!options.executes && options.divergence === null) return NOTHING_WITHHELD
  const bound = recovering ? () => true : boundByPrefixCheck(options.window, options.ruleOf)
  if (!recovering && !messages.some(bound)) return NOTHING_WITHHELD
  const withheld = reasoningToWithhold({
    messages,
    edits: options.edits,
    state: options.state,
    // A recovering pass takes the change to be at the start: every block goes.
    previous: recovering ? null : options.previous,
    divergence: recovering ? null : options.divergence,
    bound,
  })
  if (withheld.length === 0) return NOTHING_WITHHELD
  return {
    withheld,
    reasoning: { withheld: withheld.length, tokens: withheldTokens(options.state, withheld), runningLoop: runningLoopWithheld(options.turn, messages, withheld) },
  }
}

/**
 * Which messages' thinking the prefix check binds: the assistant messages of a model whose rule runs it (the window's
 * rule for every model when the host gives no `ruleOf`), each model resolved once per pass.
 */
function boundByPrefixCheck(window: WindowSettings, ruleOf: ((providerID: string, modelID: string) => ReasoningRule) | undefined): (message: HostMessage) => boolean {
  if (!ruleOf) return (message) => window.reasoning.prefixCheck && message.info.role === "assistant"
  const known = new Map<string, boolean>()
  return (message) => {
    const info = message.info
    if (info.role !== "assistant") return false
    const key = `${info.providerID}/${info.modelID}`
    let checked = known.get(key)
    if (checked === undefined) {
      checked = ruleOf(info.providerID, info.modelID).prefixCheck
      known.set(key, checked)
    }
    return checked
  }
}

/** True when a reasoning part of the open turn (after its user message) is among `withheld`. */
function runningLoopWithheld(turn: RunningTurn | null, messages: readonly HostMessage[], withheld: readonly string[]): boolean {
  if (turn === null || !turn.open) return false
  const ids = new Set(withheld)
  for (let index = turn.fromIndex + 1; index < messages.length; index += 1) {
    if ((messages[index] as HostMessage).parts.some((part) => ids.has(part.id))) return true
  }
  return false
}

/** The sequence number of the running turn's first message (`Infinity`: no turn is fenced off). */
export function turnFence(turn: RunningTurn | null, messages: readonly HostMessage[], state: SessionState): number {
  const first = turn === null ? undefined : messages[turn.fromIndex]
  return first ? (state.messageSeq.get(first.info.id) ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY
}

