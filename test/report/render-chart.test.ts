import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { digests, renderExamples } from "./render-examples.js"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))

describe("renderChart", () => {
  it("renders the same bytes under Bun (OpenCode's runtime) as under Node, and again in the same process", async () => {
    const node = digests(await renderExamples())
    expect(digests(await renderExamples())).toEqual(node)
    const bun = spawnSync(join(ROOT, "node_modules", ".bin", "opencode"), [join(ROOT, "test", "report", "render-examples.ts")], {
      cwd: ROOT,
      env: { ...process.env, BUN_BE_BUN: "1" },
      encoding: "utf8",
      timeout: 60_000,
    })
    expect(bun.status, bun.stderr).toBe(0)
    expect(JSON.parse(bun.stdout.trim())).toEqual(node)
  })
})
