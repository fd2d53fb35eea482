import { breakdownSegments, FREE_CHAR, SEGMENTS, segmentBar, type SegmentKey } from "./breakdown-segments.js"
import { formatAge } from "./format-age.js"
import type { CostEstimate, StatusData } from "./status-data.js"
import { REASONING_REJECTED } from "../plugin-error.js"

/** How a span of the panel is drawn; the TUI maps each tone to a theme color. */
export type PanelTone = "title" | "text" | "muted" | "warning" | "error" | SegmentKey | "free" | "threshold"
export type PanelSpan = { readonly text: string; readonly tone: PanelTone }
export type PanelLine = readonly PanelSpan[]

/** What the panel knows about the store: a session's status, no store yet, or a store it cannot read. */
export type PanelInput =
  | { readonly kind: "status"; readonly status: StatusData }
  | { readonly kind: "no-store"; readonly file: string }
  | { readonly kind: "no-session" }
  | { readonly kind: "unreadable"; readonly message: string }

/** The sidebar's width in columns, as OpenCode 1.18 lays it out (its own sections wrap at this width too). */
export const PANEL_WIDTH = 36

/** Internal errors younger than this make the panel's warning line (older ones stay in /ctx-status). */
const RECENT_ERROR_MS = 60 * 60_000

/** Which pressure band reads as a warning and which as an error on the usage line. */
const BAND_TONE: Readonly<Record<string, PanelTone>> = { execute: "warning", force: "error", emergency: "error" }

/**
 * The sidebar panel of a session: usage against the usable window with the band and the execute threshold, the
 * breakdown bar (the segments of /ctx-status, the threshold marked `|`), queued drops, the last execute pass, the
 * historian's state and warnings for config problems and recent internal errors. Every line fits `width` columns.
 * Pure: the same input and `now` give the same panel.
 */
export function sidebarPanel(input: PanelInput, options: { now: number; width?: number }): PanelLine[] {
  const width = options.width ?? PANEL_WIDTH
  const title = [span("magic-context", "title")]
  if (input.kind === "no-store") return [title, ...wrap("No store yet: it is created at the first model call.", "muted", width)]
  if (input.kind === "no-session") return [title, ...wrap("Nothing stored for this session yet.", "muted", width)]
  if (input.kind === "unreadable") return [title, ...wrap(`! Cannot read the store: ${input.message}`, "error", width)]
  return [title, ...statusLines(input.status, options.now, width)]
}

/** The panel as plain text, one line per row (what a terminal without colors shows). */
export function panelText(lines: readonly PanelLine[]): string {
  return lines.map((line) => line.map((part) => part.text).join("")).join("\n")
}

function statusLines(status: StatusData, now: number, width: number): PanelLine[] {
  const pass = status.lastPass
  if (!pass) return [...wrap(`No pass yet (${count(status.tags.total, "tag")} stored).`, "muted", width), ...errorLines(status, now, width)]
  const window = pass.windowTokens ?? 0
  const usage = pass.usageTokens ?? 0
  const percent = window > 0 ? Math.round((usage / window) * 100) : 0
  const lines: PanelLine[] = [[span(fit(`${shortTokens(usage)} / ${shortTokens(window)} tokens (${percent}%)`, width), BAND_TONE[pass.band ?? ""] ?? "text")]]
  const threshold = status.thresholdPercent === null ? "" : ` · execute at ${status.thresholdPercent}%`
  const band: PanelLine = [span(fit(`band ${pass.band ?? "?"}${threshold}`, width), "muted")]
  if (pass.breakdown && window > 0) {
    const cells = segmentBar(scaled(breakdownSegments(pass.breakdown, status.history), usage, pass.breakdown.total), window, width - 2)
    lines.push(bar(cells, status.thresholdPercent), band, ...legend(cells, width))
  } else lines.push(band)
  lines.push(queuedLine(status.queuedDrops, width))
  lines.push(...executeLines(status.lastExecute, now, width))
  if (status.costEstimate) lines.push(...costLines(status.costEstimate, status.lastExecute?.seq ?? null, width))
  lines.push(...historianLines(status.historian, width))
  lines.push(...errorLines(status, now, width))
  return lines
}

