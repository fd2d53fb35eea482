import { describe, expect, it } from "vitest"
import { patchFiles } from "../../src/session/patch-text.js"

const lines = (...text: string[]): string => text.join("\n")

describe("patchFiles: OpenCode's apply_patch format", () => {
  it("reads an added file with its lines", () => {
    const patch = lines(
      "*** Begin Patch",
      "*** Add File: src/queue/retry-policy.ts",
      "+export const MAX_ATTEMPTS = 6",
      "+export const BACKOFF_BASE_MS = 500",
      "+",
      "*** End Patch",
    )
    expect(patchFiles(patch)).toEqual([
      {
        path: "src/queue/retry-policy.ts",
        operation: "add",
        added: ["export const MAX_ATTEMPTS = 6", "export const BACKOFF_BASE_MS = 500", ""],
        removed: [],
      },
    ])
  })

  it("reads an update's hunks: added and removed lines, not context or @@ lines", () => {
    const patch = lines(
      "*** Begin Patch",
      "*** Update File: src/queue/worker.ts",
      "@@ export async function deliver(job: Job) {",
      "   const started = Date.now()",
      "-  const timeout = 10_000",
      "+  const timeout = DELIVERY_TIMEOUT_MS",
      "@@ function backoff(attempt: number) {",
      "-  return 1000 * attempt",
      "+  return BACKOFF_BASE_MS * 2 ** attempt",
      "*** End of File",
      "*** End Patch",
    )
    expect(patchFiles(patch)).toEqual([
      {
        path: "src/queue/worker.ts",
        operation: "update",
        added: ["  const timeout = DELIVERY_TIMEOUT_MS", "  return BACKOFF_BASE_MS * 2 ** attempt"],
        removed: ["  const timeout = 10_000", "  return 1000 * attempt"],
      },
    ])
  })

  it("reads a deleted file", () => {
    expect(patchFiles("*** Begin Patch\n*** Delete File: src/queue/legacy-retry.ts\n*** End Patch")).toEqual([
      { path: "src/queue/legacy-retry.ts", operation: "delete", added: [], removed: [] },
    ])
  })

  it("names a moved file by its new path", () => {
    const patch = lines(
      "*** Begin Patch",
      "*** Update File: src/queue/retry.ts",
      "*** Move to: src/queue/retry-worker.ts",
      "@@",
      "-export function retry() {}",
      "+export function retryWorker() {}",
      "*** End Patch",
    )
    expect(patchFiles(patch)).toEqual([
      {
        path: "src/queue/retry-worker.ts",
        operation: "update",
        added: ["export function retryWorker() {}"],
        removed: ["export function retry() {}"],
      },
    ])
  })

  it("reads several files in order, each with its own lines", () => {
    const patch = lines(
      "*** Begin Patch",
      "*** Add File: docs/retries.md",
      "+Deliveries are retried at most 6 times.",
      "*** Update File: src/queue/worker.ts",
      "@@",
      "-const attempts = 3",
      "+const attempts = MAX_ATTEMPTS",
      "*** Delete File: src/queue/old.ts",
      "*** Add File: test/queue/worker.test.ts",
      '+import { describe } from "vitest"',
      "*** End Patch",
    )
    expect(patchFiles(patch).map((file) => [file.path, file.operation, file.added, file.removed])).toEqual([
      ["docs/retries.md", "add", ["Deliveries are retried at most 6 times."], []],
      ["src/queue/worker.ts", "update", ["const attempts = MAX_ATTEMPTS"], ["const attempts = 3"]],
      ["src/queue/old.ts", "delete", [], []],
      ["test/queue/worker.test.ts", "add", ['import { describe } from "vitest"'], []],
    ])
  })

  it("trims spaces and a carriage return around a header's path", () => {
    const patch = "*** Begin Patch\r\n*** Add File:   src/a b.ts  \r\n+x\r\n*** End Patch\r\n"
    expect(patchFiles(patch).map((file) => file.path)).toEqual(["src/a b.ts"])
  })

  it("keeps a removed line that itself starts with dashes (an SQL comment) as removed", () => {
    const patch = lines(
      "*** Begin Patch",
      "*** Update File: migrations/0007_retry.sql",
      "@@",
      "--- retries are unlimited for now",
      "+-- retries are capped at 6 (see docs/retries.md)",
      "*** End Patch",
    )
    expect(patchFiles(patch)).toEqual([
      {
        path: "migrations/0007_retry.sql",
        operation: "update",
        added: ["-- retries are capped at 6 (see docs/retries.md)"],
        removed: ["-- retries are unlimited for now"],
      },
    ])
  })
})

