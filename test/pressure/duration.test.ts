import { describe, expect, it } from "vitest"
import { parseDurationMs } from "../../src/pressure/duration.js"

describe("parseDurationMs", () => {
  it.each([
    ["250ms", 250],
    ["0s", 0],
    ["90s", 90_000],
    ["5m", 300_000],
    ["1h", 3_600_000],
    ["60m", 3_600_000],
  ])("reads %s as %i ms", (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms)
  })

  it.each(["", "5", "m", "5 m", "1.5h", "-5m", "5d", "5M", "5min", " 5m"])("throws on %j", (text) => {
    expect(() => parseDurationMs(text)).toThrow(`not a duration: ${text}`)
  })
})
