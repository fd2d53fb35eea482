import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Tier } from "../../src/historian/fidelity-types.js"
import { createCompartmentLedger, type CompartmentLedger } from "../../src/pass/compartment-ledger.js"
import { ALL_RECOGNIZERS } from "../../src/session/recognizers.js"
import { currentSelections, insertCompartment, listCompartments, type NewCompartment } from "../../src/store/compartment-repository.js"
import type { Database } from "../../src/store/driver.js"
import type { LiveView } from "../../src/session/live-view.js"
import type { SessionState } from "../../src/session/session-state.js"
import { assistantMessage, text, userMessage, wordCounter } from "../helpers/host-messages.js"
import { storeWithSession } from "../helpers/store-database.js"

const SESSION = "s1"
let db: Database
let ledger: CompartmentLedger

beforeEach(async () => {
  db = await storeWithSession(SESSION)
  db.transaction(() => {
    for (const seq of [1, 2]) insertCompartment(db, compartment(seq))
  })
  ledger = createCompartmentLedger({ db, sessionId: SESSION, counter: wordCounter, recognizers: ALL_RECOGNIZERS, pinPatterns: [], deferCuts: false })
})

afterEach(() => {
  db.close()
})

const TIERS: Tier[] = ["full", "compact", "anchor"]

function compartment(seq: number): NewCompartment {
  return {
    id: `${SESSION}#c${seq}`,
    sessionId: SESSION,
    seq,
    firstMessageSeq: seq * 10,
    lastMessageSeq: seq * 10 + 5,
    firstTag: null,
    lastTag: null,
    outcome: null,
    sourceTokens: 100,
    representations: TIERS.map((tier, index) => ({
      tier,
      strategy: "canonical-record",
      content: `[c${seq}] ${tier}`,
      tokens: 30 - index * 10,
      generatorModel: null,
      promptVersion: null,
      survivalContract: tier,
      sourceRefs: { tags: [], messageIds: [] },
    })),
    facts: [{ kind: "identifier", text: `src/module${seq}.ts`, retention: "COMPRESSIBLE", floor: "compact", source: { tags: [], messageIds: [] } }],
    createdPass: 1,
    createdAt: 1,
  }
}

describe("createCompartmentLedger", () => {
  it("lists the stored compartments with their tiers' tokens, floor and identifiers", () => {
    expect(
      ledger.compartments().map(({ id, status, lastMessageSeq, basis }) => ({ id, status, lastMessageSeq, tiers: basis.tiers, tokens: basis.tokens, floor: basis.floor, identifiers: basis.identifiers })),
    ).toEqual([1, 2].map((seq) => ({
      id: `s1#c${seq}`,
      status: "closed",
      lastMessageSeq: seq * 10 + 5,
      tiers: TIERS,
      tokens: { full: 30, compact: 20, anchor: 10 },
      floor: "compact",
      identifiers: [`src/module${seq}.ts`],
    })))
    expect(ledger.foldGains()).toEqual({ quiet: 140, budgeted: 180 })
  })

  it("reads a tier's text from the store when asked for it, not when it loads the compartments", () => {
    const [first] = ledger.compartments()
    expect(first?.basis.text("compact")).toBe("[c1] compact")
    db.exec("DELETE FROM representations")
    expect(first?.basis.text("compact")).toBe("[c1] compact")
    expect(first?.basis.text("full")).toBeUndefined()
    expect(first?.basis.text("dense")).toBeUndefined()
  })

  it("cuts the same live messages once the protected window moves off them, after a cut that found nothing", () => {
    const owing = createCompartmentLedger({ db, sessionId: SESSION, counter: wordCounter, recognizers: ALL_RECOGNIZERS, pinPatterns: [], deferCuts: true })
    const messages = [
      userMessage({ id: "u3", parts: [text("u3t", "Rename the parser in src/parse.ts.")] }),
      assistantMessage({ id: "a3", parts: [text("a3t", "Renamed it to parseItems in src/parse.ts.")] }),
      userMessage({ id: "u4", parts: [text("u4t", "Now the tests.")] }),
    ]
    const seqs = [31, 32, 33]
    const state = {
      messageSeq: new Map(messages.map((message, index) => [message.info.id, seqs[index] as number])),
      parts: new Map(),
      tagsByPart: new Map(),
      applied: { history: null },
    } as unknown as SessionState
    const facts = seqs.map((seq) => ({ seq }))
    const view = (protectedFromSeq: number): LiveView => ({ messages, facts, protectedFromSeq }) as unknown as LiveView
    owing.cut({ messages, view: view(31), state, pass: 5, now: 1 })
    owing.cut({ messages, view: view(31), state, pass: 6, now: 2 })
    expect(owing.owesCuts()).toBe(false)
    owing.cut({ messages, view: view(33), state, pass: 7, now: 3 })
    expect(owing.owesCuts()).toBe(true)
  })

  it("writes a selection in the caller's transaction and takes it into memory only when settled", () => {
    const choices = [
      { id: "s1#c1", tier: "anchor" as const, reason: "demoted", belowFloor: true },
      { id: "s1#c2", tier: "full" as const, reason: "new", belowFloor: false },
    ]
    ledger.compartments()
    const pending = ledger.pendingOf(choices)
    expect(pending).toEqual({ choices, changes: choices, fold: ["s1#c1", "s1#c2"] })
    db.transaction(() => ledger.write(pending, { pass: 5, passId: null, pressure: 70, firstDivergence: 0, radius: 1, now: 9 }))
    expect([...currentSelections(db, SESSION)].map(([id, { tier }]) => [id, tier])).toEqual([["s1#c1", "anchor"], ["s1#c2", "full"]])
    expect(listCompartments(db, SESSION).map((stored) => stored.status)).toEqual(["folded", "folded"])
    expect(ledger.selections().current).toEqual(new Map())
    expect(ledger.compartments().map((stored) => stored.status)).toEqual(["closed", "closed"])
    ledger.settle(pending)
    expect(ledger.selections().current).toEqual(new Map([["s1#c1", "anchor"], ["s1#c2", "full"]]))
    expect(ledger.compartments().map((stored) => stored.status)).toEqual(["folded", "folded"])
    expect(ledger.pendingOf(choices)).toEqual({ choices, changes: [], fold: [] })
  })
})
