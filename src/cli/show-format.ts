import { TIERS } from "../historian/fidelity-types.js"
import type { ShownPrompt } from "../report/show-prompt.js"

/** A dropped item's raw text is printed up to this many lines (`--json` and `--html` carry all of it). */
export const RAW_PREVIEW_LINES = 12

/** Which call of which transcript a shown prompt is, for its heading. */
export type ShownCall = { source: string; calls: readonly number[] }

/**
 * The prompt of one model call as text: a heading (the pass, its band and reason, the prompt's tokens by where they
 * go), the history's episodes each with its tier and tag range, the omitted line, the pinned ledger, the working set,
 * then the conversation, where a drop marker is followed by what the dropped item said. Pure.
 */
export function formatShownPrompt(shown: ShownPrompt, call: ShownCall): string[] {
  const { tokens } = shown
  const index = call.calls.indexOf(shown.turn)
  const lines = [
    `${call.source}: the prompt of the model call at turn ${shown.turn} (call ${index + 1} of ${call.calls.length}; ` +
      `turns ${call.calls[0]}–${call.calls.at(-1)})`,
    `${shown.pass} pass (${shown.reason}), band ${shown.band}, usage before the pass ${shown.usageBefore.toFixed(1)}%; ` +
      `${grouped(tokens.total)} tokens: fixed ${grouped(tokens.fixed)}, history ${grouped(tokens.history)}, ` +
      `conversation ${grouped(tokens.conversation)}, protected ${grouped(tokens.protected)}, tool ${grouped(tokens.tool)}`,
    "",
  ]
  const history = shown.history
  if (history === null) {
    lines.push("History: none folded yet (every message below is as the host sent it, tags added).")
  } else {
    const byTier = TIERS.map((tier) => [tier, history.episodes.filter((episode) => episode.tier === tier).length] as const)
      .filter(([, count]) => count > 0)
      .map(([tier, count]) => `${count} ${tier.toUpperCase()}`)
    const omitted = history.omittedIds.length > 0 ? `; ${history.omittedIds.length} omitted` : ""
    lines.push(`History: ${history.episodes.length} episodes (${byTier.join(", ") || "none shown"}${omitted})`)
    if (history.omitted) lines.push(`  ${history.omitted}`)
    for (const episode of history.episodes) {
      lines.push("", `  ${episode.tier.toUpperCase().padEnd(7)} ${episode.id}${episode.tags ? ` ${episode.tags}` : ""}`)
      for (const line of episode.text.split("\n").slice(1)) lines.push(`    ${line}`)
    }
    lines.push("", history.ledger.length > 0 ? "Pinned ledger:" : "Pinned ledger: empty")
    for (const line of history.ledger) lines.push(`  ${line}`)
    if (history.recalled.length > 0) lines.push("", "Recalled by reference:", ...history.recalled.map((line) => `  ${line}`))
    lines.push("", "Working set:")
    for (const line of history.workingSet) lines.push(`  ${line}`)
  }
  const dropped = shown.conversation.flatMap((message) => message.parts).filter((part) => part.dropped !== null).length
  lines.push("", `Conversation: ${shown.conversation.length} messages, ${dropped} dropped item${dropped === 1 ? "" : "s"}`)
  for (const message of shown.conversation) {
    lines.push("", `  [${message.role}]`)
    for (const part of message.parts) {
      const label = part.kind === "text" ? "" : `(${part.kind}) `
      const [head = "", ...more] = part.text.trimEnd().split("\n")
      lines.push(`    ${label}${head}`, ...more.map((line) => `      ${line}`))
      if (part.dropped) {
        if (part.dropped.raw === null) {
          lines.push(`      what §${part.dropped.tag}§ said: not in the store`)
          continue
        }
        const raw = part.dropped.raw.split("\n")
        lines.push(`      what §${part.dropped.tag}§ said (${raw.length} line${raw.length === 1 ? "" : "s"}):`)
        for (const line of raw.slice(0, RAW_PREVIEW_LINES)) lines.push(`      | ${line}`)
        if (raw.length > RAW_PREVIEW_LINES) lines.push(`      | … ${raw.length - RAW_PREVIEW_LINES} more lines (--json or --html for all)`)
      }
    }
  }
  return lines
}

function grouped(value: number): string {
  return Math.round(value).toLocaleString("en-US")
}
