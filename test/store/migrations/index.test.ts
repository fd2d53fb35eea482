import { describe, expect, it } from "vitest"
import { assertMonotonic, MIGRATIONS, SCHEMA_VERSION, type Migration } from "../../../src/store/migrations/index.js"

const up = (): void => {}
const registry = (...versions: number[]): Migration[] => versions.map((version) => ({ version, up }))

describe("assertMonotonic", () => {
  it.each([[[]], [[1]], [[1, 2]], [[1, 2, 3, 4]]])("accepts the registry %j", (versions) => {
    expect(() => assertMonotonic(registry(...versions))).not.toThrow()
  })

  it.each([
    [[1, 3], /position 1: version 3/],
    [[2], /position 0: version 2/],
    [[0, 1], /position 0: version 0/],
    [[1, 2, 2], /position 2: version 2/],
    [[2, 1], /position 0: version 2/],
  ])("rejects the registry %j", (versions, message) => {
    expect(() => assertMonotonic(registry(...versions))).toThrow(message)
  })

  it("accepts the shipped registry", () => {
    expect(() => assertMonotonic(MIGRATIONS)).not.toThrow()
  })
})

describe("SCHEMA_VERSION", () => {
  it("is the version of the last migration", () => {
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.at(-1)?.version)
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1)
  })
})
