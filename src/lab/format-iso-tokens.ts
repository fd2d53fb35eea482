import { formatTable } from "../report/format-table.js"
import type { IsoTokenPoint } from "./iso-tokens.js"

/** The equal-cost table: per window and baseline, the matched window, its mean tokens and survival, and the default's. */
export function formatIsoTokens(points: readonly IsoTokenPoint[]): string[] {
  const rate = (survived: number, probes: number): string => (probes === 0 ? "-" : `${survived}/${probes} ${((survived / probes) * 100).toFixed(1)}%`)
  return formatTable(
    ["window", "default mean tokens", "default survived", "baseline", "matched window", "baseline mean tokens", "baseline survived"],
    points.map((point) => [
      point.window,
      Math.round(point.defaultMeanPromptTokens),
      rate(point.defaultSurvived, point.probes),
      point.policy,
      point.matchedWindow,
      Math.round(point.meanPromptTokens),
      rate(point.survived, point.probes),
    ]),
  )
}
