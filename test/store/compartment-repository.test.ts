import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Fact, Tier } from "../../src/historian/fidelity-types.js"
import {
  currentTiers,
  insertCompartment,
  insertRepresentations,
  listCompartmentOutlines,
  listCompartments,
  markCompartmentsFolded,
  representationContent,
  recordSelections,
  type NewCompartment,
  type SelectionRecord,
} from "../../src/store/compartment-repository.js"
import type { Database } from "../../src/store/driver.js"
import { ensureSession } from "../../src/store/session-repository.js"
import { replaySession, storeWithSession } from "../helpers/store-database.js"

const SESSION = "s1"
let db: Database

beforeEach(async () => {
  db = await storeWithSession(SESSION)
  ensureSession(db, replaySession("s2"), 1_000)
})

afterEach(() => {
  db.close()
})

const FACTS: Fact[] = [
  {
    kind: "constraint",
    text: "never touch src/api.ts",
    retention: "PIN",
    floor: "exact",
    source: { tags: [1], messageIds: ["m1"] },
  },
  {
    kind: "decision",
    text: "use NFKD because tables miss letters",
    retention: "COMPRESSIBLE",
    floor: "compact",
    source: { tags: [2, 3], messageIds: ["m2"] },
  },
  {
    kind: "incidental",
    text: "no matches: grep foo",
    retention: "DISCARDABLE",
    floor: "anchor",
    source: { tags: [], messageIds: [] },
  },
]

type NewRepresentation = NewCompartment["representations"][number]

function representation(tier: Tier, overrides: Partial<NewRepresentation> = {}): NewRepresentation {
  return {
    tier,
    strategy: "canonical-record" as const,
    content: `[c1] ${tier} text`,
    tokens: tier.length,
    generatorModel: null,
    promptVersion: null,
    survivalContract: `${tier} contract`,
    sourceRefs: { tags: [1, 2, 3], messageIds: ["m1", "m2"] },
    ...overrides,
  }
}

function compartment(seq: number, overrides: Partial<NewCompartment> = {}): NewCompartment {
  return {
    id: `${SESSION}#c${seq}`,
    sessionId: SESSION,
    seq,
    firstMessageSeq: seq * 10,
    lastMessageSeq: seq * 10 + 5,
    firstTag: seq * 100,
    lastTag: seq * 100 + 9,
    outcome: `outcome ${seq}`,
    sourceTokens: 1_234,
    representations: [representation("full"), representation("compact"), representation("anchor")],
    facts: FACTS,
    createdPass: 7,
    createdAt: 5_000,
    ...overrides,
  }
}

function selection(compartmentId: string, overrides: Partial<SelectionRecord> = {}): SelectionRecord {
  return {
    sessionId: SESSION,
    passId: null,
    compartmentId,
    tier: "full",
    previousTier: null,
    reason: "new",
    pressure: 71.5,
    firstDivergence: 120,
    mutationRadius: 4_000,
    policyVersion: "selection-v1",
    appliedAt: 9_000,
    ...overrides,
  }
}

