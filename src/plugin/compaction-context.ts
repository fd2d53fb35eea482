import type { SessionState } from "../session/session-state.js"
import type { Database } from "../store/driver.js"
import { readUserDirectives } from "../store/raw-repository.js"
import { tagListText } from "../reduce/parse-drop-ranges.js"

/** The most user text handed to OpenCode's summarizer, in characters (its own history excerpt is ~2,000 per item). */
const DIRECTIVES_BUDGET_CHARS = 12_000

/**
 * What magic-context adds to OpenCode's own compaction prompt (`experimental.session.compacting`), when the host
 * compacts anyway: the user's own messages verbatim (constraints and directives must survive the summary; they
 * are never dropped) and which tagged items were already dropped as spent, so the summary does not try to
 * preserve them. Returns null when there is nothing to add.
 */
export function compactionContext(options: { db: Database; state: SessionState }): string | null {
  const directives = readUserDirectives(options.db, options.state.sessionId)
  const dropped = [...options.state.tagsByNumber.values()].filter((tag) => tag.status === "dropped").map((tag) => tag.tag)
  if (directives.length === 0 && dropped.length === 0) return null
  const lines = ["magic-context (the session's raw transcript is kept in full outside this summary):"]
  if (directives.length > 0) {
    lines.push("Keep these user instructions and constraints verbatim in the summary, newest last:")
    let used = 0
    const kept: string[] = []
    for (const text of [...directives].reverse()) {
      if (used + text.length > DIRECTIVES_BUDGET_CHARS) {
        // The newest instruction is always kept, cut to the budget if it alone is larger.
        if (kept.length === 0) kept.unshift(`${text.slice(0, DIRECTIVES_BUDGET_CHARS)} [cut: ${text.length} characters in all]`)
        break
      }
      kept.unshift(text)
      used += text.length
    }
    for (const text of kept) lines.push(`- ${text.replace(/\s+/g, " ").trim()}`)
  }
  if (dropped.length > 0) lines.push(`Items already dropped as spent (no need to preserve): ${tagListText(dropped)}.`)
  return lines.join("\n")
}
