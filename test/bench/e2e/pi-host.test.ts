import { describe, expect, it } from "vitest"
import { piHostOf, piHostSuffix } from "../../../bench/e2e/pi-host.js"
import { PI_0_73, PI_1 } from "../../e2e/harness/pi-harness.js"

describe("piHostOf", () => {
  it("runs Pi 1.x when unset, empty or 1", () => {
    for (const value of [undefined, "", "1"]) expect(piHostOf(value)).toBe(PI_1)
  })

  it("runs Pi 0.73 when asked for it", () => {
    expect(piHostOf("0.73")).toBe(PI_0_73)
  })

  it("refuses a value that names no installed Pi instead of falling back", () => {
    expect(() => piHostOf("0.72")).toThrow(/BENCH_PI_HOST="0.72"/)
  })

  it("names Pi 0.73's results apart from the default's", () => {
    expect(piHostSuffix(PI_1)).toBe("")
    expect(piHostSuffix(PI_0_73)).toBe("-pi-0.73")
  })
})
