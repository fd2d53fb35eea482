import type { PassCaches } from "../../src/pass/pass-caches.js"
import { createMessageMemo } from "../../src/session/message-memo.js"
import { afterEach, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { SURVIVAL_CONTRACTS, type Tier } from "../../src/historian/fidelity-types.js"
import { WORKING_SET_HEADING } from "../../src/historian/compose-history.js"
import { compilePinPatterns } from "../../src/historian/pin-patterns.js"
import { PINNED_HEADING } from "../../src/historian/pinned-ledger.js"
import { createHistoryPlanner, POLICY_VERSION, type HistoryPlanner } from "../../src/pass/history-planner.js"
import { runPass, type PassResult } from "../../src/pass/run-pass.js"
import { createSessionRegistry } from "../../src/pass/session-registry.js"
import type { SessionState } from "../../src/session/session-state.js"
import { applyEdits } from "../../src/session/apply-edits.js"
import { buildLiveView } from "../../src/session/live-view.js"
import { fixedWindow, type WindowSettings } from "../../src/pressure/model-window.js"
import type { SelectionPolicy } from "../../src/render/select-tiers.js"
import { reasoningRuleById } from "../../src/session/reasoning-rules.js"
import { renderPrompt } from "../../src/render/render-prompt.js"
import { joinPrompt, serializeRendered, type SerializedPrompt } from "../../src/session/serialize-prompt.js"
import { utf8Length } from "../../src/session/utf8-length.js"
import {
  insertRepresentations,
  listCompartments,
  type StoredCompartment,
} from "../../src/store/compartment-repository.js"
import type { Database } from "../../src/store/driver.js"
import { listPasses } from "../../src/store/pass-repository.js"
import { insertPin } from "../../src/store/pin-repository.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  fillerWords,
  fixedClock,
  freshCopy,
  memoryStore,
  sessionState,
  text,
  tool,
  userMessage,
  wordCounter,
} from "../helpers/host-messages.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

/**
 * The planner through real passes on a `:memory:` store. Sizes are words (`wordCounter`): a turn is a user request
 * (a constraint, pinned) and an assistant answer with a decision and a read of `size` filler words.
 */

const NARRATIVE =
  "First I looked around the repository layout. Then I opened the test folder and the fixtures. After that I went " +
  "through the module list one by one. Finally I compared the two call sites side by side."

/** Turn `index`'s request: a constraint (pinned), with two identifiers. */
const requestOf = (index: number): string =>
  `Update src/mod${index}.ts next. Never remove the exported parseItem${index} function.`

/** One user turn (two messages). `narrative` adds sentences only the full tier carries. */
function turn(index: number, options: { size?: number; narrative?: boolean; request?: string } = {}): HostMessage[] {
  const created = 10_000 + index * 100
  const request = options.request ?? requestOf(index)
  const decision = `I'll use a lookup table in src/mod${index}.ts because it keeps the API stable.`
  const answer = options.narrative === true ? `${NARRATIVE} ${decision}` : decision
  return [
    userMessage({ id: `u${index}`, created, parts: [text(`u${index}t`, request)] }),
    assistantMessage({
      id: `a${index}`,
      created: created + 1,
      parts: [
        text(`a${index}t`, answer),
        tool(`a${index}r`, "read", completed({ filePath: `src/mod${index}.ts` }, fillerWords(options.size ?? 300))),
      ],
    }),
  ]
}

function turns(count: number, options: Parameters<typeof turn>[1] = {}, from = 1): HostMessage[] {
  return Array.from({ length: count }, (_, index) => turn(from + index, options)).flat()
}

/** A window where nothing is ever pressured; 300 protected words hold only the newest message of a turn. */
const quietWindow = (protectedTokens = 300): WindowSettings =>
  fixedWindow({ usableTokens: 1_000_000, config: { ...defaultConfig(), protected_tokens: protectedTokens } })

type Session = { db: Database; state: SessionState; planner: HistoryPlanner; caches: PassCaches }

const opened: Database[] = []
afterEach(() => {
  for (const db of opened.splice(0)) db.close()
})

type SessionOptions = { policy?: SelectionPolicy; pins?: string[]; expanded?: Set<string>; deferCuts?: boolean; counter?: typeof wordCounter }

async function openSession(options: SessionOptions = {}): Promise<Session> {
  const db = await memoryStore()
  opened.push(db)
  const state = sessionState({ db, counter: wordCounter })
  const planner = createHistoryPlanner({
    db,
    sessionId: state.sessionId,
    counter: options.counter ?? wordCounter,
    policy: options.policy ?? "default",
    pinPatterns: compilePinPatterns(options.pins ?? []).matchers,
    ...(options.expanded ? { expanded: options.expanded } : {}),
    ...(options.deferCuts ? { deferCuts: true } : {}),
  })
  return { db, state, planner, caches: passCachesOf(state) }
}

/** One transform call with the planner, on a fresh copy of `messages`, at the newest message's time. */
function pass(
  session: Session,
  messages: readonly HostMessage[],
  window: WindowSettings,
): { result: PassResult; rendered: HostMessage[] } {
  const rendered = freshCopy(messages)
  const newest = messages[messages.length - 1]
  const result = runPass({
    db: session.db,
    state: session.state,
    caches: session.caches,
    messages: rendered,
    counter: wordCounter,
    clock: fixedClock,
    trigger: "transform",
    tagsVisible: true,
    window,
    fixedTokens: 0,
    now: (newest?.info.time.created ?? 0) + 1_000,
    smartDrops: false,
    history: session.planner,
  })
  applyEdits(rendered, result.edits)
  return { result, rendered }
}

/** Prepares directly with the view of a pass that just ran (for exact budgets). */
function prepare(
  session: Session,
  messages: readonly HostMessage[],
  view: PassResult["view"],
  budgetTokens: number,
  fold = true,
) {
  return session.planner.prepare({ memo: session.caches.memo, 
    messages,
    view,
    state: session.state,
    pass: 900,
    now: 90_000,
    fold,
    budgetTokens,
    pinBudgetTokens: 1_000,
  })
}

const seqOf = (session: Session, id: string | undefined): number =>
  id === undefined ? Number.NaN : (session.state.messageSeq.get(id) ?? Number.NaN)

const compartmentsOf = (session: Session): StoredCompartment[] => listCompartments(session.db, session.state.sessionId)

