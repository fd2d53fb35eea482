import { describe, expect, it } from "vitest"
import { distinctiveWords, rankByEcho } from "../../src/historian/echoed-lines.js"

describe("rankByEcho", () => {
  const plans = [
    "| Starter | 100 uploads per day per workspace | 2/s |",
    "| Team | 2,000 uploads per day per workspace | 10/s |",
    "| Enterprise | 50,000 uploads per day per workspace | 50/s |",
    "Uploads over the limit return `429` with a `Retry-After` header.",
  ]

  it("keeps the lines whose distinctive words the agent's text repeats, then the rest in order", () => {
    const said = "We are on the Team plan, and the nightly sync hit its daily cap."
    // "team" tells the Team row apart; "uploads", "day" and "workspace" are in most rows and count for none.
    expect(rankByEcho(plans, said, 2)).toEqual([plans[0], plans[1]])
    expect(rankByEcho(plans, "The Enterprise contract starts next month.", 1)).toEqual([plans[2]])
  })

  it("keeps the read order among the lines it keeps, and every line when they fit", () => {
    expect(rankByEcho(plans, "Retry-After says when; the Starter plan is what CI uses.", 2)).toEqual([plans[0], plans[3]])
    expect(rankByEcho(plans, "", 4)).toEqual(plans)
    expect(rankByEcho(plans, "", 2)).toEqual(plans.slice(0, 2))
  })

  it("is deterministic and never throws on odd text", () => {
    const odd = ["\u0000\u001b[31m", "", "🙂 ✓", "a".repeat(10_000)]
    expect(rankByEcho(odd, "🙂 aaaa", 2)).toEqual(rankByEcho(odd, "🙂 aaaa", 2))
  })
})

describe("distinctiveWords", () => {
  it("takes words of three letters or more and numbers, lower-cased, without common words", () => {
    expect([...distinctiveWords("The Team plan: 2,000 uploads per day, default 30 s")]).toEqual(["team", "plan", "2,000", "uploads", "per", "day", "30"])
  })
})
