import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createTierTexts } from "../../src/pass/tier-texts.js"
import { insertCompartment, type NewCompartment } from "../../src/store/compartment-repository.js"
import type { Database } from "../../src/store/driver.js"
import { storeWithSession } from "../helpers/store-database.js"

const SESSION = "s1"
let db: Database

beforeEach(async () => {
  db = await storeWithSession(SESSION)
  for (const seq of [1, 2, 3]) insertCompartment(db, compartment(seq, `${"x".repeat(9)}${seq}`))
})

afterEach(() => {
  db.close()
})

function compartment(seq: number, content: string): NewCompartment {
  return {
    id: `${SESSION}#c${seq}`,
    sessionId: SESSION,
    seq,
    firstMessageSeq: seq,
    lastMessageSeq: seq,
    firstTag: null,
    lastTag: null,
    outcome: null,
    sourceTokens: 10,
    representations: [
      {
        tier: "compact",
        strategy: "canonical-record",
        content,
        tokens: 1,
        generatorModel: null,
        promptVersion: null,
        survivalContract: "compact",
        sourceRefs: { tags: [], messageIds: [] },
      },
    ],
    facts: [],
    createdPass: 1,
    createdAt: 1,
  }
}

/** Takes the stored texts away, so that only what the cache kept can still be read. */
function forgetStoredTexts(): void {
  db.exec("DELETE FROM representations")
}

describe("createTierTexts", () => {
  it("reads a tier's text from the store, and nothing for a tier or strategy that has none", () => {
    const texts = createTierTexts(db)
    expect(texts.text("s1#c2", "compact", "canonical-record")).toBe("xxxxxxxxx2")
    expect(texts.text("s1#c2", "anchor", "canonical-record")).toBeUndefined()
    expect(texts.text("s1#c2", "compact", "source-grounded-model")).toBeUndefined()
  })

  it("keeps the most recently used texts up to its size, forgetting the least recently used first", () => {
    const texts = createTierTexts(db, 20)
    texts.text("s1#c1", "compact", "canonical-record")
    texts.text("s1#c2", "compact", "canonical-record")
    // c1 used again: c2 is now the least recently used, and reading c3 goes over 20 characters.
    texts.text("s1#c1", "compact", "canonical-record")
    texts.text("s1#c3", "compact", "canonical-record")
    forgetStoredTexts()
    expect(texts.text("s1#c1", "compact", "canonical-record")).toBe("xxxxxxxxx1")
    expect(texts.text("s1#c3", "compact", "canonical-record")).toBe("xxxxxxxxx3")
    expect(texts.text("s1#c2", "compact", "canonical-record")).toBeUndefined()
  })

  it("forgets every text on clear", () => {
    const texts = createTierTexts(db)
    texts.text("s1#c1", "compact", "canonical-record")
    forgetStoredTexts()
    expect(texts.text("s1#c1", "compact", "canonical-record")).toBe("xxxxxxxxx1")
    texts.clear()
    expect(texts.text("s1#c1", "compact", "canonical-record")).toBeUndefined()
  })
})
