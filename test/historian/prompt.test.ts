import { describe, expect, it } from "vitest"
import { SURVIVAL_CONTRACTS, TIERS } from "../../src/historian/fidelity-types.js"
import {
  HISTORIAN_PROMPT_VERSION,
  HISTORIAN_SYSTEM_PROMPT,
  historianRepairRequest,
  historianRequest,
} from "../../src/historian/prompt.js"

const EPISODES = [
  { id: "c3", source: "§7§ [user] fix the lexer\n§8§ [tool call] bash {\"command\":\"npm test\"}" },
  { id: "c4", source: "§9§ [assistant] done" },
]

describe("historianRequest", () => {
  it("puts the data before the instructions", () => {
    const request = historianRequest(EPISODES)
    const lastData = request.indexOf("</episode>", request.indexOf('<episode id="c4">'))
    expect(request.startsWith("HISTORIAN-REQUEST\n<episode id=\"c3\">\n")).toBe(true)
    expect(lastData).toBeGreaterThan(0)
    for (const instruction of ["Write, for EACH episode", "Rules:", "Answer with exactly one JSON object"]) {
      expect(request.indexOf(instruction)).toBeGreaterThan(lastData)
    }
  })

  it("carries every episode's source verbatim, in the order given", () => {
    const request = historianRequest(EPISODES)
    const [first, second] = EPISODES
    expect(request).toContain(
      `<episode id="c3">\n${first?.source}\n</episode>\n\n<episode id="c4">\n${second?.source}\n</episode>`,
    )
  })

  it("states every tier's survival contract", () => {
    const request = historianRequest(EPISODES)
    for (const tier of TIERS) expect(request).toContain(`- ${tier}: ${SURVIVAL_CONTRACTS[tier]}`)
    const positions = TIERS.map((tier) => request.indexOf(`- ${tier}: `))
    expect(positions).toEqual([...positions].sort((a, b) => a - b))
  })

  it("asks for identifiers copied exactly and the exact output shape, ending with it", () => {
    const request = historianRequest(EPISODES)
    expect(request).toContain("Copy identifiers exactly as they appear in the source")
    expect(request).toContain("Never invent an identifier")
    expect(request.split("\n").at(-1)).toBe(
      '{"episodes":[{"id":"<episode id>","tiers":{"full":string|null,"dense":string|null,"compact":string,"anchor":string},' +
        '"facts":[{"kind":"decision"|"rejected_alternative"|"failure"|"identifier"|"location"|"open_work","text":string,"tags":[number]}]}]}',
    )
  })

  it("is the same text for the same episodes", () => {
    expect(historianRequest(EPISODES)).toBe(historianRequest(structuredClone(EPISODES)))
  })
})

describe("historianRepairRequest", () => {
  it("names the problem, then repeats what to answer", () => {
    expect(historianRepairRequest("the answer contains no JSON object")).toBe(
      "Your answer could not be used: the answer contains no JSON object. Answer again with exactly one JSON " +
        "object of the shape asked for, covering every episode id, with no text before or after it.",
    )
  })
})

describe("HISTORIAN_SYSTEM_PROMPT", () => {
  it("tells the hidden agent to write tiers and never act, and carries a prompt version", () => {
    expect(HISTORIAN_SYSTEM_PROMPT).toContain("never use tools")
    expect(HISTORIAN_SYSTEM_PROMPT).toContain("one JSON object")
    expect(HISTORIAN_PROMPT_VERSION).toBe("historian-v1")
  })
})