describe("insertCompartment", () => {
  it("writes the compartment closed, with its representations and facts, and lists it back", () => {
    db.transaction(() => insertCompartment(db, compartment(1)))
    expect(listCompartments(db, SESSION)).toEqual([
      {
        id: "s1#c1",
        sessionId: SESSION,
        seq: 1,
        firstMessageSeq: 10,
        lastMessageSeq: 15,
        firstTag: 100,
        lastTag: 109,
        outcome: "outcome 1",
        sourceTokens: 1_234,
        status: "closed",
        representations: ["full", "compact", "anchor"].map((tier) => ({
          tier,
          strategy: "canonical-record",
          content: `[c1] ${tier} text`,
          tokens: tier.length,
          generatorModel: null,
          promptVersion: null,
        })),
        facts: FACTS,
      },
    ])
  })

  it("stores the lineage of every representation and the creating pass", () => {
    insertCompartment(db, compartment(1))
    const rows = db.prepare("SELECT tier, survival_contract, source_refs_json, created_at FROM representations ORDER BY id")
    expect(rows.all()).toEqual(
      ["full", "compact", "anchor"].map((tier) => ({
        tier,
        survival_contract: `${tier} contract`,
        source_refs_json: JSON.stringify({ tags: [1, 2, 3], messageIds: ["m1", "m2"] }),
        created_at: 5_000,
      })),
    )
    expect(db.prepare("SELECT status, created_pass, folded_pass, created_at FROM compartments").get()).toEqual({
      status: "closed",
      created_pass: 7,
      folded_pass: null,
      created_at: 5_000,
    })
  })

  it("marks facts pinned by their kind", () => {
    insertCompartment(db, compartment(1))
    expect(db.prepare("SELECT kind, retention, floor, pinned_by FROM items ORDER BY id").all()).toEqual([
      { kind: "constraint", retention: "PIN", floor: "exact", pinned_by: "kind" },
      { kind: "decision", retention: "COMPRESSIBLE", floor: "compact", pinned_by: null },
      { kind: "incidental", retention: "DISCARDABLE", floor: "anchor", pinned_by: null },
    ])
  })

  it("keeps null tags and outcome", () => {
    const empty = { firstTag: null, lastTag: null, outcome: null, facts: [], representations: [] }
    insertCompartment(db, compartment(1, empty))
    expect(listCompartments(db, SESSION)[0]).toMatchObject(empty)
  })

  it("refuses a second compartment with the same sequence number in a session", () => {
    insertCompartment(db, compartment(1))
    expect(() => insertCompartment(db, compartment(1, { id: "s1#other" }))).toThrow(
      /UNIQUE constraint failed: compartments.session_id, compartments.seq/,
    )
  })
})

describe("insertRepresentations", () => {
  it("adds another strategy's tiers next to the canonical ones, with the generator and prompt version", () => {
    insertCompartment(db, compartment(1))
    insertRepresentations(
      db,
      "s1#c1",
      [
        representation("dense", {
          strategy: "source-grounded-model",
          content: "model dense",
          generatorModel: "openai/gpt-5",
          promptVersion: "historian-v1",
        }),
      ],
      6_000,
    )
    const [stored] = listCompartments(db, SESSION)
    expect(stored?.representations.at(-1)).toEqual({
      tier: "dense",
      strategy: "source-grounded-model",
      content: "model dense",
      tokens: 5,
      generatorModel: "openai/gpt-5",
      promptVersion: "historian-v1",
    })
    const created = db.prepare("SELECT created_at FROM representations WHERE strategy = 'source-grounded-model'")
    expect(created.get()).toEqual({ created_at: 6_000 })
  })

  it("never rewrites a representation that exists: the first one written stays", () => {
    insertCompartment(db, compartment(1))
    insertRepresentations(db, "s1#c1", [representation("full", { content: "rewritten", tokens: 999 })], 6_000)
    const rows = db.prepare("SELECT tier, content, tokens, created_at FROM representations WHERE tier = 'full'").all()
    expect(rows).toEqual([{ tier: "full", content: "[c1] full text", tokens: 4, created_at: 5_000 }])
  })

  it("throws for a compartment the store does not know (a programming error)", () => {
    expect(() => insertRepresentations(db, "s1#c9", [representation("full")], 1)).toThrow(/FOREIGN KEY/)
  })
})

describe("listCompartments", () => {
  it("lists one session's compartments by sequence number", () => {
    insertCompartment(db, compartment(2))
    insertCompartment(db, compartment(1))
    insertCompartment(db, compartment(1, { id: "s2#c1", sessionId: "s2" }))
    expect(listCompartments(db, SESSION).map((stored) => stored.id)).toEqual(["s1#c1", "s1#c2"])
    expect(listCompartments(db, "s2").map((stored) => stored.id)).toEqual(["s2#c1"])
    expect(listCompartments(db, "nobody")).toEqual([])
  })
})

describe("markCompartmentsFolded", () => {
  it("marks the named compartments folded at the pass, once", () => {
    insertCompartment(db, compartment(1))
    insertCompartment(db, compartment(2))
    insertCompartment(db, compartment(3))
    markCompartmentsFolded(db, ["s1#c1", "s1#c2"], 12)
    markCompartmentsFolded(db, ["s1#c2", "s1#c3"], 15)
    expect(db.prepare("SELECT id, status, folded_pass FROM compartments ORDER BY seq").all()).toEqual([
      { id: "s1#c1", status: "folded", folded_pass: 12 },
      { id: "s1#c2", status: "folded", folded_pass: 12 },
      { id: "s1#c3", status: "folded", folded_pass: 15 },
    ])
    expect(listCompartments(db, SESSION).map((stored) => stored.status)).toEqual(["folded", "folded", "folded"])
  })

  it("does nothing for no ids or unknown ids", () => {
    insertCompartment(db, compartment(1))
    markCompartmentsFolded(db, [], 3)
    markCompartmentsFolded(db, ["s1#c9"], 3)
    expect(listCompartments(db, SESSION)[0]?.status).toBe("closed")
  })
})

