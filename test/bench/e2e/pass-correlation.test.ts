import { describe, expect, it } from "vitest"
import { correlatePasses } from "../../../bench/e2e/pass-correlation.js"
import type { RequestRow } from "../../../bench/e2e/request-metrics.js"

const row = (n: number, prefixBreak: boolean | null): RequestRow => ({
  n,
  turn: 0,
  promptTokens: 100,
  bytes: 400,
  prefixShare: prefixBreak === null ? null : 0.9,
  prefixBreak,
  tokensAfterPrefix: 10,
  sharedPrefixTokens: 90,
})

describe("correlatePasses", () => {
  it("counts the prefix breaks that fall on execute passes and on replays", () => {
    const rows = [row(2, null), row(3, false), row(4, true), row(5, false), row(6, true)]
    const decisions = ["replay", "replay", "execute", "execute", "replay"]
    expect(correlatePasses({ rows, decisions })).toEqual({
      transformPasses: 5,
      executePasses: 2,
      breaksOnExecute: 1,
      breaksOnReplay: 1,
    })
  })

  it("gives up when requests and passes cannot be paired one to one", () => {
    expect(correlatePasses({ rows: [row(2, null)], decisions: [] })).toBeNull()
  })
})
