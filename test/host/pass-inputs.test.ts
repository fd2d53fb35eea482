import { afterAll, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { createErrorLog } from "../../src/host/error-log.js"
import { createHostRuntime } from "../../src/host/host-runtime.js"
import { hostWindows } from "../../src/host/pass-inputs.js"

const runtime = createHostRuntime({
  config: defaultConfig(),
  configDiagnostics: [],
  errors: createErrorLog({ now: () => 0, hostLog: () => undefined }),
  faults: new Set(),
  env: {},
  now: () => 0,
})
afterAll(() => runtime.dispose())

describe("hostWindows", () => {
  it("resolves a model's window once while the host tells the same limits and API, again when they change", () => {
    const windowOf = hostWindows(runtime)
    const model = (context: number, hostApi: string | null = null) => ({ providerID: "anthropic", modelID: "claude-sonnet-4-5", hostLimits: { context, output: 8_000 }, hostApi })
    const first = windowOf(model(200_000))
    expect(windowOf(model(200_000))).toBe(first)
    const larger = windowOf(model(1_000_000))
    expect(larger).not.toBe(first)
    expect(larger.usableTokens).toBe(1_000_000 - 8_000)
    expect(windowOf(model(1_000_000, "@ai-sdk/anthropic"))).not.toBe(larger)
    expect(windowOf({ providerID: "openai", modelID: "gpt-5", hostLimits: { context: 200_000, output: 8_000 }, hostApi: null })).not.toBe(first)
    expect(windowOf({ ...model(200_000), hostLimits: null }).source).toBe("fallback")
  })
})
