import { expect } from "vitest"
import { IDENTIFIERS_LABEL, INVARIANT_LABEL } from "../../../src/historian/render-tiers.js"

/**
 * Asserts that a compartment's stored tier text is in the history as `composeHistory` shows it, starting at or after
 * `from`, and returns where it ends. The history says each thing once: an `Invariant:` line the pinned ledger already
 * holds is left out, and an identifier an older episode listed is not listed again (both unit-tested in
 * compose-history.test.ts). So every other line must be there verbatim and in order, the invariant's words must be in
 * the history, and every identifier of the `Identifiers:` line must be in it.
 */
export function expectEpisodeShown(history: string, tierText: string, from = 0, label = ""): number {
  const lines = tierText.split("\n")
  let cursor = from
  for (const line of lines) {
    if (line.startsWith(`${INVARIANT_LABEL}: `)) {
      expect(history, `${label} invariant`).toContain(line.slice(INVARIANT_LABEL.length + 2).replace(/…$/, ""))
      continue
    }
    if (line.startsWith(`${IDENTIFIERS_LABEL}: `)) {
      for (const identifier of line.slice(IDENTIFIERS_LABEL.length + 2).split(", ")) {
        expect(history, `${label} identifier`).toContain(identifier)
      }
      continue
    }
    const at = history.indexOf(line, cursor)
    expect(at, `${label}: ${line.slice(0, 80)}`).toBeGreaterThanOrEqual(cursor)
    cursor = at + line.length
  }
  return cursor
}
