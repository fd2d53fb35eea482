import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createVitest } from "vitest/node"
import { REPO_ROOT } from "./e2e/harness/opencode-harness.js"

/** The project each test file runs in, as Vitest resolves vitest.config.ts (file -> project names). */
async function projectsByFile(env: Record<string, string | undefined>): Promise<Map<string, string[]>> {
  const saved = process.env["MAGIC_CONTEXT_FAULT_SUITE"]
  process.env["MAGIC_CONTEXT_FAULT_SUITE"] = env["MAGIC_CONTEXT_FAULT_SUITE"]
  if (env["MAGIC_CONTEXT_FAULT_SUITE"] === undefined) delete process.env["MAGIC_CONTEXT_FAULT_SUITE"]
  const vitest = await createVitest("test", { watch: false, root: REPO_ROOT, config: join(REPO_ROOT, "vitest.config.ts") })
  try {
    const byFile = new Map<string, string[]>()
    for (const spec of await vitest.globTestSpecifications()) {
      const file = relative(REPO_ROOT, spec.moduleId)
      byFile.set(file, [...(byFile.get(file) ?? []), spec.project.name])
    }
    return byFile
  } finally {
    await vitest.close()
    if (saved === undefined) delete process.env["MAGIC_CONTEXT_FAULT_SUITE"]
    else process.env["MAGIC_CONTEXT_FAULT_SUITE"] = saved
  }
}

/** Every `*.test.ts` under test/ (outside node_modules), relative to the repository. */
function testFiles(): string[] {
  return readdirSync(join(REPO_ROOT, "test"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".test.ts"))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)))
    .filter((file) => !file.split("/").includes("node_modules"))
    .sort()
}

const isFault = (file: string): boolean => file.startsWith("test/faults/") || file.startsWith("test/e2e/faults/")
const isSlow = (file: string): boolean => file.endsWith(".slow.test.ts")
const isFull = (file: string): boolean => file.endsWith(".full.test.ts")

describe("vitest.config.ts", () => {
  afterEach(() => {
    expect(process.env["MAGIC_CONTEXT_FAULT_SUITE"]).toBeUndefined()
  })

  it("puts every test file in one project, so a file named on the command line runs once", async () => {
    const byFile = await projectsByFile({})
    expect([...byFile.keys()].sort()).toEqual(testFiles())
    expect([...byFile].filter(([, projects]) => projects.length !== 1)).toEqual([])
  })

  it("runs in `npm test` (unit and e2e) every file but the slow and the full ones, fault probes included", async () => {
    const byFile = await projectsByFile({})
    const npmTest = [...byFile].filter(([, projects]) => projects.includes("unit") || projects.includes("e2e")).map(([file]) => file)
    expect(npmTest.sort()).toEqual(testFiles().filter((file) => !isSlow(file) && !isFull(file)))
    expect(npmTest.filter(isFault).length).toBeGreaterThan(5)
  })

  it("runs every full gate, and nothing else, in the full project under `npm run test:full`", async () => {
    const byFile = await projectsByFile({})
    const full = [...byFile].filter(([, projects]) => projects.includes("full")).map(([file]) => file)
    expect(full.sort()).toEqual(testFiles().filter(isFull))
    expect(full).toContain("test/lab/lab-regression.full.test.ts")
  })

  it("runs the whole fault suite, fast and slow, in the faults project under `npm run test:faults`", async () => {
    const byFile = await projectsByFile({ MAGIC_CONTEXT_FAULT_SUITE: "1" })
    const faults = [...byFile].filter(([, projects]) => projects.includes("faults")).map(([file]) => file)
    expect(faults.sort()).toEqual(testFiles().filter(isFault))
    expect(faults.filter(isSlow).length).toBeGreaterThan(0)
  })

  it("keeps the unit files free of hoisted module mocks, which a shared module graph would not apply", async () => {
    const byFile = await projectsByFile({})
    const unit = [...byFile].filter(([, projects]) => projects.includes("unit")).map(([file]) => file)
    expect(unit).toContain("test/store/driver-probe.test.ts")
    const hoisted = unit.filter((file) => /\bvi\.mock\(/.test(readFileSync(join(REPO_ROOT, file), "utf8")))
    expect(hoisted).toEqual([])
  })
})