/**
 * The segments scaled so they add up to the usage line: usage is calibrated against the provider's reports, the
 * breakdown is our own count, and a bar that ended short of (or past) the percentage beside it would read as a
 * second, contradicting usage. /ctx-status prints both counts instead.
 */
function scaled(segments: Record<SegmentKey, number>, usage: number, counted: number): Record<SegmentKey, number> {
  if (counted <= 0 || usage <= 0) return segments
  const factor = usage / counted
  const entries = Object.entries(segments).map(([key, tokens]) => [key, tokens * factor])
  return Object.fromEntries(entries) as Record<SegmentKey, number>
}

/** The breakdown bar in brackets, each run of one segment a span of its tone, the threshold's cell a `|`. */
function bar(cells: string, thresholdPercent: number | null): PanelLine {
  const chars = [...cells]
  const marker = thresholdPercent === null ? -1 : Math.min(chars.length - 1, Math.floor((thresholdPercent / 100) * chars.length))
  if (marker >= 0) chars[marker] = "|"
  const toneOf = new Map<string, PanelTone>([...SEGMENTS.map((segment) => [segment.char, segment.key] as const), [FREE_CHAR, "free"], ["|", "threshold"]])
  const spans: PanelSpan[] = [span("[", "muted")]
  for (const char of chars) {
    const tone = toneOf.get(char) ?? "text"
    const last = spans[spans.length - 1]
    if (last && last.tone === tone) spans[spans.length - 1] = span(last.text + char, tone)
    else spans.push(span(char, tone))
  }
  spans.push(span("]", "muted"))
  return spans
}

/** The legend's short label of each segment (the sidebar has no room for /ctx-status's long ones). */
const LEGEND_LABELS: Readonly<Record<SegmentKey, string>> = {
  fixed: "fixed",
  ledger: "ledger",
  history: "history",
  conversation: "conversation",
  protected: "protected",
  tool: "tools",
}

/**
 * The bar's key for the characters it shows: each segment's character in its tone and a short label, packed into
 * lines of `width`.
 */
function legend(cells: string, width: number): PanelLine[] {
  const entries: { char: string; label: string; tone: PanelTone }[] = [
    ...SEGMENTS.map((segment) => ({ char: segment.char, label: LEGEND_LABELS[segment.key], tone: segment.key })),
    { char: FREE_CHAR, label: "free", tone: "free" as const },
  ].filter((entry) => cells.includes(entry.char))
  const lines: PanelSpan[][] = []
  let line: PanelSpan[] = []
  let used = 0
  for (const entry of entries) {
    const length = entry.char.length + 1 + entry.label.length
    if (used > 0 && used + 1 + length > width) {
      lines.push(line)
      line = []
      used = 0
    }
    if (used > 0) line.push(span(" ", "muted"))
    line.push(span(entry.char, entry.tone), span(` ${entry.label}`, "muted"))
    used += (used > 0 ? 1 : 0) + length
  }
  lines.push(line)
  return lines
}

function queuedLine(queued: readonly number[], width: number): PanelLine {
  if (queued.length === 0) return [span("Queued drops: none", "muted")]
  return [span(fit(`Queued drops: ${queued.length} · ${queued.map((tag) => `§${tag}§`).join(" ")}`, width), "text")]
}

function executeLines(execute: StatusData["lastExecute"], now: number, width: number): PanelLine[] {
  if (!execute) return [[span("Last execute: none yet", "muted")]]
  const dropped = execute.dropped.length > 0 ? `, ${count(execute.dropped.length, "drop")}` : ""
  return [
    [span(fit(`Last execute #${execute.seq}, ${formatAge(now - execute.at)}`, width), "text")],
    [span(fit(`  ${shortTokens(execute.usageBefore ?? 0)} → ${shortTokens(execute.usageAfter ?? 0)} tokens${dropped}`, width), "muted")],
  ]
}

/**
 * The session's estimated cost against the host alone and the list it is priced under, and what the last execute
 * pass's request cost and saves a call (when it is the one the estimate priced).
 */
