import { protectedClampMessage } from "../reduce/protected-window.js"
import { breakdownSegments, SEGMENTS, segmentBar, type SegmentKey } from "./breakdown-segments.js"
import { formatAge } from "./format-age.js"
import { configProblemLines, errorLines } from "./report-lines.js"
import type { CostEstimate, ReasoningStatus, StatusData } from "./status-data.js"
import { describePrices } from "../session/price-lists.js"
import { storeHealthLines } from "./store-health.js"

/** The width of the proportional bar, in characters. */
export const BAR_WIDTH = 60

/**
 * The status report as text: usage against the window with the band and threshold, a proportional bar of where the
 * tokens go (one character per 1/60 of the usable window, "." for free space), the breakdown (the history split into
 * the pinned ledger and the compartments by tier), queued drops, what the last execute pass changed, the historian,
 * pins, recent errors and the host's compaction settings. Pure.
 */
export function formatStatus(status: StatusData, now: number): string {
  const lines = [`magic-context status: session ${status.sessionId}${status.title ? ` (${status.title})` : ""}`]
  if (status.store) lines.push("", ...storeHealthLines(status.store, now))
  const pass = status.lastPass
  if (!pass) {
    // Nothing to measure, but what went wrong (a store that was busy when the passes ran) still shows.
    lines.push("", `No pass has run for this session yet (${plural(status.tags.total, "tag")} stored).`)
    lines.push(...closingLines(status, now))
    return lines.join("\n")
  }
  const window = pass.windowTokens ?? 0
  const usage = pass.usageTokens ?? 0
  const percent = window > 0 ? (usage / window) * 100 : 0
  const threshold = status.thresholdPercent === null ? "" : `, execute threshold ${status.thresholdPercent}%`
  const counted = pass.breakdown?.total ?? usage
  // Usage is calibrated against the provider's reports; when our own count differs much, show both.
  const countedNote = Math.abs(counted - usage) > Math.max(500, usage * 0.05) ? ` (our count of the prompt: ${fmt(counted)})` : ""
  lines.push(
    "",
    `Usage: ${fmt(usage)} of ${fmt(window)} usable tokens (${percent.toFixed(1)}%)${countedNote}, band ${pass.band ?? "?"}${threshold}`,
    `Last pass: #${pass.seq} ${pass.decision}${pass.reason ? ` (${pass.reason})` : ""}, ${formatAge(now - pass.at)}`,
  )
  if (status.protectedClamp) lines.push(`Protected window: ${protectedClampMessage(status.protectedClamp)}`)
  const breakdown = pass.breakdown
  if (breakdown && window > 0) {
    const segments = breakdownSegments(breakdown, status.history)
    const split = splitHistory(segments, status.history)
    lines.push("", `[${segmentBar(segments, window, BAR_WIDTH)}]`)
    lines.push(SEGMENTS.map((segment) => `${segment.char} ${segment.label}`).join("  ") + "  . free")
    lines.push("")
    for (const segment of SEGMENTS) {
      const tokens = segments[segment.key]
      const estimated = segment.key === "ledger" && tokens > 0 ? "~" : ""
      const pinned = segment.key === "ledger" && split.pinnedFacts > 0 ? `  (${plural(split.pinnedFacts, "pinned fact")}${split.condensed})` : ""
      lines.push(`  ${segment.label.padEnd(22)} ${`${estimated}${fmt(tokens)}`.padStart(9)}  ${share(tokens, breakdown.total)}${pinned}`)
      if (segment.key === "history") lines.push(...split.lines)
    }
    lines.push(`  ${"of it reclaimable".padEnd(22)} ${fmt(breakdown.reclaimable).padStart(9)}  (finished tool output outside the protected window)`)
    lines.push(`  ${"tag prefixes".padEnd(22)} ${fmt(breakdown.tags).padStart(9)}`)
    lines.push(`  ${"total".padEnd(22)} ${fmt(breakdown.total).padStart(9)}`)
  }
  lines.push("", `Tags: ${status.tags.total} (${status.tags.dropped} dropped)`)
  lines.push(status.queuedDrops.length > 0 ? `Queued drops: ${tagList(status.queuedDrops)} (land at the next execute pass)` : "Queued drops: none")
  if (pass.nudge) lines.push(`Reminder on the last pass: ${pass.nudge.level} (channel ${pass.nudge.channel})`)
  const execute = status.lastExecute
  const estimate = status.costEstimate ?? null
  lines.push("")
  if (!execute) lines.push("Last execute pass: none yet")
  else {
    // Under the price list in force when there is one (the estimate's), else as the pass recorded it.
    const priced = estimate?.lastExecute?.seq === execute.seq ? estimate.lastExecute : null
    const cost = priced?.cost ?? execute.cost
    const saved = priced?.savedSoFar ?? execute.saved
    const perCall = priced ? `, ~${fmt(Math.round(priced.savesPerCall))} a call from now on` : ""
    lines.push(
      `Last execute pass: #${execute.seq} (${execute.reason ?? "?"}), ${formatAge(now - execute.at)}: ${fmt(execute.usageBefore ?? 0)} -> ${fmt(execute.usageAfter ?? 0)} tokens`,
      `  dropped: ${execute.dropped.length > 0 ? tagList(execute.dropped) : "nothing"}`,
      `  tiers changed: ${execute.tierChanges.length > 0 ? execute.tierChanges.map((change) => `${change.compartment} ${change.from ?? "new"}->${change.to}`).join(", ") : "none"}`,
      `  prompt changed from byte ${execute.firstDivergence === null ? "- (it did not)" : fmt(execute.firstDivergence)}` +
        (cost === null ? "" : `; its request cost ~${fmt(Math.round(cost))}`) +
        (saved === null ? "" : `, saved ~${fmt(Math.round(saved))} so far (${plural(execute.callsSince + 1, "call")})${perCall}`),
    )
  }
  if (estimate) lines.push(...priceListLines(estimate))
  if (status.cost.calls > 0) {
    const cached = status.cost.promptTokens > 0 ? Math.round((100 * status.cost.cachedTokens) / status.cost.promptTokens) : 0
    const total = estimate ? estimate.withPlugin : status.cost.cost
    lines.push(
      `Prompt cost so far (estimate, in uncached input tokens): ~${fmt(Math.round(total))} over ${plural(status.cost.calls, "call")}; ${cached}% of ${fmt(status.cost.promptTokens)} prompt tokens read from the cache`,
    )
    if (estimate) lines.push(hostAloneLine(estimate))
  }
  const historian = status.historian
  const tiers = Object.entries(historian.tiers).map(([tier, count]) => `${count} ${tier}`).join(", ")
  lines.push(
    "",
    `Historian (${historian.strategy}): ${historian.compartments} compartments, ${historian.folded} folded into history${tiers ? ` (${tiers})` : ""}${historian.modelTiers > 0 ? `, ${historian.modelTiers} with model tiers` : ""}`,
  )
  if (historian.lastError) lines.push(`  last historian error: ${historian.lastError.message} (${formatAge(now - historian.lastError.at)})`)
  lines.push(`Pins: ${status.pins} pinned by the agent`)
  if (status.reasoning) lines.push(...reasoningLines(status.reasoning))
  if (status.hostCompaction) {
    const { host, settings, recommended, source } = status.hostCompaction
    lines.push(`${host} compaction: ${settings} [${source}]${recommended ? ` (recommended: ${recommended})` : ""}`)
  }
  lines.push(...closingLines(status, now))
  return lines.join("\n")
}

