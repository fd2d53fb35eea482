import { createMessageMemo } from "../../src/session/message-memo.js"
import type { PluginInput } from "@opencode-ai/plugin"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { defaultConfig, type Config } from "../../src/config/schema.js"
import { SURVIVAL_CONTRACTS } from "../../src/historian/fidelity-types.js"
import { HISTORIAN_PROMPT_VERSION, historianRepairRequest, historianRequest } from "../../src/historian/prompt.js"
import { createHistoryPlanner, type HistoryPlanner } from "../../src/pass/history-planner.js"
import { runPass, type PassResult } from "../../src/pass/run-pass.js"
import type { SessionState } from "../../src/session/session-state.js"
import { createErrorLog, type ErrorLog } from "../../src/host/error-log.js"
import { createModelHistorian, HISTORIAN_AGENT, type ModelHistorian } from "../../src/plugin/model-historian.js"
import { createHostRuntime, type HostRuntime } from "../../src/host/host-runtime.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import { listCompartments } from "../../src/store/compartment-repository.js"
import type { Database } from "../../src/store/driver.js"
import { listErrors } from "../../src/store/error-repository.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  fillerWords,
  fixedClock,
  text,
  tool,
  userMessage,
  wordCounter,
} from "../helpers/host-messages.js"
import { createTempDirs } from "../helpers/temp-dirs.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

type Client = PluginInput["client"]

/** Nothing is ever pressured; 300 protected words hold only the newest message. */
const WINDOW = fixedWindow({ usableTokens: 1_000_000, config: { ...defaultConfig(), protected_tokens: 300 } })

function session(sessionID: string, count: number): HostMessage[] {
  return Array.from({ length: count }, (_, index) => {
    const turn = index + 1
    return [
      userMessage({
        id: `u${turn}`,
        sessionID,
        created: turn * 100,
        parts: [text(`${sessionID}-u${turn}`, `Update src/mod${turn}.ts next.`)],
      }),
      assistantMessage({
        id: `a${turn}`,
        sessionID,
        created: turn * 100 + 1,
        parts: [
          text(`${sessionID}-a${turn}`, `I'll use a lookup table in src/mod${turn}.ts because it keeps the API.`),
          tool(`${sessionID}-r${turn}`, "read", completed({ filePath: `src/mod${turn}.ts` }, fillerWords(300))),
        ],
      }),
    ]
  }).flat()
}

/** A prompt answer whose tiers name the episode ids it was asked for (so coverage can be checked). */
function validAnswer(request: string): string {
  return answerFor([...request.matchAll(/<episode id="(c\d+)">/g)].map((match) => match[1] as string))
}

/** A valid answer for the given episode ids (a repair request does not repeat them). */
function answerFor(ids: readonly string[]): string {
  return JSON.stringify({
    episodes: ids.map((id) => ({
      id,
      tiers: {
        full: `Full story of episode ${id}.`,
        dense: null,
        compact: `Compact view of ${id}.`,
        anchor: `Anchor of ${id}.`,
      },
      facts: [{ kind: "decision", text: "kept the API", tags: [2, 1] }],
    })),
  })
}

type Reply = string | ((request: string) => string) | "never"

/** A fake OpenCode client: session.create gives child ids, session.prompt answers from `replies` in order. */
function fakeClient(replies: Reply[], options: { childId?: string | null } = {}) {
  let children = 0
  const create = vi.fn(async (_input: unknown) => {
    children += 1
    return { data: options.childId === null ? {} : { id: options.childId ?? `ses_child_${children}` } }
  })
  const prompt = vi.fn((input: { body: { parts: { text: string }[] } }) => {
    const reply = replies.shift() ?? "no more replies"
    if (reply === "never") return new Promise<never>(() => undefined)
    const request = input.body.parts[0]?.text ?? ""
    const answer = typeof reply === "function" ? reply(request) : reply
    const parts = [
      { type: "reasoning", text: "hmm" },
      { type: "text", text: answer },
    ]
    return Promise.resolve({ data: { info: {}, parts } })
  })
  const client = { session: { create, prompt } } as unknown as Client
  const requests = (): string[] => prompt.mock.calls.map(([input]) => input.body.parts[0]?.text ?? "")
  return { client, create, prompt, requests }
}

