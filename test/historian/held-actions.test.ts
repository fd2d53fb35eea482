import { describe, expect, it } from "vitest"
import { isHeldAction } from "../../src/historian/extract-patterns.js"
import { userTextFacts } from "../../src/historian/user-text-facts.js"

/** A long message of several paragraphs whose binding line comes last, worded without any rule word. */
const HANDOFF = [
  "Here is where things stand with the billing export. Last week we moved the nightly job from cron on the old box to the scheduler in the platform cluster, and the first three runs went through without trouble. On Thursday the run took four times as long as usual and finance noticed the CSV arrived after their morning meeting.",
  "I looked at the job's logs and the slow part is the query that joins invoices to their adjustments. The adjustments table grew a lot after the March migration, and the query still filters after the join rather than before it. There is also a retry wrapper around the upload step that I wrote in a hurry, and it retries on every error including the permanent ones.",
  "Some history, since you weren't there: the export was written two years ago for a much smaller customer base. It reads every invoice of the previous day, adds the adjustments, converts currencies with the rates table and writes one CSV per legal entity. The entities were added one by one, and each addition copied the previous one's code path, so there are four near-identical functions that differ only in the entity code and the bank account format. Finance would like that cleaned up eventually, but it is not what this is about.",
  "What I'd like from you: read the export job and the query, figure out why Thursday's run was slow, and write up what you would change and why, with the numbers you find. Look at the retry wrapper too and tell me which errors it should give up on. The dashboards are in the usual folder if you need the run times.",
  "Make no change to the repository until I confirm the plan.",
].join("\n\n")

describe("held actions", () => {
  it("keep the last line of a long handoff as a pinned constraint, whatever its position", () => {
    expect(HANDOFF.length).toBeGreaterThan(1500)
    const constraints = userTextFacts(HANDOFF, { longRules: true }).filter((fact) => fact.kind === "constraint").map((fact) => fact.text)
    expect(constraints).toContain("Make no change to the repository until I confirm the plan.")
    const without = userTextFacts(HANDOFF, { longRules: true, heldActions: false }).filter((fact) => fact.kind === "constraint")
    expect(without.map((fact) => fact.text)).not.toContain("Make no change to the repository until I confirm the plan.")
  })

  it.each([
    "Make no change to the repository until I confirm the plan.",
    "Push nothing before I have reviewed the diff.",
    "Wait for my go before you run the migration on staging.",
    "Don't worry about tests now, but leave the public API untouched.",
    "Hold off on the release notes.",
    "You can merge it without my approval once CI is green, just not the schema change without my sign-off.",
  ])("recognizes: %s", (sentence) => {
    expect(isHeldAction(sentence)).toBe(true)
  })

  it.each([
    "I made no progress on the flaky test yesterday.",
    "The job ran until I went home.",
    "Should we wait for the vendor's fix?",
    "Keep going with the refactor.",
  ])("leaves alone: %s", (sentence) => {
    expect(isHeldAction(sentence)).toBe(false)
  })
})