/** The provider's rule on reasoning state and what it made the passes do (nothing to say under the "none" rule). */
export function reasoningLines(reasoning: ReasoningStatus): string[] {
  const { rule } = reasoning
  const origin = reasoning.source === "config" ? "set in the config" : "from the provider table"
  const lines = [`Reasoning rule: ${rule.id}${reasoning.model ? ` for ${reasoning.model}` : ""} (${origin}): ${rule.summary}`]
  if (rule.id === "none") return lines
  lines.push(`  if broken: ${rule.failure}; source: ${rule.source}`)
  if (rule.prefixCheck) {
    lines.push(
      `  thinking withheld by execute passes: ${plural(reasoning.withheld, "block")} (${fmt(reasoning.withheldTokens)} tokens); ` +
        `passes held for the turn boundary: ${reasoning.deferred}`,
    )
  }
  if (reasoning.runningLoop > 0) {
    lines.push(`  ${plural(reasoning.runningLoop, "force or emergency pass")} took a running tool loop's thinking (the model re-plans that step without it)`)
  }
  return lines
}

/** The price list in force (its name, where it came from, its prices) and an override the report set aside. */
export function priceListLines(estimate: CostEstimate): string[] {
  const { prices, model } = estimate.pricing
  const lines = [`Price list${model ? ` for ${model}` : ""}: ${describePrices(prices)}`]
  if (prices.problem) lines.push(`  config: ${prices.problem}`)
  return lines
}

