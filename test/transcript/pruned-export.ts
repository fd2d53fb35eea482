import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** The real export of `fixtures/opencode-session` (17 messages; the failing test run is message 5). */
const SESSION = fileURLToPath(new URL("../../fixtures/opencode-session/session.json", import.meta.url))

/**
 * The pruning applied to that export, as OpenCode's `compaction.prune` does it: when the loop of the first user turn
 * has ended (message 10 completed at ...921686) and before the next user message (11, created at ...925203), it sets
 * `state.time.compacted` on an old completed tool output, here the failing `node test/slugify.test.js` run.
 */
export const PRUNED = {
  message: 5,
  at: 1_795_981_922_000,
  /** A line only that output holds. */
  exact: "Expected values to be strictly equal",
  /** The first user message after the pruning. */
  nextUser: 11,
} as const

/** The export text with the failing test run's output pruned at PRUNED.at. */
export function prunedSessionExport(): string {
  const document = JSON.parse(readFileSync(SESSION, "utf8")) as {
    messages: { parts: { type: string; state?: { status: string; time: Record<string, number> } }[] }[]
  }
  const part = document.messages[PRUNED.message]?.parts.find((candidate) => candidate.type === "tool")
  if (!part?.state || part.state.status !== "completed") throw new Error("the fixture changed: message 5 has no finished tool")
  part.state.time = { ...part.state.time, compacted: PRUNED.at }
  return JSON.stringify(document, null, 2)
}
