import { describe, expect, it } from "vitest"
import { costTable, savingPercent, type CostRow } from "../../../bench/e2e/cost-table.js"

describe("savingPercent", () => {
  it("is the share of the host alone's cost saved, negative when the plugin costs more", () => {
    expect(savingPercent(80, 100)).toBeCloseTo(20)
    expect(savingPercent(110, 100)).toBeCloseTo(-10)
    expect(savingPercent(5, 0)).toBeNull()
  })
})

describe("costTable", () => {
  it("writes one row per window, agent and list with both costs, the saving, breaks, compactions and the engine's prices", () => {
    const row: CostRow = {
      window: "32k",
      agent: "cooperative",
      list: "anthropic-1h",
      hostAlone: { cost: 116_034.4, prefixBreaks: 1, compactions: 1 },
      withPlugin: { cost: 92_827.5, prefixBreaks: 3, compactions: 0 },
      engine: { cacheWrite: 2, cachedRead: 0.1 },
    }
    const lines = costTable({ host: "Pi", rows: [row, { ...row, list: "openai", engine: null }] })
    expect(lines[0]).toContain("| Pi alone | Pi + magic-context | saving |")
    expect(lines[2]).toBe("| 32k | cooperative | anthropic-1h | 116,034 | 92,828 | 20.0% | 1 / 3 | 1 / 0 | write 2×, read 0.1× |")
    expect(lines[3]).toContain("| openai |")
    expect(lines[3]?.endsWith("| – |")).toBe(true)
    expect(lines).toHaveLength(4)
  })
})