describe("patchFiles: unified diffs", () => {
  it("reads a git diff with a/ and b/ prefixes", () => {
    const diff = lines(
      "diff --git a/lib/retry.js b/lib/retry.js",
      "index 3b18e51..a9f3c2d 100644",
      "--- a/lib/retry.js",
      "+++ b/lib/retry.js",
      "@@ -1,4 +1,4 @@",
      " // retry policy",
      "-const MAX_ATTEMPTS = 3",
      "+const MAX_ATTEMPTS = 6",
      " module.exports = { MAX_ATTEMPTS }",
      "",
    )
    expect(patchFiles(diff)).toEqual([
      { path: "lib/retry.js", operation: "update", added: ["const MAX_ATTEMPTS = 6"], removed: ["const MAX_ATTEMPTS = 3"] },
    ])
  })

  it("reads a plain diff -u with timestamps after a tab", () => {
    const diff = lines(
      "--- lib/retry.js\t2026-03-02 10:00:00.000000000 +0100",
      "+++ lib/retry.js\t2026-03-02 10:05:00.000000000 +0100",
      "@@ -1 +1 @@",
      "-a",
      "+b",
    )
    expect(patchFiles(diff)).toEqual([{ path: "lib/retry.js", operation: "update", added: ["b"], removed: ["a"] }])
  })

  it("reads a new file (--- /dev/null) as added", () => {
    const diff = lines(
      "diff --git a/lib/backoff.js b/lib/backoff.js",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/lib/backoff.js",
      "@@ -0,0 +1,2 @@",
      "+const BASE_MS = 500",
      "+module.exports = { BASE_MS }",
    )
    expect(patchFiles(diff)).toEqual([
      { path: "lib/backoff.js", operation: "add", added: ["const BASE_MS = 500", "module.exports = { BASE_MS }"], removed: [] },
    ])
  })

  it("reads a deleted file (+++ /dev/null) under its old path, not as lines of the file before it", () => {
    const diff = lines(
      "--- a/lib/retry.js",
      "+++ b/lib/retry.js",
      "@@ -1 +1 @@",
      "-const MAX_ATTEMPTS = 3",
      "+const MAX_ATTEMPTS = 6",
      "diff --git a/lib/legacy.js b/lib/legacy.js",
      "deleted file mode 100644",
      "--- a/lib/legacy.js",
      "+++ /dev/null",
      "@@ -1,2 +0,0 @@",
      "-module.exports = {}",
      "-// legacy",
    )
    expect(patchFiles(diff)).toEqual([
      { path: "lib/retry.js", operation: "update", added: ["const MAX_ATTEMPTS = 6"], removed: ["const MAX_ATTEMPTS = 3"] },
      { path: "lib/legacy.js", operation: "delete", added: [], removed: ["module.exports = {}", "// legacy"] },
    ])
  })

  it("reads several files of one diff, each with its own lines", () => {
    const diff = lines(
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -1 +1 @@",
      "-export const A = 1",
      "+export const A = 2",
      "--- a/src/b.ts",
      "+++ b/src/b.ts",
      "@@ -3 +3,2 @@",
      "+export const B = 3",
      "+export const C = 4",
    )
    expect(patchFiles(diff).map((file) => [file.path, file.added, file.removed])).toEqual([
      ["src/a.ts", ["export const A = 2"], ["export const A = 1"]],
      ["src/b.ts", ["export const B = 3", "export const C = 4"], []],
    ])
  })

  it("reads the next file of a model-written diff whose hunk counts are wrong", () => {
    const diff = lines(
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -1,40 +1,40 @@",
      "-export const A = 1",
      "+export const A = 2",
      "--- a/src/b.ts",
      "+++ b/src/b.ts",
      "@@ -1 +1 @@",
      "+export const B = 3",
    )
    expect(patchFiles(diff).map((file) => [file.path, file.added])).toEqual([
      ["src/a.ts", ["export const A = 2"]],
      ["src/b.ts", ["export const B = 3"]],
    ])
  })

  it("keeps hunk lines that look like headers inside a hunk (a removed `-- x` and an added `++ x`)", () => {
    const diff = lines("--- a/notes.sql", "+++ b/notes.sql", "@@ -1,2 +1,2 @@", "--- old note", "+++ counter", " keep")
    expect(patchFiles(diff)).toEqual([{ path: "notes.sql", operation: "update", added: ["++ counter"], removed: ["-- old note"] }])
  })
})

