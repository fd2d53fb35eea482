import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { REPO_ROOT } from "./opencode-harness.js"
import { openStoreReadOnly } from "./store-reader.js"

/**
 * What one pass decided and rendered, as a store records it: the decision, the drops that landed, the prompt's tokens
 * (the estimate, before calibration), the fixed tokens it counted, where it diverged from the previous prompt, and the
 * hash of the serialized prompt an execute pass starts its epoch with. Equal facts for every pass of two runs mean the
 * same prompts (a replay pass only appends).
 */
export type PassFacts = { decision: string; dropped: number[]; tokens: number; fixed: number; firstDivergence: number | null; renderedHash: string | null }

/** Every pass of the store's one session, in order, with the usable window it ran against. */
export function readPassFacts(databaseFile: string): { window: number; passes: PassFacts[] } {
  const db = openStoreReadOnly(databaseFile)
  try {
    type Row = { decision: string; window_tokens: number; first_divergence: number | null; rendered_hash: string | null; detail_json: string }
    const rows = db.prepare("SELECT decision, window_tokens, first_divergence, rendered_hash, detail_json FROM passes ORDER BY session_id, seq").all() as Row[]
    const passes = rows.map((row) => {
      const detail = JSON.parse(row.detail_json) as { dropped: number[]; breakdown: { total: number; fixed: number } }
      return { decision: row.decision, dropped: detail.dropped, tokens: detail.breakdown.total, fixed: detail.breakdown.fixed, firstDivergence: row.first_divergence, renderedHash: row.rendered_hash }
    })
    return { window: rows[0]?.window_tokens ?? 0, passes }
  } finally {
    db.close()
  }
}

/**
 * Replays a live session's file into `databaseFile` the way the live session ran: its usable window, the fixed
 * prompt size its passes counted (a pi session file does not record the system prompt), its usage reports, and the
 * config of `cwd` (run it in the live project, with the live environment).
 */
export function replayLikeLive(options: { sessionFile: string; live: { window: number; passes: PassFacts[] }; databaseFile: string; cwd: string; env: Record<string, string> }): void {
  const fixed = options.live.passes[0]?.fixed ?? 0
  const args = ["replay", options.sessionFile, "--window", String(options.live.window), "--fixed-tokens", String(fixed), "--calibrate", "--json", "--db", options.databaseFile]
  execFileSync(process.execPath, [join(REPO_ROOT, "dist", "cli", "bin.js"), ...args], { cwd: options.cwd, env: options.env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
}
