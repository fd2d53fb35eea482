import { describe, expect, it } from "vitest"
import { toEpochMs } from "../../../src/transcript/importers/epoch-ms.js"

describe("toEpochMs", () => {
  it.each([
    { value: 1763681581544, expected: 1763681581544 },
    { value: "2026-02-11T20:54:57.010Z", expected: Date.UTC(2026, 1, 11, 20, 54, 57, 10) },
    { value: "2025-04-30T17:56:40.640800", expected: Date.UTC(2025, 3, 30, 17, 56, 40, 640) },
    { value: "2025-04-30T17:56:40+02:00", expected: Date.UTC(2025, 3, 30, 15, 56, 40) },
    { value: "yesterday", expected: null },
    { value: "", expected: null },
    { value: Number.NaN, expected: null },
    { value: undefined, expected: null },
  ])("converts $value", ({ value, expected }) => {
    expect(toEpochMs(value)).toBe(expected)
  })
})