describe("patchFiles: malformed text", () => {
  it.each([
    ["empty text", ""],
    ["prose with no headers", "I would change the retry count to 6 and add a backoff.\n- first\n+ second"],
    ["a header with no path", "*** Begin Patch\n*** Add File:\n+x\n*** End Patch"],
    ["only an end marker", "*** End Patch"],
    ["a move with no file before it", "*** Move to: src/x.ts\n+y"],
  ])("reads nothing from %s", (_, text) => {
    expect(patchFiles(text)).toEqual([])
  })

  it("reads a truncated patch as far as it goes", () => {
    const patch = "*** Begin Patch\n*** Update File: src/worker.ts\n@@\n-const a = 1\n+const a = 2\n*** Add File: src/ne"
    expect(patchFiles(patch)).toEqual([
      { path: "src/worker.ts", operation: "update", added: ["const a = 2"], removed: ["const a = 1"] },
      { path: "src/ne", operation: "add", added: [], removed: [] },
    ])
  })

  it("survives binary junk and a binary diff, and reads the text file beside it", () => {
    const junk = Array.from({ length: 2_000 }, (_, index) => String.fromCharCode((index * 7919) % 65_536)).join("")
    const diff = lines(
      "diff --git a/assets/logo.png b/assets/logo.png",
      "Binary files a/assets/logo.png and b/assets/logo.png differ",
      "GIT binary patch",
      "literal 1024",
      "zcmV;",
      junk,
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "+const A = 2",
    )
    const files = patchFiles(diff)
    expect(files.at(-1)).toEqual({ path: "src/a.ts", operation: "update", added: ["const A = 2"], removed: [] })
  })

  it("reads a 10 MB patch in bounded time and size", () => {
    const body = "+const line = 'the same added line over and over again'\n".repeat(180_000)
    const patch = `*** Begin Patch\n*** Add File: src/huge.ts\n${body}*** Add File: src/after-the-cut.ts\n+x\n*** End Patch`
    expect(patch.length).toBeGreaterThan(10_000_000)
    const started = performance.now()
    const files = patchFiles(patch)
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(files.map((file) => file.path)).toEqual(["src/huge.ts"])
    const added = files[0]?.added ?? []
    expect(added.length).toBeGreaterThan(1_000)
    expect(added.join("\n").length).toBeLessThan(500_000)
  })

  it("never throws on random text", () => {
    let seed = 7
    const next = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed
    }
    const alphabet = ["*** Add File: ", "*** Update File: ", "*** Move to: ", "+++ ", "--- ", "@@", "+", "-", "\n", "a/", "b/", "/dev/null", "x", "\t", " "]
    for (let round = 0; round < 200; round += 1) {
      const text = Array.from({ length: 60 }, () => alphabet[next() % alphabet.length]).join("")
      expect(() => patchFiles(text)).not.toThrow()
      for (const file of patchFiles(text)) expect(file.path.trim()).not.toBe("")
    }
  })
})
