import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"

/**
 * Whether Pi's auto-compaction is on, as its settings say: `compaction.enabled` in `<cwd>/.pi/settings.json`
 * (project settings override) or in the agent directory's `settings.json` (`PI_CODING_AGENT_DIR`, by default
 * `~/.pi/agent`); on when neither says (Pi's default). A file that is missing or not JSON says nothing.
 */
export function readPiCompactionSetting(options: { cwd: string; env: Record<string, string | undefined> }): { enabled: boolean; source: string } {
  const agentDir = options.env["PI_CODING_AGENT_DIR"] || join(options.env["HOME"] || homedir(), ".pi", "agent")
  for (const file of [join(options.cwd, ".pi", "settings.json"), join(agentDir, "settings.json")]) {
    const enabled = compactionEnabled(file)
    if (enabled !== null) return { enabled, source: file }
  }
  return { enabled: true, source: "Pi's default" }
}

function compactionEnabled(file: string): boolean | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"))
  } catch {
    return null
  }
  const compaction = parsed !== null && typeof parsed === "object" ? (parsed as { compaction?: unknown }).compaction : undefined
  const enabled = compaction !== null && typeof compaction === "object" ? (compaction as { enabled?: unknown }).enabled : undefined
  return typeof enabled === "boolean" ? enabled : null
}