describe("recordSelections", () => {
  it("records every field of an applied tier choice", () => {
    insertCompartment(db, compartment(1))
    const demoted = selection("s1#c1", { tier: "compact", previousTier: "full", reason: "demoted: history over budget" })
    recordSelections(db, [demoted])
    expect(db.prepare("SELECT * FROM selections").all()).toEqual([
      {
        id: 1,
        session_id: SESSION,
        pass_id: null,
        compartment_id: "s1#c1",
        tier: "compact",
        previous_tier: "full",
        reason: "demoted: history over budget",
        pressure: 71.5,
        first_divergence: 120,
        mutation_radius: 4_000,
        policy_version: "selection-v1",
        applied_at: 9_000,
      },
    ])
  })

  it("keeps a null divergence and radius (the first prompt of a process)", () => {
    insertCompartment(db, compartment(1))
    recordSelections(db, [selection("s1#c1", { firstDivergence: null, mutationRadius: null })])
    expect(db.prepare("SELECT first_divergence, mutation_radius FROM selections").get()).toEqual({
      first_divergence: null,
      mutation_radius: null,
    })
  })
})

describe("currentTiers", () => {
  it("gives the tier last applied to each compartment of the session", () => {
    insertCompartment(db, compartment(1))
    insertCompartment(db, compartment(2))
    insertCompartment(db, compartment(1, { id: "s2#c1", sessionId: "s2" }))
    recordSelections(db, [selection("s1#c1"), selection("s1#c2")])
    recordSelections(db, [selection("s1#c1", { tier: "dense", previousTier: "full" })])
    recordSelections(db, [selection("s2#c1", { sessionId: "s2", tier: "anchor" })])
    recordSelections(db, [selection("s1#c1", { tier: "compact", previousTier: "dense" })])
    expect(currentTiers(db, SESSION)).toEqual(new Map([["s1#c1", "compact"], ["s1#c2", "full"]]))
    expect(currentTiers(db, "s2")).toEqual(new Map([["s2#c1", "anchor"]]))
  })

  it("is empty before any selection", () => {
    insertCompartment(db, compartment(1))
    expect(currentTiers(db, SESSION)).toEqual(new Map())
  })
})

describe("listCompartmentOutlines", () => {
  it("lists what listCompartments lists, less the representations' texts and the outcome", () => {
    db.transaction(() => {
      insertCompartment(db, compartment(1))
      insertCompartment(db, compartment(2, { representations: [representation("full", { content: "[c2] full text" })] }))
    })
    insertRepresentations(db, "s1#c1", [representation("anchor", { strategy: "source-grounded-model", tokens: 3 })], 6_000)
    markCompartmentsFolded(db, ["s1#c1"], 9)
    const withoutTexts = listCompartments(db, SESSION).map(({ outcome: _outcome, ...stored }) => ({
      ...stored,
      representations: stored.representations.map(({ content: _content, ...outline }) => outline),
    }))
    expect(listCompartmentOutlines(db, SESSION)).toEqual(withoutTexts)
    expect(withoutTexts.map((stored) => [stored.status, stored.representations.length])).toEqual([
      ["folded", 4],
      ["closed", 1],
    ])
  })
})

describe("representationContent", () => {
  it("reads one representation's text by compartment, tier and strategy, and null where there is none", () => {
    insertCompartment(db, compartment(1))
    insertRepresentations(db, "s1#c1", [representation("anchor", { strategy: "source-grounded-model", content: "model anchor" })], 6_000)
    expect(representationContent(db, "s1#c1", "compact", "canonical-record")).toBe("[c1] compact text")
    expect(representationContent(db, "s1#c1", "anchor", "source-grounded-model")).toBe("model anchor")
    expect(representationContent(db, "s1#c1", "dense", "canonical-record")).toBeNull()
    expect(representationContent(db, "s1#c2", "full", "canonical-record")).toBeNull()
  })
})
