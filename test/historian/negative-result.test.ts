import { describe, expect, it } from "vitest"
import { extractCanonicalRecord } from "../../src/historian/canonical-record.js"
import { negativeResult } from "../../src/historian/negative-result.js"
import { renderTiers } from "../../src/historian/render-tiers.js"
import { recognizersWithout } from "../../src/session/recognizers.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, failed, text, tool, userMessage } from "../helpers/host-messages.js"
import { tagMessages } from "./trace-episodes.js"

describe("negativeResult", () => {
  it("names what a read-only call found nothing of", () => {
    expect(negativeResult({ output: "", keep: "search", noMatches: false })).toBe("no matches")
    expect(negativeResult({ output: "", keep: "command", noMatches: true })).toBe("no matches")
    expect(negativeResult({ output: "\n  \n", keep: "command", noMatches: false })).toBe("no output")
    // OpenCode's read of an empty file: only the wrapper lines and the end note.
    const emptyRead = "<path>/srv/app/.env.local</path>\n<type>file</type>\n<content>\n\n(End of file - total 0 lines)\n</content>"
    expect(negativeResult({ output: emptyRead, keep: "document", noMatches: false })).toBe("empty")
  })

  it("keeps the tool's own words when its one line says nothing was found", () => {
    expect(negativeResult({ output: "No files found", keep: "search", noMatches: false })).toBe("No files found")
    expect(negativeResult({ output: "No matches found for pattern `retryDelivery`.", keep: "search", noMatches: false })).toBe(
      "No matches found for pattern `retryDelivery`.",
    )
    expect(negativeResult({ output: "nothing to commit, working tree clean\nExit code: 0", keep: "command", noMatches: false })).toBe(
      "nothing to commit, working tree clean",
    )
  })

  it("says nothing of an output that holds anything", () => {
    expect(negativeResult({ output: "src/a.ts:3: retryDelivery()", keep: "search", noMatches: false })).toBeNull()
    expect(negativeResult({ output: "No files found\nsrc/b.ts", keep: "search", noMatches: false })).toBeNull()
    // A sentence that mentions "no results" is content, not an absence.
    expect(negativeResult({ output: "The API returns no results when the cursor is stale.", keep: "document", noMatches: false })).toBeNull()
  })
})

/** An episode whose later work rests on two absences: no caller of a function, and an empty override file. */
function episode(): HostMessage[] {
  return [
    userMessage({ id: "u1", parts: [text("u1-t", "Can we delete the legacy retry helper? Check whether anything still uses it.")] }),
    assistantMessage({
      id: "a1",
      parts: [
        tool("a1-g", "grep", completed({ pattern: "legacyRetry", path: "src" }, "No files found")),
        tool("a1-r", "read", completed({ filePath: "/srv/app/config/overrides.json" }, "<path>/srv/app/config/overrides.json</path>\n<type>file</type>\n<content>\n\n(End of file - total 0 lines)\n</content>")),
        tool("a1-b", "bash", failed({ command: "rg -n legacyRetry test/" }, "Exit code 1")),
        tool("a1-m", "bash", completed({ command: "mkdir -p build/tmp" }, "")),
        text("a1-t", "Nothing references the helper and the overrides file is empty, so deleting it is safe."),
      ],
    }),
  ]
}

function tiers(off: string[] = []) {
  const messages = episode()
  const record = extractCanonicalRecord({ compartmentId: "c3", messages, tagOf: tagMessages(messages), recognizers: recognizersWithout(off) })
  return renderTiers(record)
}

describe("negative results in the tiers", () => {
  it("DENSE lists each absence under its call; a command that changes things and prints nothing adds no line", () => {
    const dense = tiers().dense ?? ""
    expect(dense).toMatch(/grep legacyRetry in src \(ok\)\n {2}No files found/)
    expect(dense).toMatch(/read \/srv\/app\/config\/overrides\.json \(ok\)\n {2}\(empty\)/)
    expect(dense).toMatch(/rg -n legacyRetry test\/ \(ok\)\n {2}\(no matches\)/)
    expect(dense).not.toContain("mkdir -p build/tmp (ok)\n  (no output)")
  })

  it("COMPACT keeps each absence as a key line naming the call", () => {
    const compact = tiers().compact ?? ""
    expect(compact).toContain("grep legacyRetry in src → No files found")
    expect(compact).toContain("read /srv/app/config/overrides.json → empty")
    expect(compact).toContain("rg -n legacyRetry test/ → no matches")
  })

  it("is the negative-results rule's doing", () => {
    const without = tiers(["negative-results"])
    expect(without.compact ?? "").not.toContain("→ empty")
    expect(without.dense ?? "").not.toContain("(empty)")
  })
})
