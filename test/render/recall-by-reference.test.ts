import { describe, expect, it } from "vitest"
import type { Tier } from "../../src/historian/fidelity-types.js"
import type { TermFilter } from "../../src/historian/reference-terms.js"
import { recallByReference, referenceTail, type RecallEpisode } from "../../src/render/recall-by-reference.js"
import { assistantMessage, completed, text, tool, userMessage, wordCounter } from "../helpers/host-messages.js"

/** A reference page read early in a session (a backup tool's manual), as FULL shows it under its tag. */
const MANUAL = [
  "§14§ tool webfetch",
  "  url: https://docs.example.org/backupctl/prune",
  "webfetch output: # backupctl prune",
  "Removes snapshots the retention policy no longer keeps.",
  "- `--keep-daily=N` — daily snapshots to keep (default 7).",
  "- `--keep-weekly=N` — weekly snapshots to keep (default 4).",
  "- `--exclude-from=FILE` — read patterns of paths never to back up from FILE, one per line.",
  "- `--dry-run` — print what would be removed and remove nothing.",
  "Prune holds the repository lock; a second prune waits up to `--lock-wait=SECONDS` (default 60).",
].join("\n")

function episode(seq: number, tier: Tier | "omitted", source: string, shown = `[c${seq}] condensed`): RecallEpisode {
  return { displayId: `c${seq}`, tier, source: () => source, shown: () => shown, key: { seq } }
}

function recall(episodes: RecallEpisode[], tail: string, budgetTokens = 200): string[] {
  const filters = new WeakMap<object, TermFilter>()
  return recallByReference({ episodes, tail, budgetTokens, count: wordCounter.count, filters }).map((line) => `${line.displayId} §${line.tag}§ ${line.text}`)
}

const OTHER = "§30§ assistant: The nightly job now writes its log to /var/log/nightly.log and mails failures."

describe("recallByReference", () => {
  it("brings back the line of a condensed page that the newest conversation names again, with its tag", () => {
    const tail = "Now keep the cache folders out of the backup: an exclude list, read with exclude-from."
    expect(recall([episode(1, "compact", MANUAL), episode(2, "dense", OTHER)], tail)).toEqual([
      "c1 §14§ - `--exclude-from=FILE` — read patterns of paths never to back up from FILE, one per line.",
    ])
  })

  it("recalls nothing for a term most episodes share, or for a line the history shows already", () => {
    const shared = (seq: number): RecallEpisode => episode(seq, "compact", `§${seq}§ assistant: the backup of ${seq} finished; snapshot stored`)
    expect(recall([shared(1), shared(2), shared(3), episode(4, "compact", MANUAL)], "check the snapshot of the backup")).toEqual([])
    const shownLine = "- `--exclude-from=FILE` — read patterns of paths never to back up from FILE, one per line."
    expect(recall([episode(1, "compact", MANUAL, shownLine)], "use exclude-from")).toEqual([])
  })

  it("reads no source of an episode the history shows at FULL", () => {
    expect(recall([episode(1, "full", MANUAL)], "use exclude-from")).toEqual([])
  })

  it("keeps the best lines within the budget, in source order, the same every time", () => {
    const tail = "Set keep-weekly to 8, keep-daily to 14, and lock-wait to 300 on the NAS."
    const all = recall([episode(1, "anchor", MANUAL)], tail)
    expect(all).toEqual([
      "c1 §14§ - `--keep-daily=N` — daily snapshots to keep (default 7).",
      "c1 §14§ - `--keep-weekly=N` — weekly snapshots to keep (default 4).",
      "c1 §14§ Prune holds the repository lock; a second prune waits up to `--lock-wait=SECONDS` (default 60).",
    ])
    expect(recall([episode(1, "anchor", MANUAL)], tail)).toEqual(all)
    const oneLine = wordCounter.count("- c1 §14§: - `--keep-daily=N` — daily snapshots to keep (default 7).")
    expect(recall([episode(1, "anchor", MANUAL)], tail, oneLine)).toHaveLength(1)
    expect(recall([episode(1, "anchor", MANUAL)], tail, 0)).toEqual([])
  })
})

describe("recallByReference on read files", () => {
  it("recalls a line without the number the read tool put before it, once however often it was read", () => {
    const numbered = ["§40§ tool read", "12→export const SNAPSHOT_LOCK_TIMEOUT = 90", "§41§ tool read", "00012| export const SNAPSHOT_LOCK_TIMEOUT = 90"].join("\n")
    expect(recall([episode(3, "compact", numbered), episode(4, "dense", OTHER)], "raise snapshot_lock_timeout")).toEqual([
      "c3 §40§ export const SNAPSHOT_LOCK_TIMEOUT = 90",
    ])
  })
})

describe("referenceTail", () => {
  it("reads text and the short values of tool inputs, not the code an edit writes", () => {
    const code = `export const RETENTION = {\n${"  daily: 7,\n".repeat(30)}}`
    const messages = [
      userMessage({ id: "u1", created: 1, parts: [text("t1", "Keep eight weekly snapshots")] }),
      assistantMessage({
        id: "a1",
        created: 2,
        parts: [tool("k1", "edit", completed({ filePath: "src/retention.ts", newString: code }, "Edit applied."))],
      }),
    ]
    expect(referenceTail(messages, 1_000)).toBe("Keep eight weekly snapshots\nsrc/retention.ts")
    expect(referenceTail(messages, 10)).toBe("tention.ts")
  })
})
