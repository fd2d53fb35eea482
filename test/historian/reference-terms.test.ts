import { describe, expect, it } from "vitest"
import { referenceTerms, termFilter, termKey } from "../../src/historian/reference-terms.js"

describe("referenceTerms", () => {
  it("keeps names, paths and options whole and in their parts, lowercased, without common words or bare numbers", () => {
    const terms = referenceTerms("Run `backupctl prune --keep-weekly=8` on /srv/Vault/daily before 2024, because the disk is full")
    expect([...terms]).toEqual(
      expect.arrayContaining(["backupctl", "prune", "keep-weekly", "keep", "weekly", "srv/vault/daily", "vault", "daily", "disk", "full"]),
    )
    // Common words, bare numbers and pieces under four characters say nothing about where a fact is.
    for (const left of ["because", "before", "2024", "the", "run", "is", "srv"]) expect(terms.has(left)).toBe(false)
  })
})

describe("termFilter", () => {
  it("says yes for every term of its text and no for most others", () => {
    const text = Array.from({ length: 400 }, (_, index) => `const limit_${index} = readSetting("quota.item${index}")`).join("\n")
    const filter = termFilter(text)
    for (const term of referenceTerms(text)) expect(filter.has(termKey(term))).toBe(true)
    const strangers = Array.from({ length: 1_000 }, (_, index) => `absent${index}word`)
    const falseYes = strangers.filter((term) => filter.has(termKey(term))).length
    // Two bits of 32,768 per term, about 2,000 terms: under 2% of strangers pass.
    expect(falseYes).toBeLessThan(20)
  })
})
