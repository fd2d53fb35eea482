import { describe, expect, it } from "vitest"
import { isLimit, isRuleLine, ruleLines, ruleReading, WIDE_RULE_READING, type RuleReading } from "../../src/historian/document-rules.js"
import { isSettingLine, settingLines } from "../../src/historian/output-facts.js"
import { keptOutputLines } from "../../src/historian/output-lines.js"
import { ALL_RECOGNIZERS, recognizersWithout, rulesTunedOn } from "../../src/session/recognizers.js"

/**
 * Each widening of the blind rule and limit readers is a rule of its own: switched off, the reader is the blind core,
 * so a leave-one-out fold of the sessions a widening was tuned on scores the core without it.
 */
const CORE: RuleReading = { wideWords: false, quantities: false, sentences: false }

describe("the rule and limit readers' widenings", () => {
  it("reads cannot, may not and no new as rule words only with rule-words-wide", () => {
    for (const line of ["Archived projects cannot be restored from the console.", "Contractors may not merge to main.", "No new tables in the billing schema."]) {
      expect(isRuleLine(line, WIDE_RULE_READING)).toBe(true)
      expect(isRuleLine(line, { ...CORE, wideWords: false })).toBe(false)
    }
    expect(isRuleLine("Tokens must be rotated by the platform team.", CORE)).toBe(true)
  })

  it("reads a bare quantity as a limit only with quantity-limits; a limit word with its value always", () => {
    expect(isLimit("Each export holds 500 rows.", WIDE_RULE_READING)).toBe(true)
    expect(isLimit("Each export holds 500 rows.", CORE)).toBe(false)
    expect(isLimit("The upload timeout defaults to 30 seconds.", CORE)).toBe(true)
    expect(isLimit('The region defaults to "eu-west-1".', CORE)).toBe(true)
  })

  it("judges a long line sentence by sentence and keeps a long message's list item whole only with rule-sentences", () => {
    const long = `${"The nightly job copies every tenant's ledger into the warehouse and rebuilds the reporting views, which takes about an hour on the largest tenants. ".repeat(3)}The copy must finish before 06:00 UTC.`
    expect(long.length).toBeGreaterThan(400)
    expect(ruleLines(long, 5, { reading: WIDE_RULE_READING })).toEqual(["The copy must finish before 06:00 UTC."])
    expect(ruleLines(long, 5, { reading: CORE })).toEqual([])
    const message = "Some notes before you start on the exporter:\n- Put the exporter behind the reports feature flag\n- Keep the CSV columns in today's order"
    expect(ruleLines(message, 5, { listItems: true, reading: WIDE_RULE_READING })).toEqual([
      "- Put the exporter behind the reports feature flag",
      "- Keep the CSV columns in today's order",
    ])
    expect(ruleLines(message, 5, { listItems: true, reading: CORE })).toEqual([])
  })

  it("reads a setting declared with modifiers and a type only with typed-settings", () => {
    expect(isSettingLine("public val TIMEOUT_SECONDS: Int = 30", { typed: true })).toBe(true)
    expect(isSettingLine("public val TIMEOUT_SECONDS: Int = 30", { typed: false })).toBe(false)
    expect(isSettingLine("export const TIMEOUT_SECONDS = 30", { typed: false })).toBe(true)
    expect(settingLines("private static final int RETRIES = 4;\nconst PORT = 8080", "", { typed: false })).toEqual(["const PORT = 8080"])
  })

  it("keeps a labelled id line of a command only with labelled-ids, and the error's first stack frame only with first-stack-frame", () => {
    const output = "Resolving library…\nLibrary ID: /acme/widgets\nFetching docs…\nWrote docs/widgets.md\nDone."
    const on = keptOutputLines({ keep: "command", output, failed: false, recognizers: ALL_RECOGNIZERS })
    const off = keptOutputLines({ keep: "command", output, failed: false, recognizers: recognizersWithout(["labelled-ids"]) })
    expect(on).toContain("Library ID: /acme/widgets")
    expect(off).not.toContain("Library ID: /acme/widgets")
    const failed = "TypeError: cannot read properties of undefined (reading 'id')\n    at loadUser (src/users.ts:41:18)\n    at main (src/index.ts:9:3)"
    const withFrame = keptOutputLines({ keep: "command", output: failed, failed: true, recognizers: ALL_RECOGNIZERS })
    const withoutFrame = keptOutputLines({ keep: "command", output: failed, failed: true, recognizers: recognizersWithout(["first-stack-frame"]) })
    expect(withFrame).toContain("at loadUser (src/users.ts:41:18)")
    expect(withoutFrame.filter((line) => line.startsWith("at "))).toEqual([])
  })

  it("keeps ten lines of a document only with more-document-lines, six without", () => {
    const reference = Array.from({ length: 14 }, (_, index) => `- Field ${index + 1} must be set before the export runs.`).join("\n")
    expect(keptOutputLines({ keep: "document", output: reference, failed: false, recognizers: ALL_RECOGNIZERS })).toHaveLength(10)
    expect(keptOutputLines({ keep: "document", output: reference, failed: false, recognizers: recognizersWithout(["more-document-lines"]) })).toHaveLength(6)
  })

  it("takes each widening from its own rule name, and a fold of a session it was tuned on switches off the widening, not the core", () => {
    expect(ruleReading(ALL_RECOGNIZERS)).toEqual(WIDE_RULE_READING)
    expect(ruleReading(recognizersWithout(["rule-words-wide", "quantity-limits", "rule-sentences"]))).toEqual(CORE)
    const off = rulesTunedOn("fixtures/synthetic/opencode-verdant-irrigation.json")
    expect(off).toEqual(expect.arrayContaining(["rule-words-wide", "quantity-limits", "rule-sentences", "typed-settings", "first-stack-frame", "more-document-lines"]))
    expect(off).not.toContain("doc-rule-lines")
    expect(off).not.toContain("doc-limit-lines")
  })
})