const dirs = createTempDirs()
let errors: ErrorLog
let runtime: HostRuntime
let db: Database
let sessions = 0

function makeRuntime(historian: Partial<Config["historian"]>, log: ErrorLog): HostRuntime {
  const base = defaultConfig()
  const config: Config = {
    ...base,
    database: { ...defaultConfig().database, path: join(dirs.make("historian"), "store.db") },
    historian: { ...base.historian, strategy: "model", model: "openai/gpt-5", timeout: "5s", batch: 2, ...historian },
  }
  return createHostRuntime({
    config,
    configDiagnostics: [],
    errors: log,
    faults: new Set(),
    env: {},
    now: () => 7_000,
  })
}

beforeAll(async () => {
  errors = createErrorLog({ now: () => 7_000, hostLog: () => undefined })
  runtime = makeRuntime({}, errors)
  db = await runtime.database()
})

afterAll(() => {
  runtime.dispose()
  dirs.cleanup()
})

type Prepared = {
  sessionId: string
  state: SessionState
  planner: HistoryPlanner
  invalidate: ReturnType<typeof vi.fn>
  messages: HostMessage[]
  result: PassResult
}

/** A session of `turns` turns after one pass: turns - 1 compartments with canonical tiers, and its planner. */
async function prepared(
  target: HostRuntime = runtime,
  turns = 4,
): Promise<Prepared> {
  sessions += 1
  const sessionId = `ses_historian_${sessions}`
  const store = await target.database()
  const registry = await target.sessions()
  const info = { id: sessionId, source: "opencode" as const, projectId: null, directory: null, title: null }
  const state = registry.stateFor(info, wordCounter)
  const planner = createHistoryPlanner({ db: store, sessionId, counter: wordCounter, policy: "default" })
  const invalidate = vi.fn(planner.invalidate)
  const watched = { ...planner, invalidate }
  registry.held(sessionId)?.usePlanner(watched)
  const messages = session(sessionId, turns)
  const result = runPass({
    db: store,
    state,
    caches: passCachesOf(state),
    messages,
    counter: wordCounter,
    clock: fixedClock,
    trigger: "transform",
    tagsVisible: true,
    window: WINDOW,
    fixedTokens: 0,
    now: turns * 100 + 500,
    smartDrops: false,
    history: watched,
  })
  return { sessionId, state, planner: watched, invalidate, messages, result }
}

const modelRows = (store: Database, sessionId: string) =>
  store
    .prepare(
      `SELECT r.compartment_id, r.tier, r.content, r.tokens, r.survival_contract, r.source_refs_json,
              r.generator_model, r.prompt_version
       FROM representations r JOIN compartments c ON c.id = r.compartment_id
       WHERE c.session_id = ? AND r.strategy = 'source-grounded-model' ORDER BY r.id`,
    )
    .all([sessionId])

const historianErrors = (store: Database, sessionId: string) =>
  listErrors(store, { sessionId })
    .filter((error) => error.hook === "historian")
    .map((error) => ({ code: error.code, message: error.message }))

