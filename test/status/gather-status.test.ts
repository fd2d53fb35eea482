import { afterEach, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { composeHistory } from "../../src/historian/compose-history.js"
import { SURVIVAL_CONTRACTS, type Fact, type Tier } from "../../src/historian/fidelity-types.js"
import { createHistoryPlanner } from "../../src/pass/history-planner.js"
import { runPass, type PassResult } from "../../src/pass/run-pass.js"
import { initialAppliedState } from "../../src/session/session-state.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import { gatherStatus } from "../../src/status/gather-status.js"
import { resolvePrices } from "../../src/session/price-lists.js"
import { callCost } from "../../src/pressure/session-cost.js"
import { formatStatus } from "../../src/status/format-status.js"
import { saveAppliedState } from "../../src/store/applied-state-repository.js"
import {
  insertCompartment,
  listCompartments,
  markCompartmentsFolded,
  recordSelections,
} from "../../src/store/compartment-repository.js"
import type { Database } from "../../src/store/driver.js"
import { recordPass } from "../../src/store/pass-repository.js"
import { statement } from "../../src/store/statements.js"
import { insertPin } from "../../src/store/pin-repository.js"
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
import { storeWithSession } from "../helpers/store-database.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

const SESSION = "ses_status"
const NOW = 1_700_000_000_000

const opened: Database[] = []
afterEach(() => {
  for (const db of opened.splice(0)) db.close()
})

const gather = (db: Database, sessionId = SESSION) =>
  gatherStatus({ db, sessionId, strategy: "canonical", thresholdPercent: 65, hostCompaction: null })

const pinFact = (text: string, tag: number): Fact => ({
  kind: "constraint",
  text,
  retention: "PIN",
  floor: "exact",
  source: { tags: [tag], messageIds: [] },
})

/** Stores compartment `seq` with the given representations (tier -> [content, stored count]) and facts. */
function storeCompartment(db: Database, seq: number, tiers: Partial<Record<Tier, [string, number]>>, facts: Fact[]): string {
  const id = `${SESSION}#c${seq}`
  insertCompartment(db, {
    id,
    sessionId: SESSION,
    seq,
    firstMessageSeq: seq * 10,
    lastMessageSeq: seq * 10 + 9,
    firstTag: null,
    lastTag: null,
    outcome: null,
    sourceTokens: 2_000,
    representations: Object.entries(tiers).map(([tier, [content, tokens]]) => ({
      tier: tier as Tier,
      strategy: "canonical-record" as const,
      content,
      tokens,
      generatorModel: null,
      promptVersion: null,
      survivalContract: SURVIVAL_CONTRACTS[tier as Tier],
      sourceRefs: { tags: [], messageIds: [] },
    })),
    facts,
    createdPass: seq,
    createdAt: NOW,
  })
  return id
}

const API_PIN = "Never change the public API of src/slugify.js"
const NODE_PIN = "Use Node 20 only.\nNo new dependencies."

/**
 * A session after folds: c1 (demoted full -> compact), c2 (compact) and c3 (full) rendered in the applied history;
 * c4 folded earlier and omitted since (its last selection stays in the store); c5 cut after the last fold. The
 * ledger holds the API constraint (c1's and c2's, once), the Node constraint (c3) and the agent's pin of §11§; the
 * agent's pin of §40§ is still live material. The last pass rendered the history's 1,000 tokens.
 */
async function foldedStore(): Promise<Database> {
  const db = await storeWithSession(SESSION)
  opened.push(db)
  const c1 = storeCompartment(
    db,
    1,
    { full: ["[c1 §1§–§4§] full text of c1", 300], compact: ["[c1 §1§–§4§] compact text of c1", 60], anchor: ["[c1] anchor", 8] },
    [pinFact(API_PIN, 1)],
  )
  const c2 = storeCompartment(
    db,
    2,
    { full: ["[c2 §5§–§8§] full text of c2", 250], compact: ["[c2 §5§–§8§] compact text of c2", 40] },
    [pinFact(API_PIN, 5)],
  )
  const c3 = storeCompartment(
    db,
    3,
    { full: ["[c3 §9§–§12§] full text of c3", 500], compact: ["[c3 §9§–§12§] compact text of c3", 90] },
    [pinFact(NODE_PIN, 9)],
  )
  const c4 = storeCompartment(db, 4, { full: ["[c4] full text of c4", 400], anchor: ["[c4] anchor of c4", 9] }, [])
  storeCompartment(db, 5, { full: ["[c5] full text of c5", 350] }, [pinFact("Run the linter before every commit", 30)])
  const select = (compartmentId: string, tier: Tier, previousTier: Tier | null, appliedAt: number) => ({
    sessionId: SESSION,
    passId: null,
    compartmentId,
    tier,
    previousTier,
    reason: "test",
    pressure: 70,
    firstDivergence: null,
    mutationRadius: null,
    policyVersion: "selection-v1",
    appliedAt,
  })
  recordSelections(db, [select(c4, "anchor", null, 1), select(c1, "full", null, 1), select(c2, "compact", null, 1)])
  recordSelections(db, [select(c1, "compact", "full", 2), select(c3, "full", null, 2)])
  markCompartmentsFolded(db, [c1, c2, c3, c4], 6)
  insertPin(db, SESSION, { tag: 11, text: "the build runs with --strict", pinnedBy: "agent" }, NOW)
  insertPin(db, SESSION, { tag: 40, text: "keep the retry loop", pinnedBy: "agent" }, NOW)
  const historyText = composeHistory({
    workingSet: { objective: "make the slugify tests pass", filesModified: ["src/slugify.js"], earlierFilesModified: 0, openTodos: [], lastFailure: null },
    pins: [
      { text: API_PIN, tags: [1] },
      { text: NODE_PIN, tags: [9] },
      { text: "the build runs with --strict", tags: [11] },
    ],
    compartments: [
      { id: c1, tier: "compact", text: "[c1 §1§–§4§] compact text of c1" },
      { id: c2, tier: "compact", text: "[c2 §5§–§8§] compact text of c2" },
      { id: c3, tier: "full", text: "[c3 §9§–§12§] full text of c3" },
    ],
  })
  saveAppliedState(db, SESSION, { ...initialAppliedState(), history: { foldedThroughSeq: 39, text: historyText, tokens: 1_000 } }, NOW)
  recordPass(db, {
    sessionId: SESSION,
    seq: 7,
    startedAt: NOW - 90_000,
    durationMs: 3,
    trigger: "transform",
    decision: "replay",
    band: "below",
    usageTokens: 6_100,
    windowTokens: 20_000,
    messageCount: 40,
    newParts: 1,
    newTags: 1,
    renderedTokens: 6_100,
    renderedHash: null,
    firstDivergence: null,
    detail: {
      reason: "below-threshold",
      breakdown: { total: 6_000, fixed: 1_500, history: 1_000, conversation: 2_000, protected: 1_000, tool: 500, reclaimable: 200, tags: 50 },
    },
    error: null,
  })
  return db
}

describe("gatherStatus", () => {
  it.each<[string, number | null, unknown]>([
    ["over a quarter of the last pass's window", 1_000_000, { clampedFrom: 1_000_000, tokens: 5_000, usableTokens: 20_000 }],
    ["within a quarter", 5_000, null],
    ["derived", null, null],
  ])("says whether the configured protected window (%s) was clamped", async (_name, configured, clamp) => {
    const db = await foldedStore()
    const status = gatherStatus({ db, sessionId: SESSION, strategy: "canonical", thresholdPercent: 65, hostCompaction: null, configuredProtectedTokens: configured })
    expect(status.protectedClamp).toEqual(clamp)
  })

  it("sums the cost of the passes that recorded one, and reads an older execute record or an unreadable detail as none", async () => {
    const db = await foldedStore()
    const pass = (seq: number, decision: "execute" | "replay", detail: Record<string, unknown>) =>
      recordPass(db, {
        sessionId: SESSION,
        seq,
        startedAt: NOW - 100_000 + seq,
        durationMs: 1,
        trigger: "transform",
        decision,
        band: "below",
        usageTokens: 8_000,
        windowTokens: 20_000,
        messageCount: 40,
        newParts: 0,
        newTags: 0,
        renderedTokens: 6_000,
        renderedHash: null,
        firstDivergence: decision === "execute" ? 4_096 : null,
        detail,
        error: null,
      })
    // An execute pass from before passes recorded their cost, then one replay that did, then one whose detail is not
    // JSON at all (pass 7, the newest, is the fixture's and records none).
    pass(5, "execute", { reason: "threshold-work", dropped: [] })
    pass(6, "replay", { reason: "below-threshold", billed: { uncached: 500, cachedRead: 7_500, cacheWrite: 0, cost: 1_250, readPrice: 0.1 } })
    pass(8, "replay", { reason: "below-threshold" })
    statement(db, "UPDATE passes SET detail_json = '{not json' WHERE seq = 8").run()
    const status = gather(db)
    expect(status.cost).toEqual({ calls: 1, cost: 1_250, promptTokens: 8_000, cachedTokens: 7_500 })
    expect(status.lastExecute).toMatchObject({ seq: 5, firstDivergence: 4_096, cost: null, saved: null, callsSince: 3 })
  })

  it("splits the applied history into the pinned ledger and the rendered compartments by current tier", async () => {
    const db = await foldedStore()
    // c4 is left out (its anchor is not in the history), c5 is not folded; the compartments' stored counts give
    // full 500 (c3) and compact 60 + 40 (c1, c2). The ledger's 174 of the 484 characters the compartments leave
    // take its share of the 400 tokens they leave: 400 * 174 / 484 = 143.8.
    expect(gather(db).history).toEqual({
      tokens: 1_000,
      ledgerTokens: 144,
      pinnedFacts: 3,
      condensedPins: 0,
      omittedEpisodes: 0,
      tiers: [
        { tier: "full", compartments: 1, tokens: 500 },
        { tier: "compact", compartments: 2, tokens: 100 },
      ],
    })
  })

  it("prints the ledger and the history by tier, adding up to the history the last pass rendered", async () => {
    const db = await foldedStore()
    const report = formatStatus(gather(db), NOW)
    const breakdown = report.slice(report.indexOf("\n["), report.indexOf("\nTags:"))
    expect(breakdown).toMatchInlineSnapshot(`
      "
      [FFFFFHHHCCCCCCPPPT..........................................]
      F fixed prompt  L pinned ledger  H compartment history  C settled conversation  P protected recent work  T tool output  . free

        fixed prompt               1,500  25%
        pinned ledger               ~144  2%  (3 pinned facts)
        compartment history          856  14%
          full                       500  (1 compartment)
          compact                    100  (2 compartments)
          working set, headers      ~256
        settled conversation       2,000  33%
        protected recent work      1,000  17%
        tool output                  500  8%
        of it reclaimable            200  (finished tool output outside the protected window)
        tag prefixes                  50
        total                      6,000
      "
    `)
    // 144 + 856 = 1,000 (the pass's history); 500 + 100 + 256 = 856. The historian's line counts each compartment's
    // last selection, the omitted c4's anchor included.
    expect(report).toContain("Historian (canonical): 5 compartments, 4 folded into history (1 anchor, 2 compact, 1 full)")
  })

  it("has no history before the first fold", async () => {
    const db = await storeWithSession(SESSION)
    opened.push(db)
    storeCompartment(db, 1, { full: ["[c1] full", 100] }, [pinFact(API_PIN, 1)])
    expect(gather(db).history).toBeNull()
  })

  describe("after a real execute pass", () => {
    // Sentences only the full tier carries, so that demoting a compartment saves enough to matter.
    const narrative =
      "First I looked around the repository layout. Then I opened the test folder and the fixtures. After that I went " +
      "through the module list one by one. Finally I compared the two call sites side by side."

    /** Turn `index`: a pinned constraint, then an answer with a narrative, a decision and a read of 300 words. */
    const turn = (index: number) => [
      userMessage({
        id: `u${index}`,
        created: 10_000 + index * 100,
        parts: [text(`u${index}t`, `Update src/mod${index}.ts next. Never remove the exported parseItem${index} function.`)],
      }),
      assistantMessage({
        id: `a${index}`,
        created: 10_001 + index * 100,
        parts: [
          text(`a${index}t`, `${narrative} I'll use a lookup table in src/mod${index}.ts because it keeps the API stable.`),
          tool(`a${index}r`, "read", completed({ filePath: `src/mod${index}.ts` }, fillerWords(300))),
        ],
      }),
    ]

    /**
     * A store and a session with a history planner, in a 4,000-word window whose 65% threshold is crossed within 9
     * turns and whose history budget forces demotions (the 600-word protected window holds the newest turn: its answer
     * and most of the one before). `passes` runs a pass after every turn, two messages at a time, while `goOn` says so.
     */
    async function pressedSession() {
      const db = await memoryStore()
      opened.push(db)
      const state = sessionState({ db, counter: wordCounter })
      const caches = passCachesOf(state)
      const planner = createHistoryPlanner({ db, sessionId: state.sessionId, counter: wordCounter, policy: "default" })
      const window = fixedWindow({ usableTokens: 4_000, config: { ...defaultConfig(), protected_tokens: 600 } })
      const all = Array.from({ length: 9 }, (_, index) => turn(index + 1)).flat()
      const passes = (goOn: (results: readonly PassResult[]) => boolean = () => true): PassResult[] => {
        const results: PassResult[] = []
        for (let count = 2; count <= all.length && goOn(results); count += 2) {
          results.push(
            runPass({
              db,
              state,
              caches,
              messages: freshCopy(all.slice(0, count)),
              counter: wordCounter,
              clock: fixedClock,
              trigger: "transform",
              tagsVisible: true,
              window,
              fixedTokens: 0,
              now: 20_000 + count,
              smartDrops: false,
              history: planner,
            }),
          )
        }
        return results
      }
      return { db, state, planner, window, all, passes }
    }

    it("matches the planner's applied tiers and pins, and the pass's history", async () => {
      const { db, state, planner, window, passes } = await pressedSession()
      // Passes until the first execute.
      const results = passes((done) => !done.some((result) => result.decision === "execute"))
      const executed = results.find((result) => result.decision === "execute") ?? null
      const sent = results.map((result) => result.usageAfter)
      if (executed === null) throw new Error("no execute pass")
      // Every request's estimated cost is recorded and summed: all its prompt tokens, some read from the cache.
      const status = gather(db, state.sessionId)
      expect(status.cost.calls).toBe(sent.length)
      expect(status.cost.promptTokens).toBe(sent.reduce((sum, tokens) => sum + tokens, 0))
      expect(status.cost.cachedTokens).toBeGreaterThan(0)
      expect(status.cost.cost).toBeLessThan(status.cost.promptTokens)
      expect(status.lastExecute?.firstDivergence).toBe(executed.firstDivergence)
      expect(status.lastExecute?.callsSince).toBe(0)
      expect(status.lastExecute?.saved).toBeCloseTo((executed.usageBefore - executed.usageAfter) * 0.1)
      const report = planner.report()
      if (report === null) throw new Error("no history applied")
      const history = gather(db, state.sessionId).history

      const compartments = listCompartments(db, state.sessionId)
      const historyText = state.applied.history?.text ?? ""
      const applied = compartments.map((compartment) => {
        const tier = report.tiers[compartment.id.slice(compartment.id.indexOf("#") + 1)] as Tier
        const representation = compartment.representations.find((candidate) => candidate.tier === tier)
        // The history may leave lines of a tier out (an invariant the ledger says, an identifier listed before) or add
        // the episode's condensed pins: its block there is found by its first line, and the stored count is scaled by
        // the block's length against the tier's.
        const content = representation?.content ?? ""
        const from = historyText.indexOf(`\n\n${content.split("\n")[0]}`) + 2
        const next = historyText.indexOf("\n\n", from)
        const block = historyText.slice(from, next >= 0 ? next : historyText.lastIndexOf("\n</session-history>"))
        const tokens = Math.round(((representation?.tokens ?? 0) * block.length) / content.length)
        return { tier, tokens }
      })
      const expectedTiers = (["full", "dense", "compact", "anchor"] as const).flatMap((tier) => {
        const atTier = applied.filter((entry) => entry.tier === tier)
        return atTier.length === 0 ? [] : [{ tier, compartments: atTier.length, tokens: atTier.reduce((sum, entry) => sum + entry.tokens, 0) }]
      })
      expect(expectedTiers.length).toBeGreaterThanOrEqual(2)
      expect(history?.tiers).toEqual(expectedTiers)
      expect(history?.tokens).toBe(report.historyTokens)
      expect(history?.tokens).toBe(executed.breakdown.history)
      // One constraint per folded turn, each pinned.
      expect(history?.pinnedFacts).toBe(compartments.length)
      // The ledger's estimate against counting its section of the history text (heading, "- §N§ " and the pins); the
      // planner reports that count itself.
      const text = state.applied.history?.text ?? ""
      const section = text.slice(text.indexOf("\n\n## Pinned"), text.indexOf("\n\n## Working set"))
      const counted = wordCounter.count(section)
      expect(counted).toBe(report.pinTokens)
      expect(counted).toBeLessThanOrEqual(window.pinBudgetTokens)
      expect(Math.abs((history?.ledgerTokens ?? 0) - counted)).toBeLessThanOrEqual(counted * 0.1)
    })

    it("prices the session under the list in force against the host alone, and the last execute pass's cost and saving", async () => {
      const { db, state, all, passes } = await pressedSession()
      const results = passes()
      const executes = results.filter((result) => result.decision === "execute")
      expect(executes.length).toBeGreaterThan(0)
      const anthropic = { prices: resolvePrices({ family: "anthropic", override: null }), cacheTtlMs: 300_000, model: "anthropic/claude-sonnet-4" }
      const status = gatherStatus({ db, sessionId: state.sessionId, strategy: "canonical", thresholdPercent: 65, hostCompaction: null, pricing: anthropic })
      const estimate = status.costEstimate
      if (!estimate) throw new Error("no estimate")
      expect(estimate.calls).toBe(results.length)
      // Under the list the passes ran with (OpenAI's), the estimate is what the passes recorded.
      const openai = gatherStatus({
        db,
        sessionId: state.sessionId,
        strategy: "canonical",
        thresholdPercent: 65,
        hostCompaction: null,
        pricing: { ...anthropic, prices: resolvePrices({ family: "openai", override: null }) },
      })
      expect(openai.costEstimate?.withPlugin).toBeCloseTo(status.cost.cost, 6)
      // The host alone against the same session replayed where nothing ever executes: each call its prompt without the
      // tag prefixes (a tool's input counted with its output), the previous call's read from the cache.
      const unreduced = await memoryStore()
      opened.push(unreduced)
      const plain = sessionState({ db: unreduced, counter: wordCounter })
      const plainCaches = passCachesOf(plain)
      const wide = fixedWindow({ usableTokens: 1_000_000, config: defaultConfig() })
      const alone: number[] = []
      for (let count = 2; count <= all.length; count += 2) {
        const result = runPass({
          db: unreduced,
          state: plain,
          caches: plainCaches,
          messages: freshCopy(all.slice(0, count)),
          counter: wordCounter,
          clock: fixedClock,
          trigger: "transform",
          tagsVisible: true,
          window: wide,
          fixedTokens: 0,
          now: 20_000 + count,
          smartDrops: false,
        })
        expect(result.decision).toBe("replay")
        alone.push(result.usageAfter - result.breakdown.tags)
      }
      const expectedAlone = alone.reduce((sum, tokens, index) => sum + callCost(tokens, alone[index - 1] ?? 0, anthropic.prices.prices), 0)
      expect(estimate.hostAlone).toBeCloseTo(expectedAlone, 6)
      // The newest execute pass: its request under Anthropic's prices, and what it freed at the read price a call.
      const last = executes[executes.length - 1] as PassResult
      expect(estimate.lastExecute?.seq).toBe(status.lastExecute?.seq)
      expect(estimate.lastExecute?.savesPerCall).toBeCloseTo((last.usageBefore - last.usageAfter) * 0.1)
      expect(estimate.lastExecute?.savedSoFar).toBeCloseTo((last.usageBefore - last.usageAfter) * 0.1 * ((status.lastExecute?.callsSince ?? NaN) + 1))
      const report = formatStatus(status, NOW)
      expect(report).toContain(
        "Price list for anthropic/claude-sonnet-4: anthropic-5m (the provider's list): cached read 0.1×, cache write 1.25× the uncached input price",
      )
      // A short session: the one execute pass's rewrite has not paid for itself yet, and the report says so.
      expect(report).toMatch(
        /\nWithout magic-context \(estimate, the host sending its whole transcript, no compaction\): ~[\d,]+ over the same calls; magic-context costs ~[\d,]+ more \(\d+%\)\n/,
      )
    })
  })
})