/** The same calls as the host alone would have sent them, and what magic-context saves (or costs) against that. */
export function hostAloneLine(estimate: CostEstimate): string {
  if (estimate.hostAlone === null) return "Without magic-context: not known (the stored messages do not cover every call)"
  const difference = estimate.hostAlone - estimate.withPlugin
  const percent = estimate.hostAlone > 0 ? Math.round((100 * Math.abs(difference)) / estimate.hostAlone) : 0
  const verdict = difference >= 0 ? `magic-context saves ~${fmt(Math.round(difference))} (${percent}%)` : `magic-context costs ~${fmt(Math.round(-difference))} more (${percent}%)`
  return (
    `Without magic-context (estimate, the host sending its whole transcript, no compaction): ` +
    `~${fmt(Math.round(estimate.hostAlone))} over the same calls; ${verdict}`
  )
}

/**
 * The config problems and the recent internal errors, which every report ends with, then what the reporting host
 * process holds in memory (a live report only).
 */
function closingLines(status: StatusData, now: number): string[] {
  const config = configProblemLines(status.configProblems ?? [])
  const held = status.sessionsHeld === undefined ? [] : [sessionsHeldLine(status.sessionsHeld)]
  return [...(config.length > 0 ? ["", ...config] : []), "", ...errorLines(status.errors, now), ...held]
}

/** What the host process holds in memory: a session the host deleted is let go (its stored rows stay). */
function sessionsHeldLine(count: number): string {
  return `Held in memory by this process: ${plural(count, "session")} (a deleted session is let go; its stored rows stay)`
}

/**
 * The sub-lines of the compartment history: one per tier and one for the rest (the working set and the headings),
 * and what the ledger line adds (its pinned facts, the condensed ones). Only when the last pass rendered the history.
 */
function splitHistory(
  segments: Record<SegmentKey, number>,
  measure: StatusData["history"],
): { pinnedFacts: number; condensed: string; lines: string[] } {
  if (!measure || segments.ledger + segments.history <= 0) return { pinnedFacts: 0, condensed: "", lines: [] }
  const lines = measure.tiers.map(
    (tier) => `  ${`  ${tier.tier}`.padEnd(22)} ${fmt(tier.tokens).padStart(9)}  (${plural(tier.compartments, "compartment")})`,
  )
  // What the tiers leave of the line: the working set, the headings and the blank lines between episodes. It is
  // what the sub-lines need to add up to the compartment history line, and as estimated as the ledger it excludes.
  const rest = segments.history - measure.tiers.reduce((sum, tier) => sum + tier.tokens, 0)
  const estimated = segments.ledger > 0 ? "~" : ""
  if (measure.omittedEpisodes > 0) {
    const omitted = `${plural(measure.omittedEpisodes, "compartment")} did not fit the window even at their anchors`
    lines.push(`  ${"  not shown".padEnd(22)} ${fmt(0).padStart(9)}  (${omitted})`)
  }
  if (lines.length > 0) lines.push(`  ${"  working set, headers".padEnd(22)} ${`${estimated}${fmt(rest)}`.padStart(9)}`)
  const condensed = measure.condensedPins > 0 ? `; the ledger is full: ${measure.condensedPins} are in their episodes (it lets the oldest go first, constraints last)` : ""
  return { pinnedFacts: measure.pinnedFacts, condensed, lines }
}

function fmt(tokens: number): string {
  return Math.round(tokens).toLocaleString("en-US")
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`
}

function share(part: number, total: number): string {
  return total > 0 ? `${Math.round((part / total) * 100)}%` : ""
}

function tagList(tags: readonly number[]): string {
  return tags.map((tag) => `§${tag}§`).join(" ")
}