function costLines(estimate: CostEstimate, executeSeq: number | null, width: number): PanelLine[] {
  const { hostAlone, withPlugin } = estimate
  const versus = hostAlone === null ? "" : ` vs ~${shortTokens(hostAlone)} alone${hostAlone > 0 ? ` (${signedPercent(withPlugin, hostAlone)})` : ""}`
  const tone: PanelTone = hostAlone !== null && withPlugin > hostAlone ? "warning" : "text"
  const { list, origin } = estimate.pricing.prices
  const lines: PanelLine[] = [
    [span(fit(`Cost ~${shortTokens(withPlugin)}${versus}`, width), tone)],
    [span(fit(origin === "unknown-provider" ? `  ${list} (unknown provider)` : `  ${list} prices`, width), "muted")],
  ]
  const execute = estimate.lastExecute
  if (execute && execute.seq === executeSeq) {
    lines.push([span(fit(`  execute ~${shortTokens(execute.cost)}, saves ~${shortTokens(execute.savesPerCall)}/call`, width), "muted")])
  }
  return lines
}

/** The change from `base` to `value` in whole percent, with its sign ("-38%", "+4%", "0%"). */
function signedPercent(value: number, base: number): string {
  const percent = Math.round((100 * (value - base)) / base)
  return percent > 0 ? `+${percent}%` : `${percent}%`
}

function historianLines(historian: StatusData["historian"], width: number): PanelLine[] {
  const head = `Historian (${historian.strategy}): ${historian.folded} of ${historian.compartments} folded`
  const tiers = Object.entries(historian.tiers)
    .filter(([, n]) => n > 0)
    .map(([tier, n]) => `${n} ${tier}`)
    .join(" · ")
  const lines: PanelLine[] = [[span(fit(head, width), "text")]]
  if (tiers) lines.push([span(fit(`  ${tiers}`, width), "muted")])
  return lines
}

/**
 * The warnings: config problems (a file or value refused; the first one), a provider's rejection over reasoning state
 * in the last hour, and internal errors of the last hour (how many, how recent, the newest one's hook and message).
 * /ctx-status lists them all.
 */
function errorLines(status: StatusData, now: number, width: number): PanelLine[] {
  const lines: PanelLine[] = []
  const problems = status.configProblems ?? []
  if (problems.length > 0) {
    lines.push([span(fit(`! ${count(problems.length, "config problem")} (defaults apply)`, width), "warning")])
    lines.push([span(fit(`  ${problems[0]}`, width), "muted")])
  }
  const young = status.errors.filter((error) => now - error.at < RECENT_ERROR_MS)
  // A provider's rejection over reasoning state is the user's session failing, not the plugin's: said apart.
  const rejected = young.find((error) => error.code === REASONING_REJECTED)
  if (rejected) {
    lines.push([span(fit("! Provider rejected a request", width), "error")])
    lines.push([span(fit(`  (reasoning), ${formatAge(now - rejected.at)}: /ctx-status`, width), "muted")])
  }
  const recent = young.filter((error) => error.code !== REASONING_REJECTED)
  const newest = recent[0]
  if (!newest) return lines
  lines.push([span(fit(`! ${count(recent.length, "internal error")}, newest ${formatAge(now - newest.at)}`, width), "warning")])
  lines.push([span(fit(`  ${newest.hook}: ${newest.message}`, width), "muted")])
  return lines
}

function span(text: string, tone: PanelTone): PanelSpan {
  return { text, tone }
}

/** `text` cut to `width` columns, with `…` when cut. */
function fit(text: string, width: number): string {
  const chars = [...text]
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`
}

/** `text` broken at spaces into lines of at most `width` columns (a longer word is cut). */
function wrap(text: string, tone: PanelTone, width: number): PanelLine[] {
  const lines: string[] = []
  let line = ""
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word
    if ([...next].length <= width) line = next
    else {
      if (line) lines.push(line)
      line = fit(word, width)
    }
  }
  if (line) lines.push(line)
  return lines.map((text) => [span(text, tone)])
}

/** A token count in few columns: 812, 14.2k, 142k, 1.2M. */
export function shortTokens(n: number): string {
  const value = Math.max(0, Math.round(n))
  if (value < 1000) return String(value)
  if (value < 100_000) return `${(value / 1000).toFixed(1)}k`
  if (value < 1_000_000) return `${Math.round(value / 1000)}k`
  return `${(value / 1_000_000).toFixed(1)}M`
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`
}
