import type { ReplayTurn } from "../pass/replay-transcript.js"
import type { WindowSettings } from "../pressure/model-window.js"
import { TIERS } from "../historian/fidelity-types.js"
import { EMERGENCY_PERCENT, forceBandStart } from "../pressure/bands.js"

/** One replay's totals, for the comparison with the same session unreduced. */
export type ReplayTotals = { calls: number; meanPromptTokens: number }

/** Sums a replay's calls: their mean prompt tokens. */
export function replayTotals(rows: readonly Pick<ReplayTurn, "tokens">[]): ReplayTotals {
  const tokens = rows.reduce((sum, row) => sum + row.tokens.total, 0)
  return { calls: rows.length, meanPromptTokens: rows.length > 0 ? tokens / rows.length : 0 }
}

/**
 * The few lines a newcomer reads after the table: what the engine did (execute passes, the episodes folded into
 * history by tier at the last call, the tool outputs dropped), the prompt tokens it saved against the same session
 * unreduced (the cost under the price list in force follows, from replay-cost.ts), and where to look next. A session
 * that never reached the threshold says so and how to see the engine work. Pure.
 */
export function replaySummary(options: { rows: readonly ReplayTurn[]; window: WindowSettings; reduced: ReplayTotals; unreduced: ReplayTotals }): string[] {
  const { rows, window, reduced, unreduced } = options
  const executes = rows.filter((row) => row.pass === "execute").length
  const lines: string[] = []
  if (executes === 0) {
    const peak = Math.max(0, ...rows.map((row) => row.usageBefore))
    lines.push(
      `Nothing needed doing: usage peaked at ${peak.toFixed(1)}% of the ${grouped(window.usableTokens)}-token window (execute ` +
        `threshold ${window.thresholdPercent}%), so every prompt went out as the host built it, tags added. Give a ` +
        `smaller window to see the engine work, e.g. --window ${suggestedWindow(rows)}.`,
    )
  } else {
    const tiers = rows.at(-1)?.history?.tiers ?? {}
    const episodes = Object.keys(tiers).length
    const byTier = TIERS.map((tier) => [tier, Object.values(tiers).filter((chosen) => chosen === tier).length] as const)
      .filter(([, count]) => count > 0)
      .map(([tier, count]) => `${count} ${tier}`)
    const dropped = rows.reduce((sum, row) => sum + row.dropped.length, 0)
    lines.push(
      `What the engine did: ${executes} execute pass${executes === 1 ? "" : "es"}; ` +
        (episodes > 0 ? `${episodes} settled episodes folded into history (at the last call: ${byTier.join(", ")}); ` : "no history folded yet; ") +
        `${dropped} tool output${dropped === 1 ? "" : "s"} dropped or reclaimed (the raw transcript stays in the store).`,
    )
  }
  lines.push(
    `Against the same session unreduced: mean prompt ${grouped(reduced.meanPromptTokens)} vs ${grouped(unreduced.meanPromptTokens)} tokens ` +
      `(${change(reduced.meanPromptTokens, unreduced.meanPromptTokens)}).`,
  )
  lines.push(
    "Next: --json for one record per call; `magic-context show` with the same transcript and options for the prompt " +
      "of a call, episode by episode (--turn N; --html report.html for the whole replay in a browser); " +
      "`magic-context lab --probes …` for what each policy keeps of a session; `/ctx-status` inside OpenCode for a live session.",
  )
  return lines
}

/**
 * What the replay table's columns say, printed once under it, with this window's thresholds. Each line states what
 * the code that fills the column computes: the band from usage before the pass (`classifyBand`), the pass and its
 * reasons (`decidePass`), the breakdown (`measurePrompt`), the prefix check, the reminder (`nudgeFor`). Pure.
 */
export function replayLegend(window: WindowSettings): string[] {
  const threshold = window.thresholdPercent
  return [
    "Legend:",
    "  pass     execute: the pass applied what was due (drops, reclaim, a history fold), so the prompt changed; replay: it",
    "           rendered the same applied state again, so the previous prompt stays a byte prefix (the provider's cache)",
    `  band     usage before the pass: below (under ${threshold}%, the execute threshold), execute (from ${threshold}%),`,
    `           force (from ${forceBandStart(threshold)}%), emergency (from ${EMERGENCY_PERCENT}%);` +
      " an execute pass in band below: the emergency drain",
    "           still freeing context, an expired prompt cache letting queued drops land, a recovery after a reasoning",
    "           rejection, or work that pays for its prefix break (--json gives each pass's reason)",
    "  use%     usage before the pass, in percent of the usable window",
    "  total    tokens of the prompt sent, split into fixed (system prompt and tools), hist (the folded history), conv",
    "           (settled conversation), prot (the protected recent window), tool (tool output); reclaim: the part of tool",
    "           that reclaim or ctx_reduce could take now",
    "  prefix   kept: the previous prompt is a byte prefix of this one; changed@N: they differ from UTF-8 byte N on",
    "  dropped  tags whose drop landed in this pass (ctx_reduce, reclaim, smart drops)",
    "  nudge    the ctx_reduce reminder placed: level (gentle, firm, urgent: the reclaimable share of the recent tail, capped",
    "           by the distance to the threshold) / channel (1: on a finished tool output, 2: a steer message)",
  ]
}

/** A window about half the session's largest prompt (so it crosses the threshold), rounded to 1,000 and at least 4,000. */
function suggestedWindow(rows: readonly ReplayTurn[]): number {
  const largest = Math.max(0, ...rows.map((row) => row.tokens.total))
  return Math.max(4_000, Math.round(largest / 2 / 1_000) * 1_000)
}

function grouped(value: number): string {
  return Math.round(value).toLocaleString("en-US")
}

function change(value: number, reference: number): string {
  if (reference <= 0) return "no reference"
  const percent = Math.round((value / reference - 1) * 100)
  return percent === 0 ? "the same" : `${percent > 0 ? "+" : "−"}${Math.abs(percent)}%`
}
