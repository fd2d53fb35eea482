import { describe, expect, it } from "vitest"
import { PluginError } from "../../src/plugin-error.js"
import { BUSY_RETRY_MAX_MS, createStoreGate, OPEN_RETRY_FIRST_MS, OPEN_RETRY_MAX_MS } from "../../src/host/store-gate.js"

const busy = (): Error => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" })
const broken = (): Error => new PluginError("db_open_failed", "/s.db: file is not a database")

/** The waits a gate gives `count` consecutive failures made by `make`, each noted when the previous wait ended. */
function waits(make: () => Error, count: number): number[] {
  const gate = createStoreGate()
  let now = 0
  const result: number[] = []
  for (let index = 0; index < count; index += 1) {
    gate.fail(make(), now)
    const retryAt = gate.failure()?.retryAt ?? now
    result.push(retryAt - now)
    now = retryAt
  }
  return result
}

describe("createStoreGate", () => {
  it("skips a store that could not be used until the backoff has passed, then lets it be tried", () => {
    const gate = createStoreGate()
    const error = broken()
    expect(gate.blocking(0)).toBeNull()
    gate.fail(error, 10_000)
    expect(gate.blocking(10_000 + OPEN_RETRY_FIRST_MS - 1)).toBe(error)
    expect(gate.noWait(10_000)).toBe(false)
    expect(gate.blocking(10_000 + OPEN_RETRY_FIRST_MS)).toBeNull()
    expect(gate.failure()).toEqual({ error, kind: "unusable", since: 10_000, retryAt: 11_000, failures: 1 })
  })

  it("lets a busy store be tried without waiting during its backoff, and with waiting after it", () => {
    const gate = createStoreGate()
    gate.fail(busy(), 10_000)
    expect(gate.blocking(10_500)).toBeNull()
    expect(gate.noWait(10_500)).toBe(true)
    expect(gate.noWait(11_000)).toBe(false)
  })

  it("keeps the backoff as it is when a try during it fails too", () => {
    const gate = createStoreGate()
    gate.fail(busy(), 10_000)
    gate.fail(busy(), 10_400)
    expect(gate.failure()).toMatchObject({ failures: 1, retryAt: 11_000 })
    gate.fail(busy(), 11_000)
    expect(gate.failure()).toMatchObject({ failures: 2, retryAt: 13_000 })
  })

  it("doubles the wait per consecutive failure, up to 5 s for a busy store and 30 s for an unusable one", () => {
    expect(waits(busy, 5)).toEqual([1_000, 2_000, 4_000, BUSY_RETRY_MAX_MS, BUSY_RETRY_MAX_MS])
    expect(waits(broken, 7)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, OPEN_RETRY_MAX_MS, OPEN_RETRY_MAX_MS])
  })

  it("counts the same failure noted twice once (the hook that got it at once reports it again)", () => {
    const gate = createStoreGate()
    const error = broken()
    gate.fail(error, 0)
    gate.fail(error, 500)
    expect(gate.failure()).toMatchObject({ failures: 1, retryAt: 1_000, kind: "unusable" })
  })

  it("starts over after a success, and remembers since when the store has been failing until then", () => {
    const gate = createStoreGate()
    gate.fail(busy(), 0)
    gate.fail(busy(), 1_000)
    expect(gate.failure()).toMatchObject({ since: 0, failures: 2 })
    gate.succeed()
    expect(gate.failure()).toBeNull()
    gate.fail(busy(), 5_000)
    expect(gate.failure()).toMatchObject({ since: 5_000, failures: 1, retryAt: 6_000 })
  })
})
