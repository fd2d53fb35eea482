import type { StatusData } from "./status-data.js"

/** The width of the proportional bar, in characters. */
export const BAR_WIDTH = 60

const SEGMENTS: readonly { key: "fixed" | "history" | "conversation" | "protected" | "tool"; label: string; char: string }[] = [
  { key: "fixed", label: "fixed prompt", char: "F" },
  { key: "history", label: "compartment history", char: "H" },
  { key: "conversation", label: "settled conversation", char: "C" },
  { key: "protected", label: "protected recent work", char: "P" },
  { key: "tool", label: "tool output", char: "T" },
]

/**
 * The status report as text: usage against the window with the band and threshold, a proportional bar of where the
 * tokens go (one character per 1/60 of the usable window, "." for free space), the breakdown, queued drops, what the
 * last execute pass changed, the historian, pins, recent errors and the host's compaction settings. Pure.
 */
export function formatStatus(status: StatusData, now: number): string {
  const lines = [`magic-context status: session ${status.sessionId}${status.title ? ` (${status.title})` : ""}`]
  const pass = status.lastPass
  if (!pass) {
    lines.push("", "No pass has run for this session yet.")
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
    `Last pass: #${pass.seq} ${pass.decision}${pass.reason ? ` (${pass.reason})` : ""}, ${ago(now - pass.at)}`,
  )
  const breakdown = pass.breakdown
  if (breakdown && window > 0) {
    lines.push("", `[${bar(breakdown, window)}]`)
    lines.push(SEGMENTS.map((segment) => `${segment.char} ${segment.label}`).join("  ") + "  . free")
    lines.push("")
    for (const segment of SEGMENTS) {
      lines.push(`  ${segment.label.padEnd(22)} ${fmt(breakdown[segment.key]).padStart(9)}  ${share(breakdown[segment.key], breakdown.total)}`)
    }
    lines.push(`  ${"of it reclaimable".padEnd(22)} ${fmt(breakdown.reclaimable).padStart(9)}  (finished tool output outside the protected window)`)
    lines.push(`  ${"tag prefixes".padEnd(22)} ${fmt(breakdown.tags).padStart(9)}`)
    lines.push(`  ${"total".padEnd(22)} ${fmt(breakdown.total).padStart(9)}`)
  }
  lines.push("", `Tags: ${status.tags.total} (${status.tags.dropped} dropped)`)
  lines.push(status.queuedDrops.length > 0 ? `Queued drops: ${tagList(status.queuedDrops)} (land at the next execute pass)` : "Queued drops: none")
  if (pass.nudge) lines.push(`Reminder on the last pass: ${pass.nudge.level} (channel ${pass.nudge.channel})`)
  const execute = status.lastExecute
  lines.push("")
  if (!execute) lines.push("Last execute pass: none yet")
  else {
    lines.push(
      `Last execute pass: #${execute.seq} (${execute.reason ?? "?"}), ${ago(now - execute.at)}: ${fmt(execute.usageBefore ?? 0)} -> ${fmt(execute.usageAfter ?? 0)} tokens`,
      `  dropped: ${execute.dropped.length > 0 ? tagList(execute.dropped) : "nothing"}`,
      `  tiers changed: ${execute.tierChanges.length > 0 ? execute.tierChanges.map((change) => `${change.compartment} ${change.from ?? "new"}->${change.to}`).join(", ") : "none"}`,
    )
  }
  const historian = status.historian
  const tiers = Object.entries(historian.tiers).map(([tier, count]) => `${count} ${tier}`).join(", ")
  lines.push(
    "",
    `Historian (${historian.strategy}): ${historian.compartments} compartments, ${historian.folded} folded into history${tiers ? ` (${tiers})` : ""}${historian.modelTiers > 0 ? `, ${historian.modelTiers} with model tiers` : ""}`,
  )
  if (historian.lastError) lines.push(`  last historian error: ${historian.lastError.message} (${ago(now - historian.lastError.at)})`)
  lines.push(`Pins: ${status.pins} pinned by the agent`)
  if (status.hostCompaction) {
    const { auto, prune, source } = status.hostCompaction
    const advice = auto || prune ? ' (recommended: "compaction": {"auto": false, "prune": false})' : ""
    lines.push(`OpenCode compaction: auto ${auto}, prune ${prune} [${source}]${advice}`)
  }
  lines.push("", status.errors.length > 0 ? "Recent internal errors (the session went on unchanged):" : "Recent internal errors: none")
  for (const error of status.errors.slice(0, 5)) lines.push(`  ${ago(now - error.at)} ${error.hook}: ${error.message}`)
  return lines.join("\n")
}

function bar(breakdown: NonNullable<NonNullable<StatusData["lastPass"]>["breakdown"]>, window: number): string {
  let used = 0
  let text = ""
  for (const segment of SEGMENTS) {
    const cells = Math.round(((used + breakdown[segment.key]) / window) * BAR_WIDTH) - Math.round((used / window) * BAR_WIDTH)
    text += segment.char.repeat(Math.max(0, cells))
    used += breakdown[segment.key]
  }
  return text.slice(0, BAR_WIDTH).padEnd(BAR_WIDTH, ".")
}

function fmt(tokens: number): string {
  return Math.round(tokens).toLocaleString("en-US")
}

function share(part: number, total: number): string {
  return total > 0 ? `${Math.round((part / total) * 100)}%` : ""
}

function tagList(tags: readonly number[]): string {
  return tags.map((tag) => `§${tag}§`).join(" ")
}

function ago(ms: number): string {
  if (ms < 0 || !Number.isFinite(ms)) return "just now"
  if (ms < 60_000) return `${Math.round(ms / 1000)}s ago`
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min ago`
  return `${(ms / 3_600_000).toFixed(1)} h ago`
}
