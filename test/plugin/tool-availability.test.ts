import { describe, expect, it } from "vitest"
import { reduceToolAvailable } from "../../src/plugin/tool-availability.js"

describe("reduceToolAvailable", () => {
  it.each<[string, unknown, Record<string, boolean> | undefined, boolean]>([
    ["no host config", undefined, undefined, true],
    ["a config that is not an object", "nonsense", undefined, true],
    ["a config without permissions", { agent: { build: { model: "x" } } }, undefined, true],
    [
      "the agent's permission denying it",
      { agent: { build: { permission: { ctx_reduce: "deny" } } } },
      undefined,
      false,
    ],
    [
      "the agent's permission allowing it",
      { agent: { build: { permission: { ctx_reduce: "allow" } } } },
      undefined,
      true,
    ],
    [
      "the agent's permission asking for it",
      { agent: { build: { permission: { ctx_reduce: "ask" } } } },
      undefined,
      true,
    ],
    [
      "the agent's permission denying everything",
      { agent: { build: { permission: { "*": "deny" } } } },
      undefined,
      false,
    ],
    [
      "the agent's permission denying everything but allowing it",
      { agent: { build: { permission: { "*": "deny", ctx_reduce: "allow" } } } },
      undefined,
      true,
    ],
    [
      "the agent's permission allowing everything but denying it",
      { agent: { build: { permission: { "*": "allow", ctx_reduce: "deny" } } } },
      undefined,
      false,
    ],
    ["the agent's whole permission set to deny", { agent: { build: { permission: "deny" } } }, undefined, false],
    [
      "the agent's permission about other tools only",
      { agent: { build: { permission: { bash: "deny" } } } },
      undefined,
      true,
    ],
    ["the global permission denying it", { permission: { ctx_reduce: "deny" } }, undefined, false],
    ["the global permission denying everything", { permission: { "*": "deny" } }, undefined, false],
    [
      "the global permission denying everything but allowing it",
      { permission: { "*": "deny", ctx_reduce: "allow" } },
      undefined,
      true,
    ],
    [
      "the agent's permission allowing what the global one denies",
      { permission: { ctx_reduce: "deny" }, agent: { build: { permission: { ctx_reduce: "allow" } } } },
      undefined,
      true,
    ],
    [
      "the agent's permission denying what the global one allows",
      { permission: { ctx_reduce: "allow" }, agent: { build: { permission: { "*": "deny" } } } },
      undefined,
      false,
    ],
    [
      "an agent permission silent about it, under a global deny",
      { permission: { ctx_reduce: "deny" }, agent: { build: { permission: { bash: "allow" } } } },
      undefined,
      false,
    ],
    ["another agent's deny", { agent: { plan: { permission: { ctx_reduce: "deny" } } } }, undefined, true],
    ["the agent's legacy tools switch", { agent: { build: { tools: { ctx_reduce: false } } } }, undefined, false],
    [
      "the agent's legacy tools switch over an allowing permission",
      { agent: { build: { tools: { ctx_reduce: false }, permission: { ctx_reduce: "allow" } } } },
      undefined,
      false,
    ],
    ["the agent's legacy tools switch left on", { agent: { build: { tools: { ctx_reduce: true } } } }, undefined, true],
    [
      "a legacy switch left on under a global deny",
      { permission: { ctx_reduce: "deny" }, agent: { build: { tools: { ctx_reduce: true } } } },
      undefined,
      false,
    ],
    ["the prompt's tools turning it off", {}, { ctx_reduce: false }, false],
    [
      "the prompt's tools turning it off over an allow",
      { permission: { ctx_reduce: "allow" } },
      { ctx_reduce: false },
      false,
    ],
    ["the prompt's tools turning it on", {}, { ctx_reduce: true, bash: false }, true],
    [
      "the prompt's tools turning it on under a deny",
      { permission: { ctx_reduce: "deny" } },
      { ctx_reduce: true },
      false,
    ],
  ])("reads %s", (_name, hostConfig, promptTools, available) => {
    expect(reduceToolAvailable({ hostConfig, agent: "build", promptTools })).toBe(available)
  })

  it("reads only the global permission when the agent is unknown", () => {
    const hostConfig = { permission: { ctx_reduce: "deny" }, agent: { build: { permission: { ctx_reduce: "allow" } } } }
    expect(reduceToolAvailable({ hostConfig, agent: undefined, promptTools: undefined })).toBe(false)
    const agentOnly = { agent: { build: { permission: "deny" } } }
    expect(reduceToolAvailable({ hostConfig: agentOnly, agent: undefined, promptTools: undefined })).toBe(true)
  })
})