/** A compartment's representation of `tier` (the canonical record's unless told otherwise). */
const representationOf = (compartment: StoredCompartment | undefined, tier: Tier) =>
  compartment?.representations.find((representation) => representation.tier === tier)

const representationRows = (db: Database) =>
  db
    .prepare(
      "SELECT id, compartment_id, tier, strategy, content, tokens, survival_contract, generator_model, " +
        "prompt_version, created_at FROM representations ORDER BY id",
    )
    .all()

const selectionRows = (db: Database) =>
  db
    .prepare(
      "SELECT pass_id, compartment_id, tier, previous_tier, reason, pressure, first_divergence, mutation_radius, " +
        "policy_version FROM selections ORDER BY id",
    )
    .all()

describe("createHistoryPlanner", () => {
  describe("cutting compartments", () => {
    it("cuts only in cut: prepare reads, and cut stores what settled since the last cut", async () => {
      const session = await openSession()
      const messages = turns(6)
      // A protected window larger than the session: nothing is settled, so the pass cuts nothing.
      pass(session, messages, quietWindow(1_000_000))
      expect(compartmentsOf(session)).toEqual([])
      // The same session seen with a small protected window has settled turns: prepare leaves them uncut ...
      const view = buildLiveView({ messages, state: session.state, protectedTokens: 300 })
      const input = { messages, view, state: session.state, pass: 90, now: 1 }
      session.planner.prepare({ memo: session.caches.memo,  ...input, fold: true, budgetTokens: 10_000, pinBudgetTokens: 1_000 })
      expect(compartmentsOf(session)).toEqual([])
      // ... and cut stores them, once.
      session.planner.cut(input)
      const cut = compartmentsOf(session)
      expect(cut.length).toBeGreaterThan(0)
      session.planner.cut(input)
      expect(compartmentsOf(session)).toEqual(cut)
    })

    it("cuts nothing of the running turn where the provider binds that turn's reasoning to its calls", async () => {
      // One finished turn, then a long turn still running: ten steps of 500 words each, past a 300-word protected window.
      const steps = Array.from({ length: 10 }, (_, index) =>
        assistantMessage({
          id: `s${index}`,
          created: 20_000 + index,
          parts: [tool(`s${index}r`, "read", completed({ filePath: `src/step${index}.ts` }, fillerWords(500)))],
        }),
      )
      const messages = [...turn(1), userMessage({ id: "u2", created: 19_999, parts: [text("u2t", requestOf(2))] }), ...steps]
      const unbound = await openSession()
      pass(unbound, messages, quietWindow())
      const running = seqOf(unbound, "u2")
      expect(compartmentsOf(unbound).some((compartment) => compartment.lastMessageSeq >= running)).toBe(true)

      const bound = await openSession()
      pass(bound, messages, { ...quietWindow(), reasoning: reasoningRuleById("openai-responses-reasoning") })
      const cut = compartmentsOf(bound)
      expect(cut.length).toBeGreaterThan(0)
      expect(cut.every((compartment) => compartment.lastMessageSeq < seqOf(bound, "u2"))).toBe(true)
    })

    it("leaves reasoning out of the episodes' tiers where the provider signs it", async () => {
      const thought = "Private chain of thought about src/mod1.ts that only the provider may read back."
      const messages = turns(6)
      const first = messages[1]
      if (first) first.parts.unshift({ id: "a1think", sessionID: first.info.sessionID, messageID: first.info.id, type: "reasoning", text: thought, time: { start: 1, end: 2 } })
      const tiersOf = async (window: WindowSettings): Promise<string> => {
        const session = await openSession()
        pass(session, messages, window)
        return compartmentsOf(session).flatMap((compartment) => compartment.representations.map((representation) => representation.content)).join("\n")
      }
      expect(await tiersOf(quietWindow())).toContain(thought)
      const signed = await tiersOf({ ...quietWindow(), reasoning: reasoningRuleById("anthropic-thinking") })
      expect(signed).not.toContain("Private chain of thought")
      expect(signed).toContain("lookup table in src/mod1.ts")
    })

    it("with deferCuts stores a pass's cut later, from the messages as the pass read them: the compartments cut at once", async () => {
      const atOnce = await openSession()
      const deferred = await openSession({ deferCuts: true })
      const all = turns(12)
      const window = quietWindow(850)
      let owed = 0
      for (let count = 2; count <= all.length; count += 2) {
        const before = compartmentsOf(atOnce).length
        pass(atOnce, all.slice(0, count), window)
        // The shell writes the pass's edits (tags) into its messages (`pass` does) before the cut is stored.
        pass(deferred, all.slice(0, count), window)
        // The pass stores what the pass before it owed (reading the compartments first), not its own cut; every other
        // pass is settled at once, the others by the next pass's read.
        expect(compartmentsOf(deferred).length).toBe(before)
        if (compartmentsOf(atOnce).length > before) owed += 1
        if (count % 4 === 0) deferred.planner.settleCuts()
        else continue
        expect(compartmentsOf(deferred)).toEqual(compartmentsOf(atOnce))
      }
      deferred.planner.settleCuts()
      expect(owed).toBeGreaterThan(2)
      expect(compartmentsOf(deferred)).toEqual(compartmentsOf(atOnce))
      // Tags in the tiers come from the records (`§N§` once), not from the tagged text the shell wrote.
      const full = compartmentsOf(deferred).map((compartment) => representationOf(compartment, "full")?.content ?? "")
      expect(full.join("\n")).not.toMatch(/§\d+§ §\d+§/)
    })

    it("stores a deferred cut in slices when told to, oldest first: the compartments cut at once", async () => {
      const atOnce = await openSession()
      const deferred = await openSession({ deferCuts: true })
      const all = turns(12)
      const window = quietWindow(850)
      // Two passes' cuts owed: the first pass's and, after a pass that settles nothing itself, the second's.
      pass(atOnce, all.slice(0, 12), window)
      pass(atOnce, all, window)
      const expected = compartmentsOf(atOnce)
      expect(expected.length).toBeGreaterThan(3)
      pass(deferred, all.slice(0, 12), window)
      const first = compartmentsOf(deferred).length
      const counts: number[] = []
      let owed = true
      while (owed) {
        owed = deferred.planner.settleCuts(2)
        counts.push(compartmentsOf(deferred).length)
      }
      // Each slice stores at most two, in order, and together they are the cut made at once.
      expect(counts.length).toBeGreaterThan(1)
      expect(first).toBe(0)
      counts.forEach((count, index) => expect(count - (counts[index - 1] ?? 0)).toBeLessThanOrEqual(2))
      expect(compartmentsOf(deferred)).toEqual(expected.slice(0, counts[counts.length - 1]))
      pass(deferred, all, window)
      deferred.planner.settleCuts(1)
      deferred.planner.settleCuts()
      expect(compartmentsOf(deferred)).toEqual(expected)
      expect(deferred.planner.settleCuts(5)).toBe(false)
    })

    it("forgets a deferred cut whose store write fails, and the next pass cuts those messages again", async () => {
      let failing = false
      const counter = { ...wordCounter, count: (text: string): number => {
        if (failing) throw new Error("counter down")
        return wordCounter.count(text)
      } }
      const atOnce = await openSession()
      const deferred = await openSession({ deferCuts: true, counter })
      const all = turns(12)
      const window = quietWindow(850)
      pass(atOnce, all.slice(0, 16), window)
      pass(deferred, all.slice(0, 16), window)
      expect(compartmentsOf(atOnce).length).toBeGreaterThan(0)
      failing = true
      expect(() => deferred.planner.settleCuts()).toThrow("counter down")
      failing = false
      expect(compartmentsOf(deferred)).toEqual([])
      // Nothing is owed any more: settling again stores nothing.
      deferred.planner.settleCuts()
      expect(compartmentsOf(deferred)).toEqual([])
      pass(atOnce, all, window)
      pass(deferred, all, window)
      deferred.planner.settleCuts()
      expect(compartmentsOf(deferred).length).toBeGreaterThan(0)
      expect(compartmentsOf(deferred)).toEqual(compartmentsOf(atOnce))
    })

    it("tells what a fold would free from every closed compartment cut so far, as the session grows pass by pass", async () => {
      const session = await openSession()
      const all = turns(12)
      const window = quietWindow(850)
      const expected = (): { quiet: number; budgeted: number } => {
        let quiet = 0
        let budgeted = 0
        for (const compartment of listCompartments(session.db, session.state.sessionId)) {
          if (compartment.status !== "closed") continue
          const tokensAt = (tier: Tier): number => compartment.representations.find((representation) => representation.tier === tier)?.tokens ?? compartment.sourceTokens
          quiet += Math.max(0, compartment.sourceTokens - tokensAt("full"))
          budgeted += Math.max(0, compartment.sourceTokens - tokensAt("anchor"))
        }
        return { quiet, budgeted }
      }
      const seen = new Set<number>()
      for (let count = 2; count <= all.length; count += 2) {
        pass(session, all.slice(0, count), window)
        // Asked before and after a pass's cut, from the compartments it had and then from the ones it added.
        expect(session.planner.foldGains()).toEqual(expected())
        seen.add(compartmentsOf(session).length)
      }
      expect(seen.size).toBeGreaterThan(2)
      expect(expected().budgeted).toBeGreaterThan(0)
    })

    it("cuts only settled messages, never the protected window nor the newest message, each exactly once", async () => {
      const session = await openSession()
      const all = turns(12)
      const window = quietWindow(850)
      for (let count = 1; count <= all.length; count += 1) {
        const messages = all.slice(0, count)
        const { result } = pass(session, messages, window)
        const compartments = compartmentsOf(session)
        const oldestProtected = seqOf(session, result.view.messages[result.view.protectedFrom]?.info.id)
        const newest = seqOf(session, messages[messages.length - 1]?.info.id)
        const protectedFrom = Number.isNaN(oldestProtected) ? Number.POSITIVE_INFINITY : oldestProtected
        const settledBefore = Math.min(protectedFrom, newest)
        let next = 1
        for (const compartment of compartments) {
          expect(compartment.firstMessageSeq).toBe(next)
          expect(compartment.lastMessageSeq).toBeGreaterThanOrEqual(compartment.firstMessageSeq)
          expect(compartment.lastMessageSeq).toBeLessThan(settledBefore)
          next = compartment.lastMessageSeq + 1
        }
        // What is settled and not cut yet is one turn still going on: it starts with the user's message, the next
        // message (the oldest protected one, or the newest) is not a new turn, and it is small.
        const uncut = messages.filter((message) => {
          const seq = seqOf(session, message.info.id)
          return seq >= next && seq < settledBefore
        })
        if (uncut.length > 0) {
          expect(uncut[0]?.info.role).toBe("user")
          expect(uncut.slice(1).every((message) => message.info.role === "assistant")).toBe(true)
          expect(messages[messages.indexOf(uncut.at(-1) as HostMessage) + 1]?.info.role).toBe("assistant")
        }
      }
      const final = compartmentsOf(session)
      // 12 turns of ~330 words and an 850-word protected window (a12, u12, a11, u11, and a10, most of which lies inside):
      // turns 1-9 are cut, u10 waits.
      expect(final.map((compartment) => [compartment.firstMessageSeq, compartment.lastMessageSeq])).toEqual(
        Array.from({ length: 9 }, (_, index) => [index * 2 + 1, index * 2 + 2]),
      )
      const ids = Array.from({ length: 9 }, (_, index) => `ses_test#c${index + 1}`)
      expect(final.map((compartment) => compartment.id)).toEqual(ids)
    })

    it("cuts nothing more when the same messages come again", async () => {
      const session = await openSession()
      const messages = turns(5)
      pass(session, messages, quietWindow())
      const before = compartmentsOf(session)
      for (let again = 0; again < 3; again += 1) pass(session, messages, quietWindow())
      expect(compartmentsOf(session)).toEqual(before)
      expect(before).toHaveLength(4)
    })

    it("never cuts the newest message, even with no protected window", async () => {
      const session = await openSession()
      const messages = turns(3)
      pass(session, messages, quietWindow(0))
      const compartments = compartmentsOf(session)
      expect(compartments.map((compartment) => [compartment.firstMessageSeq, compartment.lastMessageSeq])).toEqual([
        [1, 2],
        [3, 4],
      ])
      // u3 waits: its turn (a3, the newest) is still going on.
      const lastCut = Math.max(...compartments.map((compartment) => compartment.lastMessageSeq))
      expect(lastCut).toBeLessThan(seqOf(session, "a3"))
    })

    it("cuts a long turn that is still going on once it holds enough to be an episode", async () => {
      const session = await openSession()
      const long: HostMessage[] = [
        userMessage({ id: "u1", created: 1, parts: [text("u1t", "Port the whole lexer to src/lexer.ts.")] }),
        ...Array.from({ length: 6 }, (_, index) =>
          assistantMessage({
            id: `a${index}`,
            created: 2 + index,
            parts: [tool(`r${index}`, "read", completed({ filePath: `src/part${index}.ts` }, fillerWords(500)))],
          }),
        ),
      ]
      pass(session, long, quietWindow(800))
      const [only, ...rest] = compartmentsOf(session)
      expect(rest).toEqual([])
      // Everything before the two protected reads is one episode of ~2,000 words or more.
      expect(only?.firstMessageSeq).toBe(1)
      expect(only?.lastMessageSeq).toBe(5)
      expect(only?.sourceTokens).toBeGreaterThanOrEqual(2_000)
    })
  })

  describe("canonical representations", () => {
    it("writes each compartment's canonical tiers once, with token counts, contracts and source lineage", async () => {
      const session = await openSession()
      pass(session, turns(3, { narrative: true }), quietWindow())
      const rows = representationRows(session.db)
      expect(rows.length).toBeGreaterThan(0)
      expect(new Set(rows.map((row) => row["compartment_id"]))).toEqual(new Set(["ses_test#c1", "ses_test#c2"]))
      for (const row of rows) {
        expect(row["strategy"]).toBe("canonical-record")
        expect(row["tokens"]).toBe(wordCounter.count(String(row["content"])))
        expect(row["survival_contract"]).toBe(SURVIVAL_CONTRACTS[row["tier"] as keyof typeof SURVIVAL_CONTRACTS])
        expect([row["generator_model"], row["prompt_version"]]).toEqual([null, null])
      }
      const tiers = rows.filter((row) => row["compartment_id"] === "ses_test#c1").map((row) => row["tier"])
      // The narrative lives in dense (below the source, above compact).
      expect(tiers).toEqual(["full", "dense", "compact", "anchor"])
      const lineage = session.db
        .prepare("SELECT source_refs_json FROM representations WHERE compartment_id = 'ses_test#c1'")
        .all()
      expect(new Set(lineage.map((row) => row["source_refs_json"]))).toEqual(
        new Set([JSON.stringify({ tags: [1, 2, 3], messageIds: ["u1", "a1"] })]),
      )
    })

    it("never rewrites them on later passes, folds or tier changes", async () => {
      const session = await openSession()
      const all = turns(10, { narrative: true })
      pass(session, all.slice(0, 8), quietWindow())
      const written = representationRows(session.db)
      const idsOf = (rows: typeof written): Set<unknown> => new Set(rows.map((row) => row["compartment_id"]))
      expect(idsOf(written)).toEqual(new Set(["ses_test#c1", "ses_test#c2", "ses_test#c3"]))
      // More passes: quiet, then pressured with a fold and a demotion.
      pass(session, all, quietWindow())
      const { result } = pass(session, all, quietWindow())
      prepare(session, all, result.view, 10_000)
      session.planner.commit({ pass: 950, passId: null, pressure: 80, firstDivergence: 0, radius: 10, now: 99_000 })
      prepare(session, all, result.view, 40)
      session.planner.commit({ pass: 951, passId: null, pressure: 90, firstDivergence: 0, radius: 10, now: 99_500 })
      const after = representationRows(session.db)
      expect(after.slice(0, written.length)).toEqual(written)
      const added = new Set([4, 5, 6, 7, 8, 9].map((index) => `ses_test#c${index}`))
      expect(idsOf(after.slice(written.length))).toEqual(added)
      expect(selectionRows(session.db).some((row) => row["previous_tier"] !== null)).toBe(true)
    })
  })

  describe("prepare", () => {
    it("prepares nothing below the threshold", async () => {
      const session = await openSession()
      const messages = turns(6)
      const { result } = pass(session, messages, quietWindow())
      expect(compartmentsOf(session)).toHaveLength(5)
      expect(prepare(session, messages, result.view, 10, false)).toBeNull()
      expect(session.state.applied.history).toBeNull()
      expect(session.planner.report()).toBeNull()
      expect(selectionRows(session.db)).toEqual([])
      expect(compartmentsOf(session).every((compartment) => compartment.status === "closed")).toBe(true)
    })

    it("prepares nothing when there are no compartments yet", async () => {
      const session = await openSession()
      const messages = turns(1)
      const { result } = pass(session, messages, quietWindow())
      expect(prepare(session, messages, result.view, 1_000)).toBeNull()
    })

    it("prepares history through the last compartment, with the chosen tiers, pins and working set", async () => {
      const session = await openSession()
      const messages = turns(4)
      const { result } = pass(session, messages, quietWindow())
      const compartments = compartmentsOf(session)
      const ready = prepare(session, messages, result.view, 10_000)
      expect(ready?.foldThroughSeq).toBe(compartments.at(-1)?.lastMessageSeq)
      expect(ready?.foldThroughSeq).toBe(6)
      expect(ready?.tokens).toBe(wordCounter.count(ready?.text ?? ""))
      const text = ready?.text ?? ""
      for (const compartment of compartments) {
        expect(text).toContain(representationOf(compartment, "full")?.content)
      }
      expect(text).toContain(`## Pinned (verbatim; these still apply)\n- §1§ ${requestOf(1)}`)
      expect(text).toContain("Current objective (user's words): Update src/mod4.ts next.")
      expect(text.startsWith("<session-history>")).toBe(true)
      // Prepared, not applied: nothing is recorded until an execute pass commits.
      expect(selectionRows(session.db)).toEqual([])
      expect(session.planner.report()).toBeNull()
    })

    it("demotes within the history budget and reports the tiers and no floor violations", async () => {
      const session = await openSession()
      const messages = turns(4, { narrative: true })
      const { result } = pass(session, messages, quietWindow())
      const ready = prepare(session, messages, result.view, 120)
      session.planner.commit({ pass: 901, passId: null, pressure: 70, firstDivergence: 0, radius: 1, now: 91_000 })
      expect(ready).not.toBeNull()
      expect(session.planner.report()).toMatchObject({
        tiers: { c1: "compact", c2: "compact", c3: "compact" },
        floorViolations: 0,
        switches: 0,
      })
    })
  })

  describe("commit through an execute pass", () => {
    /**
     * A window where 8 turns cross the 65% threshold. The landing line leaves the compartments 1,172 words: they enter
     * at dense (85 each) and the newest is promoted to full (372) in the same selection.
     */
    const PRESSURED = fixedWindow({ usableTokens: 4_000, config: { ...defaultConfig(), protected_tokens: 600 } })

    it("records selections with previous tier, reason, pressure, divergence, radius, policy; folds", async () => {
      const session = await openSession()
      const all = turns(9, { narrative: true })
      let previousPrompt: SerializedPrompt | null = null
      let executed: { result: PassResult; previous: SerializedPrompt | null } | null = null
      for (let count = 2; count <= all.length && executed === null; count += 2) {
        previousPrompt = session.state.previousPrompt
        const { result } = pass(session, all.slice(0, count), PRESSURED)
        if (result.decision === "execute") executed = { result, previous: previousPrompt }
      }
      if (executed === null) throw new Error("no execute pass")
      const { result, previous } = executed
      const compartments = compartmentsOf(session)
      expect(compartments.every((compartment) => compartment.status === "folded")).toBe(true)
      const passRow = session.db
        .prepare("SELECT id, usage_tokens, window_tokens FROM passes WHERE seq = ?")
        .get([result.seq])
      const rows = selectionRows(session.db)
      expect(rows).toHaveLength(compartments.length)
      expect(result.firstDivergence).not.toBeNull()
      for (const row of rows) {
        expect(row).toMatchObject({
          pass_id: passRow?.["id"],
          previous_tier: null,
          pressure: (Number(passRow?.["usage_tokens"]) / Number(passRow?.["window_tokens"])) * 100,
          first_divergence: result.firstDivergence,
          mutation_radius: utf8Length(previous === null ? "" : joinPrompt(previous)) - (result.firstDivergence ?? 0),
          policy_version: POLICY_VERSION,
        })
      }
      // Six compartments at dense (510 of 1,172, under 60%); the newest is promoted to full while under 75% (797).
      // A promoted new compartment is still recorded as new.
      expect(session.planner.report()?.budgetTokens).toBe(1_172)
      expect(rows.map((row) => [row["compartment_id"], row["tier"], row["reason"]])).toEqual([
        ["ses_test#c1", "dense", "new"],
        ["ses_test#c2", "dense", "new"],
        ["ses_test#c3", "dense", "new"],
        ["ses_test#c4", "dense", "new"],
        ["ses_test#c5", "dense", "new"],
        ["ses_test#c6", "full", "new"],
      ])
      const foldedPasses = session.db.prepare("SELECT DISTINCT folded_pass FROM compartments").all()
      expect(foldedPasses).toEqual([{ folded_pass: result.seq }])
      expect(session.state.applied.history?.foldedThroughSeq).toBe(compartments.at(-1)?.lastMessageSeq)
      const applied = Object.fromEntries(rows.map((row) => [String(row["compartment_id"]).split("#")[1], row["tier"]]))
      expect(session.planner.report()?.tiers).toEqual(applied)
    })

    it("records a later tier change with the tier it replaced", async () => {
      const session = await openSession()
      const messages = turns(5, { narrative: true })
      const { result } = pass(session, messages, quietWindow())
      prepare(session, messages, result.view, 10_000)
      session.planner.commit({ pass: 901, passId: null, pressure: 66, firstDivergence: 12, radius: 345, now: 91_000 })
      expect(session.planner.report()?.switches).toBe(0)
      prepare(session, messages, result.view, 100)
      session.planner.commit({ pass: 902, passId: null, pressure: 91, firstDivergence: 7, radius: 999, now: 92_000 })
      const changes = selectionRows(session.db).slice(4)
      expect(changes.length).toBeGreaterThan(0)
      for (const change of changes) {
        expect(change).toMatchObject({
          pass_id: null,
          tier: "compact",
          previous_tier: "full",
          reason: "demoted: history over budget",
          pressure: 91,
          first_divergence: 7,
          mutation_radius: 999,
          policy_version: "selection-v1",
        })
      }
      expect(session.planner.report()?.switches).toBe(changes.length)
      expect(session.planner.switches()).toBe(changes.length)
    })

    it("records nothing and prepares nothing when no tier changes and nothing new is to fold", async () => {
      const session = await openSession()
      const messages = turns(4)
      const { result } = pass(session, messages, quietWindow())
      prepare(session, messages, result.view, 10_000)
      session.planner.commit({ pass: 901, passId: null, pressure: 66, firstDivergence: 0, radius: 1, now: 91_000 })
      const recorded = selectionRows(session.db)
      expect(prepare(session, messages, result.view, 10_000)).toBeNull()
      session.planner.commit({ pass: 902, passId: null, pressure: 66, firstDivergence: 0, radius: 1, now: 92_000 })
      expect(selectionRows(session.db)).toEqual(recorded)
    })

    it("commits nothing without a prepared history", async () => {
      const session = await openSession()
      pass(session, turns(4), quietWindow())
      session.planner.commit({ pass: 901, passId: null, pressure: 66, firstDivergence: 0, radius: 1, now: 91_000 })
      expect(selectionRows(session.db)).toEqual([])
      expect(session.planner.report()).toBeNull()
    })

    it("reloads the applied tiers in a new planner, so a restarted process keeps its selections", async () => {
      const session = await openSession()
      const messages = turns(5, { narrative: true })
      const { result } = pass(session, messages, quietWindow())
      prepare(session, messages, result.view, 100)
      session.planner.commit({ pass: 901, passId: null, pressure: 80, firstDivergence: 0, radius: 1, now: 91_000 })
      const restarted = createHistoryPlanner({
        db: session.db,
        sessionId: session.state.sessionId,
        counter: wordCounter,
        policy: "default",
      })
      // 60% to 100% of the budget: hysteresis keeps what was applied, and nothing new is to fold.
      const again = restarted.prepare({ memo: createMessageMemo(), 
        messages,
        view: result.view,
        state: session.state,
        pass: 902,
        now: 1,
        fold: true,
        budgetTokens: 150,
        pinBudgetTokens: 1_000,
      })
      expect(again).toBeNull()
    })
  })

  describe("with the truncation policy", () => {
    it("omits the oldest compartments and counts one that stays omitted as no switch", async () => {
      const session = await openSession({ policy: "truncation" })
      const messages = turns(5)
      const { result } = pass(session, messages, quietWindow())
      const full = compartmentsOf(session).map((compartment) => representationOf(compartment, "full")?.tokens ?? 0)
      // Room for the newest two compartments at full.
      const budget = (full[2] ?? 0) + (full[3] ?? 0)
      const ready = prepare(session, messages, result.view, budget)
      session.planner.commit({ pass: 901, passId: null, pressure: 70, firstDivergence: 0, radius: 1, now: 1 })
      expect(session.planner.report()).toMatchObject({
        tiers: { c1: "omitted", c2: "omitted", c3: "full", c4: "full" },
        floorViolations: 2,
        switches: 0,
      })
      expect(ready?.text).not.toContain("[c1 ")
      // Omitted compartments are not recorded as selections.
      expect(selectionRows(session.db).map((row) => row["compartment_id"])).toEqual(["ses_test#c3", "ses_test#c4"])
      // The same pressure again: nothing new to fold and nothing switched, so nothing to apply.
      expect(prepare(session, messages, result.view, budget)).toBeNull()
      expect(session.planner.switches()).toBe(0)
    })

    it("counts a compartment that leaves the history as a switch", async () => {
      const session = await openSession({ policy: "truncation" })
      const messages = turns(5)
      const { result } = pass(session, messages, quietWindow())
      prepare(session, messages, result.view, 10_000)
      session.planner.commit({ pass: 901, passId: null, pressure: 70, firstDivergence: 0, radius: 1, now: 1 })
      const ready = prepare(session, messages, result.view, 1)
      session.planner.commit({ pass: 902, passId: null, pressure: 90, firstDivergence: 0, radius: 1, now: 2 })
      expect(ready).not.toBeNull()
      expect(session.planner.report()).toMatchObject({
        tiers: { c1: "omitted", c2: "omitted", c3: "omitted", c4: "omitted" },
        switches: 4,
      })
      expect(prepare(session, messages, result.view, 1)).toBeNull()
      expect(session.planner.switches()).toBe(4)
    })
  })

  describe("model representations", () => {
    it("prefers a complete source-grounded-model set after invalidate()", async () => {
      const session = await openSession()
      const messages = turns(3)
      const { result } = pass(session, messages, quietWindow())
      const model = (tier: "full" | "compact" | "anchor", content: string) => ({
        tier,
        strategy: "source-grounded-model" as const,
        content,
        tokens: wordCounter.count(content),
        generatorModel: "openai/gpt-5",
        promptVersion: "historian-v1",
        survivalContract: SURVIVAL_CONTRACTS[tier],
        sourceRefs: { tags: [1], messageIds: [] },
      })
      const complete = [
        model("full", "MODEL FULL c1"),
        model("compact", "MODEL COMPACT c1"),
        model("anchor", "MODEL ANCHOR c1"),
      ]
      insertRepresentations(session.db, "ses_test#c1", complete, 5)
      // Without an anchor the model's set is incomplete and not used.
      insertRepresentations(session.db, "ses_test#c2", [model("full", "MODEL FULL c2")], 5)
      expect(prepare(session, messages, result.view, 10_000)?.text).not.toContain("MODEL")
      session.planner.invalidate()
      const text = prepare(session, messages, result.view, 10_000)?.text ?? ""
      // FULL is the episode's source whoever wrote the other tiers: the canonical one, never the model's.
      const canonicalFull = (index: number) =>
        compartmentsOf(session)[index]?.representations.find(
          (representation) => representation.strategy === "canonical-record" && representation.tier === "full",
        )?.content
      expect(text).not.toContain("MODEL FULL")
      expect(text).toContain(canonicalFull(0))
      expect(text).toContain(canonicalFull(1))
      // The model's tiers are selected like the canonical ones: demoted under pressure, never below the floor (c1
      // holds a decision: compact), so the model's anchor is not legal.
      session.planner.commit({ pass: 901, passId: null, pressure: 70, firstDivergence: 0, radius: 1, now: 1 })
      const demoted = prepare(session, messages, result.view, 20)?.text ?? ""
      expect(demoted).toContain("MODEL COMPACT c1")
      expect(demoted).not.toContain("MODEL ANCHOR c1")
    })
  })

  describe("pins", () => {
    it("makes facts a config pin pattern matches PIN, and keeps them verbatim in the ledger", async () => {
      const session = await openSession({ pins: ["/lookup table in src\\/mod2/"] })
      const messages = turns(4)
      const { result } = pass(session, messages, quietWindow())
      const decision = "I'll use a lookup table in src/mod2.ts because it keeps the API stable."
      const items = session.db
        .prepare("SELECT compartment_id, kind, retention, floor FROM items WHERE text = ?")
        .all([decision])
      expect(items).toEqual([{ compartment_id: "ses_test#c2", kind: "decision", retention: "PIN", floor: "exact" }])
      const other = session.db
        .prepare("SELECT retention FROM items WHERE text LIKE '%lookup table in src/mod1.ts%'")
        .all()
      expect(other).toEqual([{ retention: "COMPRESSIBLE" }])
      const text = prepare(session, messages, result.view, 1)?.text ?? ""
      expect(text).toContain(`\n- §5§ ${decision}\n`)
    })

    it("shows an agent's pin in the ledger only once its message is folded", async () => {
      const session = await openSession()
      const messages = turns(5)
      const { result } = pass(session, messages, quietWindow())
      // §3§: the read in a1 (folded); §13§: the read in a5 (live, newest).
      insertPin(session.db, session.state.sessionId, { tag: 3, text: "PINNED READ OF MOD1", pinnedBy: "agent" }, 1)
      insertPin(session.db, session.state.sessionId, { tag: 15, text: "PINNED READ OF MOD5", pinnedBy: "agent" }, 1)
      expect(session.state.tagsByNumber.get(15)?.messageId).toBe("a5")
      const ready = prepare(session, messages, result.view, 10_000)
      expect(ready?.foldThroughSeq).toBe(8)
      expect(ready?.text).toContain("- §3§ PINNED READ OF MOD1")
      expect(ready?.text).not.toContain("MOD5")
    })

    it("condenses the oldest pins into their episodes once the ledger is full, verbatim in every tier", async () => {
      const session = await openSession()
      const messages = turns(7)
      const { result } = pass(session, messages, quietWindow())
      const prepareAt = (pinBudgetTokens: number, budgetTokens: number) =>
        session.planner.prepare({ memo: session.caches.memo,  messages, view: result.view, state: session.state, pass: 1, now: 1, fold: true, budgetTokens, pinBudgetTokens })
      // The six requests do not fit in 50 words; the ledger's heading, its notice and one request do, two do not.
      const ready = prepareAt(50, 10_000)
      const text = ready?.text ?? ""
      const ledger = text.slice(text.indexOf(PINNED_HEADING), text.indexOf(WORKING_SET_HEADING) - 2)
      expect(ledger).toBe(
        `${PINNED_HEADING}\n(The ledger is full: the 5 pins it let go, oldest first and constraints last, are kept verbatim in the episodes that hold them, under "Pinned (verbatim; these still apply)".)\n- §16§ ${requestOf(6)}`,
      )
      expect(wordCounter.count(ledger)).toBeLessThanOrEqual(50)
      // With room in the budget the episodes are promoted to FULL, which holds the user's words itself.
      const blockOf = (history: string, index: number): string => history.slice(history.indexOf(`\n\n[c${index} `) + 2).split("\n\n")[0] ?? ""
      for (const index of [1, 2]) expect(blockOf(text, index)).toContain(requestOf(index))
      // Whatever tier the budget forces, each condensed request is still in its own episode word for word.
      for (const budget of [10_000, 100, 1]) {
        const squeezed = prepareAt(50, budget)?.text ?? ""
        for (const index of [1, 2]) expect(blockOf(squeezed, index)).toContain(requestOf(index))
        expect(squeezed).toContain(`- §16§ ${requestOf(6)}`)
      }
      const squeezed = prepareAt(50, 1)?.text ?? ""
      expect(blockOf(squeezed, 1)).toContain(`Pinned (verbatim; these still apply):\n- §1§ ${requestOf(1)}`)
      // The same state gives the same bytes.
      expect(prepareAt(50, 10_000)?.text).toBe(text)
      prepareAt(50, 10_000)
      session.planner.commit({ pass: 1, passId: null, pressure: 70, firstDivergence: null, radius: null, now: 1 })
      expect(session.planner.report()).toMatchObject({ pinTokens: wordCounter.count(ledger), condensedPins: 5, omittedCompartments: 0, hiddenPins: 0 })
    })

    it("omits the oldest compartments, saying so, when even their anchors exceed the ceiling", async () => {
      const session = await openSession()
      const messages = turns(6)
      const { result } = pass(session, messages, quietWindow())
      const prepared = session.planner.prepare({ memo: session.caches.memo, 
        messages,
        view: result.view,
        state: session.state,
        pass: 1,
        now: 1,
        fold: true,
        budgetTokens: 1,
        roomTokens: 0,
        ceilingTokens: 200,
        pinBudgetTokens: 0,
      })
      const text = prepared?.text ?? ""
      expect(text).toMatch(/\(Not shown: \d+ earlier episodes? from c1 to c\d+/)
      expect(text).not.toContain("\n\n[c1 ")
      expect(prepared?.tokens).toBeLessThanOrEqual(200)
      session.planner.commit({ pass: 1, passId: null, pressure: 70, firstDivergence: null, radius: null, now: 1 })
      const report = session.planner.report()
      expect(report?.omittedCompartments).toBeGreaterThan(0)
      expect(report?.tiers["c1"]).toBe("omitted")
      expect(report?.floorViolations).toBeGreaterThanOrEqual(report?.omittedCompartments ?? 0)
      // Every pin of an omitted episode is counted as hidden; the others are in the history.
      expect(report?.hiddenPins).toBe(report?.omittedCompartments)
    })
  })

  describe("relevance", () => {
    /** Three compartments with full and dense (the narrative) tiers: a budget just under their total needs one demotion. */
    async function threeCompartments(options: { expanded?: Set<string>; tail?: string } = {}) {
      const session = await openSession(options.expanded ? { expanded: options.expanded } : {})
      const messages = [
        ...turns(3, { narrative: true }),
        userMessage({ id: "u9", created: 20_000, parts: [text("u9t", "Carry on with the next module.")] }),
        // The protected tail (300 words): only a9.
        assistantMessage({
          id: "a9",
          created: 20_001,
          parts: [
            text("a9t", options.tail ?? "Reading the next module."),
            tool("a9r", "read", completed({ filePath: "src/next.ts" }, fillerWords(300))),
          ],
        }),
      ]
      const { result } = pass(session, messages, quietWindow())
      const compartments = compartmentsOf(session)
      const full = compartments.map((compartment) => representationOf(compartment, "full")?.tokens ?? 0)
      const compact = compartments.map((compartment) => representationOf(compartment, "dense")?.tokens ?? 0)
      const total = full.reduce((sum, tokens) => sum + tokens, 0)
      // One demotion (the largest saving is the smallest full - dense) must reach 85%, the budget must be exceeded.
      const budget = total - 1
      const smallestSaving = Math.min(...full.map((tokens, index) => tokens - (compact[index] ?? 0)))
      expect(total - smallestSaving).toBeLessThanOrEqual(budget * 0.85)
      prepare(session, messages, result.view, budget)
      session.planner.commit({ pass: 901, passId: null, pressure: 70, firstDivergence: 0, radius: 1, now: 1 })
      return session.planner.report()?.tiers
    }

    it("demotes the oldest compartment first", async () => {
      expect(await threeCompartments()).toEqual({ c1: "dense", c2: "full", c3: "full" })
    })

    it("demotes an expanded compartment last", async () => {
      const tiers = await threeCompartments({ expanded: new Set(["ses_test#c1"]) })
      expect(tiers).toEqual({ c1: "full", c2: "dense", c3: "full" })
    })

    it("demotes a compartment whose identifiers reappear in the protected tail last", async () => {
      const tail = "Back to parseItem1: it must stay exported from src/mod1.ts."
      expect(await threeCompartments({ tail })).toEqual({ c1: "full", c2: "dense", c3: "full" })
    })

    it("reads only the newest 40,000 characters of the protected tail", async () => {
      const named = "Back to parseItem1: it must stay exported from src/mod1.ts."
      expect(await threeCompartments({ tail: `${named} ${"x".repeat(39_000)}` })).toEqual({ c1: "full", c2: "dense", c3: "full" })
      expect(await threeCompartments({ tail: `${named} ${"x".repeat(40_000)}` })).toEqual({ c1: "dense", c2: "full", c3: "full" })
    })

    it("does not count one identifier alone as relevant again", async () => {
      const tiers = await threeCompartments({ tail: "parseItem1 is still used somewhere." })
      expect(tiers).toEqual({ c1: "dense", c2: "full", c3: "full" })
    })

    it("looks for identifiers only in the protected tail, not in older live messages", async () => {
      const session = await openSession()
      const messages = [
        ...turns(3, { narrative: true }),
        userMessage({
          id: "u9",
          created: 20_000,
          parts: [text("u9t", "Back to parseItem1: it must stay exported from src/mod1.ts.")],
        }),
        assistantMessage({
          id: "a9",
          created: 20_001,
          parts: [tool("a9r", "read", completed({ filePath: "src/next.ts" }, fillerWords(300)))],
        }),
      ]
      const { result } = pass(session, messages, quietWindow())
      expect(result.view.messages[result.view.protectedFrom]?.info.id).toBe("a9")
      const compartments = compartmentsOf(session)
      const total = compartments.reduce((sum, compartment) => sum + (compartment.representations[0]?.tokens ?? 0), 0)
      prepare(session, messages, result.view, total - 1)
      session.planner.commit({ pass: 901, passId: null, pressure: 70, firstDivergence: 0, radius: 1, now: 1 })
      expect(session.planner.report()?.tiers).toEqual({ c1: "dense", c2: "full", c3: "full" })
    })
  })

  describe("determinism", () => {
    it("renders the same stored state twice to the same bytes, also from a reloaded state", async () => {
      const session = await openSession()
      const all = turns(9, { narrative: true })
      const window = fixedWindow({ usableTokens: 4_000, config: { ...defaultConfig(), protected_tokens: 400 } })
      let last: HostMessage[] = []
      for (let count = 2; count <= all.length; count += 1) last = pass(session, all.slice(0, count), window).rendered
      const history = session.state.applied.history
      expect(history).not.toBeNull()
      const render = (state: SessionState): string => {
        const messages = freshCopy(all)
        const edits = renderPrompt({ messages, state, tagsVisible: true, placements: state.applied.placements })
        return serializeRendered(messages, edits)
      }
      const reloaded = createSessionRegistry({ db: session.db, now: fixedClock.now }).stateFor(
        { id: session.state.sessionId, source: "opencode", projectId: null, directory: null, title: null },
        wordCounter,
      )
      const first = render(session.state)
      expect(render(session.state)).toBe(first)
      expect(render(reloaded)).toBe(first)
      expect(reloaded.applied.history).toEqual(history)
      expect(first).toContain(history?.text ?? "no history")
      expect(JSON.stringify(last)).toContain(JSON.stringify(history?.text ?? "no history").slice(1, -1))
    })

    it("prepares the same history text from the same stored state in a fresh planner", async () => {
      const session = await openSession()
      const messages = turns(6, { narrative: true })
      const { result } = pass(session, messages, quietWindow())
      const again = createHistoryPlanner({
        db: session.db,
        sessionId: session.state.sessionId,
        counter: wordCounter,
        policy: "default",
      })
      const first = prepare(session, messages, result.view, 200)
      const second = again.prepare({ memo: createMessageMemo(), 
        messages,
        view: result.view,
        state: session.state,
        pass: 900,
        now: 90_000,
        fold: true,
        budgetTokens: 200,
        pinBudgetTokens: 1_000,
      })
      expect(second).toEqual(first)
    })
  })
})

describe("a priced fold below the threshold", () => {
  /** Turns of ~330 words in a window where the history budget (15% of the threshold) is small against the session. */
  const WINDOW = fixedWindow({ usableTokens: 40_000, config: { ...defaultConfig(), protected_tokens: 700 } })

  it("folds the settled conversation, held to the history budget, once keeping it has cost more than the break", async () => {
    const session = await openSession()
    const all = turns(60)
    const decisions: PassResult[] = []
    for (let count = 2; count <= all.length; count += 2) {
      const { result } = pass(session, all.slice(0, count), WINDOW)
      decisions.push(result)
      if (result.decision === "execute") break
    }
    const executed = decisions.at(-1)
    if (executed?.decision !== "execute") throw new Error("no execute pass")
    // Every pass before it replayed below the threshold; it runs well under it, on the cost rule's word.
    expect(decisions.slice(0, -1).every((result) => result.decision === "replay" && result.band === "below")).toBe(true)
    expect(executed).toMatchObject({ reason: "pays", band: "below" })
    expect(executed.usageBefore).toBeLessThan(WINDOW.usableTokens * 0.5)
    const cost = listPasses(session.db, session.state.sessionId, 1)[0]?.detail["cost"] as Record<string, number>
    expect(cost["carriedCost"]).toBeGreaterThanOrEqual(cost["breakCost"] ?? Number.POSITIVE_INFINITY)
    // Held to the history budget (not the room below the landing line, which would keep the new episodes at FULL and
    // free nothing), the fold takes most of the prompt away.
    const report = session.planner.report()
    expect(report?.budgetTokens).toBe(WINDOW.historyBudgetTokens)
    expect(report?.historyTokens).toBeLessThanOrEqual(WINDOW.historyBudgetTokens)
    expect(executed.usageAfter).toBeLessThan(executed.usageBefore / 2)
  })

  it("counts what keeping the conversation cost from the last fold, not from an execute that only landed drops", async () => {
    const foldAt = async (dropLandedAt: number | null): Promise<number> => {
      const session = await openSession()
      const all = turns(60)
      for (let count = 2; count <= all.length; count += 2) {
        const { result } = pass(session, all.slice(0, count), WINDOW)
        if (result.decision === "execute") return count
        // An agent's drop landing here: a new epoch and execute pass, the history as it was.
        if (count === dropLandedAt) session.state.applied = { ...session.state.applied, lastExecutePass: session.state.nextPass - 1 }
      }
      throw new Error("no fold")
    }
    const alone = await foldAt(null)
    expect(await foldAt(alone - 4)).toBe(alone)
  })

  it("does not fold where the history budget holds the whole session: there a fold would free nothing", async () => {
    const session = await openSession()
    const all = turns(60)
    const roomy = fixedWindow({ usableTokens: 1_000_000, config: { ...defaultConfig(), protected_tokens: 700 } })
    for (let count = 2; count <= all.length; count += 2) {
      expect(pass(session, all.slice(0, count), roomy).result.decision).toBe("replay")
    }
  })
})
