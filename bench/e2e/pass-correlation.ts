import type { RequestRow } from "./request-metrics.js"

/** How magic-context's prefix breaks line up with its execute passes. */
export type PassCorrelation = {
  transformPasses: number
  executePasses: number
  /** Prefix breaks on a request whose pass executed (expected: executing is what rewrites the prompt). */
  breaksOnExecute: number
  /** Prefix breaks on a request whose pass replayed (the cache contract says there should be none). */
  breaksOnReplay: number
}

/**
 * Pairs the i-th main request with magic-context's i-th transform pass (it runs one per main step, in order; title
 * and compaction requests have none) and counts where the prefix breaks fall. Null when the counts differ, since
 * the pairing would then be meaningless.
 */
export function correlatePasses(options: {
  rows: readonly RequestRow[]
  decisions: readonly string[]
}): PassCorrelation | null {
  const { rows, decisions } = options
  if (rows.length !== decisions.length) return null
  const breaks = rows.flatMap((row, index) => (row.prefixBreak === true ? [decisions[index]] : []))
  return {
    transformPasses: decisions.length,
    executePasses: decisions.filter((decision) => decision === "execute").length,
    breaksOnExecute: breaks.filter((decision) => decision === "execute").length,
    breaksOnReplay: breaks.filter((decision) => decision !== "execute").length,
  }
}
