import type { CallCost } from "../lab/prompt-cost.js"
import type { ReplayTurn } from "../pass/replay-transcript.js"
import { describePrices, type PriceListName, type PricesInForce } from "../session/price-lists.js"
import { callCost, executeCost, type ExecuteCost } from "../pressure/session-cost.js"

/** One replayed call priced under the list in force, with the same call of the unreduced replay (the host alone). */
export type PricedTurn = {
  turn: number
  /** This call's prompt cost, and the session's up to it, in uncached-token units. */
  cost: number
  sessionCost: number
  /** The same for the unreduced replay's call of the same turn (null: it has none). */
  hostAloneCost: number | null
  hostAloneSessionCost: number | null
}

/** A replay's calls priced under one list: per turn, in total, and the last execute pass's cost and saving. */
export type ReplayPricing = {
  prices: PricesInForce
  turns: PricedTurn[]
  withPlugin: number
  hostAlone: number | null
  lastExecute: (ExecuteCost & { turn: number; callsSince: number }) | null
}

/** A replayed call as the pricing reads it: the row and what its cost meter measured (`prompt-cost.ts`). */
export type MeteredTurn = { row: Pick<ReplayTurn, "turn" | "pass" | "usageBefore" | "tokens">; cost: CallCost }

/** Prices a replay's calls one at a time, as they come (`--json` prints each at once), then in total. */
export type ReplayPricer = { price(turn: MeteredTurn): PricedTurn; finish(): ReplayPricing }

/**
 * Prices the replay's calls under `prices` (each call's cached prefix as the meter measured it), and the unreduced
 * replay's calls of the same turns the same way. The last execute pass saves the tokens it freed (usage before it
 * less the prompt it sent) at the read price on its own call and every call after it. Pure.
 */
export function createReplayPricer(options: {
  unreduced: readonly MeteredTurn[] | null
  prices: PricesInForce
  usableTokens: number
}): ReplayPricer {
  const { prices } = options
  const alone = new Map((options.unreduced ?? []).map(({ row, cost }) => [row.turn, cost] as const))
  const reduced: MeteredTurn[] = []
  const turns: PricedTurn[] = []
  let withPlugin = 0
  let hostAlone: number | null = options.unreduced === null ? null : 0
  return {
    price(metered) {
      const { row, cost } = metered
      reduced.push(metered)
      const callPrice = callCost(cost.promptTokens, cost.cachedTokens, prices.prices)
      withPlugin += callPrice
      const unreduced = alone.get(row.turn)
      const hostAloneCost = unreduced ? callCost(unreduced.promptTokens, unreduced.cachedTokens, prices.prices) : null
      hostAlone = hostAlone === null || hostAloneCost === null ? null : hostAlone + hostAloneCost
      const turn = { turn: row.turn, cost: callPrice, sessionCost: withPlugin, hostAloneCost, hostAloneSessionCost: hostAlone }
      turns.push(turn)
      return turn
    },
    finish: () => ({ prices, turns, withPlugin, hostAlone, lastExecute: lastExecuteCost(reduced, prices, options.usableTokens) }),
  }
}

function lastExecuteCost(reduced: readonly MeteredTurn[], prices: PricesInForce, usableTokens: number): ReplayPricing["lastExecute"] {
  let index = reduced.length - 1
  while (index >= 0 && reduced[index]?.row.pass !== "execute") index -= 1
  const execute = reduced[index]
  if (!execute) return null
  const callsSince = reduced.length - 1 - index
  const freedTokens = (execute.row.usageBefore / 100) * usableTokens - execute.row.tokens.total
  const priced = executeCost({ call: execute.cost, freedTokens, callsSince, prices: prices.prices })
  return { turn: execute.row.turn, callsSince, ...priced }
}

/** The replay's cost under the list in force against the host alone, and the last execute pass's, as text lines. */
export function replayPriceLines(pricing: ReplayPricing): string[] {
  const { withPlugin, hostAlone } = pricing
  const against =
    hostAlone === null
      ? ""
      : ` vs ${grouped(hostAlone)} without magic-context (${hostAlone > 0 ? `${signedPercent(withPlugin, hostAlone)}` : "no reference"})`
  const lines = [`Price list ${describePrices(pricing.prices)}.`, `Under it, estimated prompt cost ${grouped(withPlugin)}${against}.`]
  const execute = pricing.lastExecute
  if (execute) {
    lines.push(
      `The last execute pass (turn ${execute.turn}): its request cost ${grouped(execute.cost)}; it saves ${grouped(execute.savesPerCall)} ` +
        `a call, ${grouped(execute.savedSoFar)} so far (${execute.callsSince + 1} call${execute.callsSince === 0 ? "" : "s"}).`,
    )
  }
  return lines
}

/** A turn's JSON fields for its cost (rounded to a tenth of a token unit, so the output reads the same everywhere). */
export function pricedTurnJson(list: PriceListName, turn: PricedTurn): Record<string, unknown> {
  return {
    priceList: list,
    cost: tenth(turn.cost),
    sessionCost: tenth(turn.sessionCost),
    hostAloneCost: turn.hostAloneCost === null ? null : tenth(turn.hostAloneCost),
    hostAloneSessionCost: turn.hostAloneSessionCost === null ? null : tenth(turn.hostAloneSessionCost),
  }
}

function tenth(value: number): number {
  return Math.round(value * 10) / 10
}

function grouped(value: number): string {
  return Math.round(value).toLocaleString("en-US")
}

/** The change from `base` to `value` in whole percent ("−38%", "+4%", "the same"). */
function signedPercent(value: number, base: number): string {
  const percent = Math.round((value / base - 1) * 100)
  return percent === 0 ? "the same" : `${percent > 0 ? "+" : "−"}${Math.abs(percent)}%`
}
