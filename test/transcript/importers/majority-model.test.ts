import { describe, expect, it } from "vitest"
import { pickMajorityModel } from "../../../src/transcript/importers/majority-model.js"

const A = { providerID: "p", modelID: "a" }
const B = { providerID: "p", modelID: "b" }

describe("pickMajorityModel", () => {
  it.each([
    { name: "no models", models: [], expected: null },
    { name: "the most frequent model", models: [A, B, B], expected: B },
    { name: "the first seen on a tie", models: [B, A, A, B], expected: B },
  ])("returns $name", ({ models, expected }) => {
    expect(pickMajorityModel(models)).toEqual(expected)
  })
})
