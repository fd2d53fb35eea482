import { compilePinPatterns } from "../historian/pin-patterns.js"
import type { Config } from "../config/schema.js"
import { UNREDUCED_WINDOW_TOKENS } from "../lab/evaluate-probes.js"
import { createPromptCostMeter } from "../lab/prompt-cost.js"
import { replayTranscript } from "../pass/replay-transcript.js"
import { systemClock } from "../pass/system-clock.js"
import { fixedWindow } from "../pressure/model-window.js"
import { MEMORY_DATABASE, openDatabase } from "../store/open-database.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { Transcript } from "../transcript/turn-model.js"
import type { MeteredTurn } from "./replay-cost.js"

/**
 * The same session in a window it never fills, into a fresh in-memory store: what the host alone would send, with the
 * same fixed prompt (`--fixed-tokens`, else the transcript's system prompt) as the replay it is compared with; each
 * call with what the cost meter measured of it.
 */
export async function unreducedReplay(options: {
  transcript: Transcript
  counter: TokenCounter
  config: Config
  fixedTokens?: number
}): Promise<MeteredTurn[]> {
  const db = await openDatabase(MEMORY_DATABASE)
  try {
    const turns: MeteredTurn[] = []
    const meter = createPromptCostMeter(options.counter)
    replayTranscript({
      transcript: options.transcript,
      db,
      counter: options.counter,
      clock: systemClock,
      window: fixedWindow({ usableTokens: UNREDUCED_WINDOW_TOKENS, config: options.config }),
      smartDrops: false,
      policy: "default",
      pinPatterns: compilePinPatterns(options.config.pins).matchers,
      ...(options.fixedTokens === undefined ? {} : { fixedTokens: options.fixedTokens }),
      onTurn: (turn) => turns.push({ row: { turn: turn.turn, pass: turn.pass, usageBefore: turn.usageBefore, tokens: turn.tokens }, cost: meter.measure(turn) }),
    })
    return turns
  } finally {
    db.close()
  }
}
