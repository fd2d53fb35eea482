import { describe, expect, it } from "vitest"
import { documentConstraints, isHardRule, ruleLines } from "../../src/historian/document-rules.js"
import { outputConstraints } from "../../src/historian/output-reading.js"
import { hostTool } from "../../src/session/host-tools.js"
import { ALL_RECOGNIZERS, recognizersWithout } from "../../src/session/recognizers.js"

/** A fetched reference page: advice and descriptions first, the checkable limits further down. */
const REFERENCE = [
  "# Invoices API",
  "The invoices endpoint returns one page of invoices; you should page with `cursor` rather than `offset`.",
  "Avoid polling: subscribe to the `invoice.paid` webhook instead.",
  "Only admins see drafts.",
  "Responses always include an `X-Request-Id` header; quote it when you contact support.",
  "The SDK retries idempotent calls on its own; you should not wrap it in a retry loop.",
  "Amounts are integers in the currency's minor unit (cents for EUR).",
  "Use the sandbox key while testing; it only sees sandbox data.",
  "## Limits",
  "- A request body must not exceed 1 MB; larger bodies are rejected with 413.",
  "- `due_date` must be at least 3 days after `issue_date`.",
  "- A line item description is required and may not exceed 500 characters.",
  "- Make sure the currency matches the customer's.",
].join("\n")

describe("isHardRule", () => {
  it("takes an obligation or prohibition that states a number", () => {
    expect(isHardRule("Passwords must be at least 12 characters long.")).toBe(true)
    expect(isHardRule("Uploads may not exceed 20 MB.")).toBe(true)
    expect(isHardRule("A tag name is required; at most 64 characters.")).toBe(true)
    expect(isHardRule("Never send more than 5 requests per second.")).toBe(true)
  })

  it("leaves advice, descriptions, bare quantities and rules without a value", () => {
    expect(isHardRule("You should keep batches under 100 rows.")).toBe(false)
    expect(isHardRule("Exit codes do not change between 2 and 3.")).toBe(false)
    expect(isHardRule("Uploading report.pdf  4.2 MiB  100%")).toBe(false)
    expect(isHardRule("The token must be kept secret.")).toBe(false)
  })
})

describe("ruleLines with hardFirst", () => {
  it("keeps the checkable limits of a long reference before its advice, in document order", () => {
    expect(ruleLines(REFERENCE, 4, { hardFirst: true })).toEqual([
      "The invoices endpoint returns one page of invoices; you should page with `cursor` rather than `offset`.",
      "- A request body must not exceed 1 MB; larger bodies are rejected with 413.",
      "- `due_date` must be at least 3 days after `issue_date`.",
      "- A line item description is required and may not exceed 500 characters.",
    ])
  })

  it("without it takes the first rule lines, whatever they say", () => {
    expect(ruleLines(REFERENCE, 4)).toEqual([
      "The invoices endpoint returns one page of invoices; you should page with `cursor` rather than `offset`.",
      "Avoid polling: subscribe to the `invoice.paid` webhook instead.",
      "Only admins see drafts.",
      "Responses always include an `X-Request-Id` header; quote it when you contact support.",
    ])
  })

  it("changes nothing when every rule line fits", () => {
    const all = ruleLines(REFERENCE, 20)
    expect(ruleLines(REFERENCE, 20, { hardFirst: true })).toEqual(all)
    expect(all).toHaveLength(10)
  })

  it("fills with the first other lines when there are fewer hard ones than room", () => {
    const lines = ruleLines(REFERENCE, 6, { hardFirst: true })
    expect(lines).toHaveLength(6)
    expect(lines.slice(0, 3)).toEqual(ruleLines(REFERENCE, 3))
    expect(lines).toContain("- `due_date` must be at least 3 days after `issue_date`.")
  })
})

describe("hard-rules-first in a binding document's constraints", () => {
  const webfetch = hostTool("webfetch")
  it("a fetched page pins its hard limits, and without the rule its first rule lines", () => {
    expect(webfetch.binds).toBe(true)
    const withRule = outputConstraints(webfetch, REFERENCE, ALL_RECOGNIZERS)
    const without = outputConstraints(webfetch, REFERENCE, recognizersWithout(["hard-rules-first"]))
    expect(withRule).toContain("- A request body must not exceed 1 MB; larger bodies are rejected with 413.")
    expect(without).not.toContain("- A request body must not exceed 1 MB; larger bodies are rejected with 413.")
    expect(withRule).toHaveLength(without.length)
  })

  it("documentConstraints passes the choice on", () => {
    const options = { lists: false, ruleLimit: 2 }
    expect(documentConstraints(REFERENCE, { ...options, hardFirst: true })).toEqual([
      "- A request body must not exceed 1 MB; larger bodies are rejected with 413.",
      "- `due_date` must be at least 3 days after `issue_date`.",
    ])
    expect(documentConstraints(REFERENCE, options)).toEqual(ruleLines(REFERENCE, 2))
  })
})
