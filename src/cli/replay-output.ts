import type { ReplayTurn } from "../pass/replay-transcript.js"
import type { WindowSettings } from "../pressure/model-window.js"
import { formatTable } from "../report/format-table.js"
import type { CliIo } from "./cli-io.js"
import { replayLegend } from "./replay-summary.js"

/** The per-turn JSON record (stable field order). */
export function turnJson(turn: ReplayTurn): Record<string, unknown> {
  return {
    turn: turn.turn,
    pass: turn.pass,
    reason: turn.reason,
    band: turn.band,
    usageBefore: Math.round(turn.usageBefore * 10) / 10,
    tokens: turn.tokens,
    prefixChanged: turn.prefixChanged,
    firstDivergence: turn.firstDivergence,
    dropped: turn.dropped,
    nudge: turn.nudge,
    tiers: turn.history?.tiers ?? {},
    floorViolations: turn.history?.floorViolations ?? 0,
    tierSwitches: turn.history?.switches ?? 0,
    messages: turn.messages,
    newTags: turn.newTags,
    tagCount: turn.tagCount,
  }
}

/** The replay as a table: a header naming the settings, one row per model call, the legend and a closing summary. */
export function printReplayTable(
  io: CliIo,
  rows: ReplayTurn[],
  meta: {
    file: string
    format: string
    encoding: string
    window: WindowSettings
    sources: { window: string; fixed: string }
    passes: number
    sessionId: string
  },
): void {
  const executes = rows.filter((row) => row.pass === "execute").length
  const busts = rows.filter((row) => row.prefixChanged).length
  const peak = Math.max(0, ...rows.map((row) => row.usageBefore))
  const mean = rows.length > 0 ? rows.reduce((sum, row) => sum + row.tokens.total, 0) / rows.length : 0
  io.stdout(
    `${meta.file}: ${meta.format} transcript, ${meta.passes} model calls replayed; usable window ` +
      `${meta.window.usableTokens.toLocaleString("en-US")} tokens (${meta.sources.window}), execute threshold ` +
      `${meta.window.thresholdPercent}%, protected ${meta.window.protectedTokens.toLocaleString("en-US")} tokens; ` +
      `fixed prompt ${(rows[0]?.tokens.fixed ?? 0).toLocaleString("en-US")} tokens (${meta.sources.fixed}); ` +
      `tokens counted with ${meta.encoding}`,
  )
  io.stdout("")
  const table = formatTable(
    ["turn", "pass", "band", "use%", "total", "fixed", "hist", "conv", "prot", "tool", "reclaim", "prefix", "dropped", "nudge"],
    rows.map((row) => [
      row.turn,
      row.pass,
      row.band,
      Math.round(row.usageBefore),
      row.tokens.total,
      row.tokens.fixed,
      row.tokens.history,
      row.tokens.conversation,
      row.tokens.protected,
      row.tokens.tool,
      row.tokens.reclaimable,
      row.prefixChanged ? `changed@${row.firstDivergence}` : "kept",
      row.dropped.length > 0 ? `${row.dropped.length} tags` : "-",
      row.nudge ? `${row.nudge.level}/${row.nudge.channel}` : "-",
    ]),
  )
  for (const line of table) io.stdout(line)
  io.stdout("")
  for (const line of replayLegend(meta.window)) io.stdout(line)
  io.stdout("")
  io.stdout(
    `${executes} execute passes, ${rows.length - executes} replay passes; prefix changed on ${busts} passes; ` +
      `mean prompt ${Math.round(mean).toLocaleString("en-US")} tokens; peak usage before a pass ${peak.toFixed(1)}%`,
  )
}
