import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"
import { tracePath } from "../transcript/trace-path.js"

const SWE_AGENT = tracePath("sweagent-gpt4-pydicom-1458.traj")

const dirs = createTempDirs()
let home: TempHome

beforeEach(() => {
  home = createTempHome(dirs)
})

afterEach(() => {
  dirs.cleanup()
})

const labCost = (args: string[]) => runCliCaptured(["lab", "cost", ...args], { env: home.env, cwd: home.root })

type Row = {
  fixture: string | null
  window: number
  list: string
  hostAloneAs: string
  calls: number
  hostAloneCost: number
  pluginCost: number
  saving: number | null
  breaks: number
  hostAloneBreaks: number
  executePasses: number
  pluginRequestTokens: number
  pluginCostsMore: boolean
}

describe("magic-context lab cost", () => {
  it("prints a row per window and list and their totals; two runs print the same bytes", async () => {
    const args = [SWE_AGENT, "--window", "8000,1000000", "--price-list", "anthropic-5m,openai", "--json"]
    const first = await labCost(args)
    const second = await labCost(args)
    expect(first.code).toBe(0)
    expect(second.io.stdoutText()).toBe(first.io.stdoutText())
    const json = JSON.parse(first.io.stdoutText()) as { settings: Record<string, unknown>; rows: Row[]; totals: Row[] }
    expect(json.settings).toMatchObject({ windows: [8000, 1000000], priceLists: ["anthropic-5m", "openai"] })
    expect(json.rows.map((row) => `${row.window} ${row.list}`)).toEqual(["8000 anthropic-5m", "8000 openai", "1000000 anthropic-5m", "1000000 openai"])
    expect(json.totals.map((row) => row.fixture)).toEqual([null, null, null, null])
    for (const row of json.rows) {
      // The host alone only appends (unreduced) or truncates (its prompts overflow the window).
      expect(row.hostAloneAs).toBe(row.window === 8000 ? "truncation" : "unreduced")
      if (row.hostAloneAs === "unreduced") expect(row.hostAloneBreaks).toBe(0)
      expect(row.calls).toBeGreaterThan(0)
      // The plugin's guidance and tool definitions ride on every request it makes.
      expect(row.pluginRequestTokens).toBeGreaterThan(400)
    }
    // The same tokens cost more under a list with a write premium.
    const [fiveMinutes, openai] = json.rows.filter((row) => row.window === 1_000_000)
    expect(fiveMinutes?.hostAloneCost).toBeGreaterThan(openai?.hostAloneCost ?? Infinity)
    // In a window it never fills the default folds nothing.
    expect(json.rows.filter((row) => row.window === 1_000_000).map((row) => row.executePasses)).toEqual([0, 0])
  })

  it("prints the tables and says where the plugin costs more", async () => {
    const result = await labCost([SWE_AGENT, "--window", "1000000", "--price-list", "openai"])
    expect(result.code).toBe(0)
    const text = result.io.stdoutText()
    expect(text).toContain("openai: OpenAI automatic prompt caching")
    expect(text).toMatch(/^transcript +window +price list +host alone as/m)
    expect(text).toMatch(/The plugin's guidance and tool definitions add \d+ tokens to each of its requests/)
    expect(text).toMatch(/^total +1000000 +openai +unreduced/m)
    expect(text).toMatch(/The plugin costs (no more than the host alone in any row|more than the host alone in \d+ of 1 rows)/)
  })

  it.each([
    [[], "lab cost needs at least one transcript file"],
    [[SWE_AGENT, "--price-list", "anthropic-2h"], '--price-list: unknown "anthropic-2h"'],
    [[SWE_AGENT, "--window", "abc"], "--window"],
  ])("refuses %j", async (args, message) => {
    const result = await labCost(args)
    expect(result.code).toBe(2)
    expect(result.io.stderrText()).toContain(message)
  })
})