describe("createModelHistorian", () => {
  it("stores a valid answer as source-grounded-model tiers with model and prompt version; invalidates", async () => {
    const { sessionId, invalidate } = await prepared()
    const fake = fakeClient([validAnswer, validAnswer])
    const historian = createModelHistorian({ runtime, client: fake.client })
    await historian.schedule(sessionId)

    expect(fake.create).toHaveBeenCalledTimes(2)
    expect(fake.create).toHaveBeenCalledWith({ body: { parentID: sessionId, title: "magic-context historian" } })
    // Three compartments in batches of two: c1 and c2, then c3, each request in its own child session.
    const body = {
      agent: HISTORIAN_AGENT,
      model: { providerID: "openai", modelID: "gpt-5" },
      parts: [{ type: "text", text: expect.any(String) }],
    }
    expect(fake.prompt.mock.calls.map(([input]) => input)).toEqual([
      { path: { id: "ses_child_1" }, body },
      { path: { id: "ses_child_2" }, body },
    ])
    const [first, second] = fake.requests()
    expect([...(first ?? "").matchAll(/<episode id="(c\d+)">/g)].map((match) => match[1])).toEqual(["c1", "c2"])
    expect([...(second ?? "").matchAll(/<episode id="(c\d+)">/g)].map((match) => match[1])).toEqual(["c3"])
    expect(first).toContain("§1§ [user] Update src/mod1.ts next.")
    const episodes = [...(first ?? "").matchAll(/<episode id="(c\d+)">\n([\s\S]*?)\n<\/episode>/g)].map((match) => ({
      id: match[1] as string,
      source: match[2] as string,
    }))
    expect(first).toBe(historianRequest(episodes))

    const counter = runtime.counterFor(null)
    const rows = modelRows(db, sessionId)
    expect(rows.map((row) => [row["compartment_id"], row["tier"], row["content"]])).toEqual(
      [1, 2, 3].flatMap((index) => [
        [`${sessionId}#c${index}`, "full", `Full story of episode c${index}.`],
        [`${sessionId}#c${index}`, "compact", `Compact view of c${index}.`],
        [`${sessionId}#c${index}`, "anchor", `Anchor of c${index}.`],
      ]),
    )
    for (const row of rows) {
      expect(row).toMatchObject({
        tokens: counter.count(String(row["content"])),
        survival_contract: SURVIVAL_CONTRACTS[row["tier"] as keyof typeof SURVIVAL_CONTRACTS],
        source_refs_json: JSON.stringify({ tags: [1, 2], messageIds: [] }),
        generator_model: "openai/gpt-5",
        prompt_version: HISTORIAN_PROMPT_VERSION,
      })
    }
    expect(invalidate).toHaveBeenCalled()
    expect(historianErrors(db, sessionId)).toEqual([])
  })

  it("stops before its next batch once the host ended the session, keeping the batch it had asked for", async () => {
    const { sessionId } = await prepared()
    let historian: ModelHistorian | null = null
    // The session is deleted while the first batch's request is out.
    const ended = (request: string): string => {
      historian?.forget(sessionId)
      return validAnswer(request)
    }
    const fake = fakeClient([ended, validAnswer])
    historian = createModelHistorian({ runtime, client: fake.client })
    await historian.schedule(sessionId)
    expect(fake.create).toHaveBeenCalledTimes(1)
    const tiered = new Set(modelRows(db, sessionId).map((row) => row["compartment_id"]))
    expect([...tiered]).toEqual([`${sessionId}#c1`, `${sessionId}#c2`])
    expect(historianErrors(db, sessionId)).toEqual([])
  })

  it("makes the planner fold the model's tiers in place of the canonical ones, FULL staying the source", async () => {
    const { sessionId, planner, messages, result, state } = await prepared()
    await createModelHistorian({ runtime, client: fakeClient([validAnswer, validAnswer]).client }).schedule(sessionId)
    const prepare = (budgetTokens: number) =>
      planner.prepare({ memo: createMessageMemo(), messages, view: result.view, state, pass: 9, now: 1, fold: true, budgetTokens, pinBudgetTokens: 10_000 })
    const roomy = prepare(10_000)
    expect(roomy?.text).not.toContain("Full story of episode")
    expect(roomy?.text).toContain("[c1 §1§–§3§]")
    const tight = prepare(30)
    expect(tight?.text).toContain("Compact view of c1.\n\nCompact view of c2.\n\nCompact view of c3.")
    expect(tight?.text).not.toContain("[c1 §1§–§3§]")
  })

  it("reports its child sessions and leaves them alone", async () => {
    const { sessionId } = await prepared()
    const fake = fakeClient([validAnswer, validAnswer])
    const historian = createModelHistorian({ runtime, client: fake.client })
    await historian.schedule(sessionId)
    expect(historian.isHistorianSession("ses_child_1")).toBe(true)
    expect(historian.isHistorianSession("ses_child_2")).toBe(true)
    expect(historian.isHistorianSession(sessionId)).toBe(false)
    await historian.schedule("ses_child_1")
    expect(fake.create).toHaveBeenCalledTimes(2)
  })

  it("asks only for compartments without model tiers, and runs once at a time per session", async () => {
    const { sessionId } = await prepared()
    const fake = fakeClient([validAnswer, validAnswer, validAnswer])
    const historian = createModelHistorian({ runtime, client: fake.client })
    const first = historian.schedule(sessionId)
    const second = historian.schedule(sessionId)
    expect(second).toBe(first)
    await first
    expect(fake.prompt).toHaveBeenCalledTimes(2)
    await createModelHistorian({ runtime, client: fake.client }).schedule(sessionId)
    expect(fake.prompt).toHaveBeenCalledTimes(2)
  })

  it("sends one repair request after a malformed answer and stores the repaired one", async () => {
    const { sessionId } = await prepared(runtime, 2)
    const fake = fakeClient(["Sorry, here you go: not json", answerFor(["c1"])])
    await createModelHistorian({ runtime, client: fake.client }).schedule(sessionId)
    expect(fake.requests()[1]).toBe(historianRepairRequest("the answer contains no JSON object"))
    // The repair goes to the same child session.
    const children = fake.prompt.mock.calls.map(([input]) => (input as unknown as { path: { id: string } }).path.id)
    expect(children).toEqual(["ses_child_1", "ses_child_1"])
    expect(modelRows(db, sessionId).map((row) => row["content"])).toEqual([
      "Full story of episode c1.",
      "Compact view of c1.",
      "Anchor of c1.",
    ])
    expect(historianErrors(db, sessionId)).toEqual([])
  })

  it("keeps the canonical record and records historian_failed when the repaired answer is still bad", async () => {
    const { sessionId, invalidate } = await prepared(runtime, 2)
    const canonical = listCompartments(db, sessionId)
    const fake = fakeClient(["not json", '{"episodes": [}'])
    await createModelHistorian({ runtime, client: fake.client }).schedule(sessionId)
    expect(fake.prompt).toHaveBeenCalledTimes(2)
    expect(fake.requests()[1]).toBe(
      "Your answer could not be used: the answer contains no JSON object. Answer again with exactly one JSON " +
        "object of the shape asked for, covering every episode id, with no text before or after it.",
    )
    expect(modelRows(db, sessionId)).toEqual([])
    expect(listCompartments(db, sessionId)).toEqual(canonical)
    expect(invalidate).not.toHaveBeenCalled()
    const [error, ...rest] = historianErrors(db, sessionId)
    expect(rest).toEqual([])
    expect(error?.code).toBe("historian_failed")
    expect(error?.message).toMatch(
      /^historian output rejected after one repair: the JSON does not parse \(.+\); the canonical record stays$/,
    )
  })

  it("repairs and then refuses an answer of the wrong shape, naming the path", async () => {
    const { sessionId } = await prepared(runtime, 2)
    const wrong = JSON.stringify({ episodes: [{ id: "c1", tiers: { full: null, dense: null, compact: "c" } }] })
    const fake = fakeClient([wrong, wrong])
    await createModelHistorian({ runtime, client: fake.client }).schedule(sessionId)
    expect(fake.requests()[1]).toMatch(
      /^Your answer could not be used: the JSON has the wrong shape at episodes\.0\.tiers\.anchor: /,
    )
    expect(modelRows(db, sessionId)).toEqual([])
    expect(historianErrors(db, sessionId)).toEqual([
      {
        code: "historian_failed",
        message: expect.stringMatching(
          new RegExp(
            "^historian output rejected after one repair: the JSON has the wrong shape at " +
              "episodes\\.0\\.tiers\\.anchor: .+; the canonical record stays$",
          ),
        ),
      },
    ])
  })

  it("refuses an answer that invents an identifier", async () => {
    const { sessionId } = await prepared(runtime, 2)
    const invented = answerFor(["c1"]).replace("Compact view of c1.", "Compact view of src/invented.ts.")
    const fake = fakeClient([invented, invented])
    await createModelHistorian({ runtime, client: fake.client }).schedule(sessionId)
    expect(modelRows(db, sessionId)).toEqual([])
    const problem = "episode c1 tier compact states identifiers not in its source: src/invented.ts"
    expect(fake.requests()[1]).toBe(historianRepairRequest(problem))
    expect(historianErrors(db, sessionId)).toEqual([
      {
        code: "historian_failed",
        message:
          "historian output rejected after one repair: episode c1 tier compact states identifiers not in its source: " +
          "src/invented.ts; the canonical record stays",
      },
    ])
  })

  it("does not ask again for compartments it already tried", async () => {
    const { sessionId } = await prepared(runtime, 2)
    const fake = fakeClient(["bad", "bad", validAnswer])
    const historian = createModelHistorian({ runtime, client: fake.client })
    await historian.schedule(sessionId)
    await historian.schedule(sessionId)
    expect(fake.prompt).toHaveBeenCalledTimes(2)
  })

  it("records historian_failed when a request never answers in time, and keeps the canonical record", async () => {
    const log = createErrorLog({ now: () => 7_000, hostLog: () => undefined })
    const quick = makeRuntime({ timeout: "50ms" }, log)
    try {
      const { sessionId } = await prepared(quick, 2)
      const store = await quick.database()
      const fake = fakeClient(["never"])
      const started = Date.now()
      await createModelHistorian({ runtime: quick, client: fake.client }).schedule(sessionId)
      expect(Date.now() - started).toBeLessThan(2_000)
      expect(fake.prompt).toHaveBeenCalledTimes(1)
      expect(modelRows(store, sessionId)).toEqual([])
      expect(historianErrors(store, sessionId)).toEqual([
        { code: "historian_failed", message: "the historian did not answer within 50 ms; the canonical record stays" },
      ])
    } finally {
      quick.dispose()
    }
  })

  it("records historian_failed when the child session cannot be created", async () => {
    const { sessionId } = await prepared(runtime, 2)
    const fake = fakeClient([validAnswer], { childId: null })
    await createModelHistorian({ runtime, client: fake.client }).schedule(sessionId)
    expect(fake.prompt).not.toHaveBeenCalled()
    expect(historianErrors(db, sessionId)).toEqual([
      { code: "historian_failed", message: "the historian's child session could not be created" },
    ])
  })

  it("records an error the store raises while writing the tiers, instead of leaving it unhandled", async () => {
    const { sessionId } = await prepared(runtime, 2)
    // The compartment disappears while the model is thinking: the insert fails its foreign key.
    const vanish = (request: string): string => {
      db.prepare("DELETE FROM compartments WHERE session_id = ?").run([sessionId])
      return validAnswer(request)
    }
    await createModelHistorian({ runtime, client: fakeClient([vanish]).client }).schedule(sessionId)
    expect(historianErrors(db, sessionId)).toEqual([
      { code: null, message: expect.stringMatching(/FOREIGN KEY constraint failed/) },
    ])
  })

  it("never calls the client with the canonical strategy", async () => {
    const log = createErrorLog({ now: () => 7_000, hostLog: () => undefined })
    const canonical = makeRuntime({ strategy: "canonical" }, log)
    try {
      const { sessionId } = await prepared(canonical, 3)
      const fake = fakeClient([validAnswer])
      const historian = createModelHistorian({ runtime: canonical, client: fake.client })
      await historian.schedule(sessionId)
      expect(fake.create).not.toHaveBeenCalled()
      expect(fake.prompt).not.toHaveBeenCalled()
      expect(modelRows(await canonical.database(), sessionId)).toEqual([])
      expect(historian.isHistorianSession(sessionId)).toBe(false)
    } finally {
      canonical.dispose()
    }
  })

  it("uses OpenCode's default model when none is configured", async () => {
    const log = createErrorLog({ now: () => 7_000, hostLog: () => undefined })
    const defaultModel = makeRuntime({ model: null }, log)
    try {
      const { sessionId } = await prepared(defaultModel, 2)
      const fake = fakeClient(["never"])
      void createModelHistorian({ runtime: defaultModel, client: fake.client }).schedule(sessionId)
      await vi.waitFor(() => expect(fake.prompt).toHaveBeenCalledTimes(1))
      expect(fake.prompt.mock.calls[0]?.[0]).toEqual({
        path: { id: "ses_child_1" },
        body: { agent: HISTORIAN_AGENT, parts: [{ type: "text", text: expect.any(String) }] },
      })
    } finally {
      defaultModel.dispose()
    }
  })
})
