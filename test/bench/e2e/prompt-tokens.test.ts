import { describe, expect, it } from "vitest"
import { createElementTokenCounter } from "../../../bench/e2e/prompt-tokens.js"

describe("createElementTokenCounter", () => {
  it("counts each distinct element once and the sandbox's random name as one fixed name", () => {
    const seen: string[] = []
    const counter = createElementTokenCounter({
      encoding: "test",
      count: (text) => {
        seen.push(text)
        return text.length
      },
    })
    const a = "/tmp/magic-context-e2e-Ab12Cd/project/a.ts"
    const b = "/tmp/magic-context-e2e-Zz99Yy/project/a.ts"
    expect(counter.count([a, a, b])).toEqual([a.length, a.length, b.length])
    expect(seen).toEqual(["/tmp/magic-context-e2e-SANDBX/project/a.ts", "/tmp/magic-context-e2e-SANDBX/project/a.ts"])
  })
})
