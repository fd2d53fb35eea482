import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseHistorianOutput } from "../../src/historian/parse-historian-output.js"
import {
  HISTORIAN_PROMPT_VERSION,
  HISTORIAN_SYSTEM_PROMPT,
  historianRepairRequest,
  historianRequest,
} from "../../src/historian/prompt.js"
import { fixtureText } from "./harness/fixture-text.js"
import {
  conversation,
  historyEpisodeIds,
  isHistorianRepair,
  isHistorianRequest,
  requestedEpisodes,
  sessionHistory,
  type RequestedEpisode,
} from "./harness/history-inspection.js"
import {
  isTitleRequest,
  messageText,
  startMockModelServer,
  type ChatMessage,
  type ChatRequest,
  type MockModelServer,
  type MockReply,
  type RecordedRequest,
} from "./harness/mock-model-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox } from "./harness/opencode-harness.js"
import { startOpenCodeServer, type OpenCodeServer } from "./harness/opencode-serve.js"
import { keepRequests, prefixTag, TAG_PREFIX, toolMessages } from "./harness/prompt-inspection.js"
import { createTurnScript, type ScriptedTurn } from "./harness/scripted-turns.js"
import { runCommand } from "./harness/serve-session.js"
import { queryStore } from "./harness/store-reader.js"
import { expectEpisodeShown } from "./harness/episode-shown.js"

// Usable window 64,000 - 4,096 = 59,904 tokens; threshold 50% (29,952). The mock reports LOW usage on most steps
// and HIGH on the step before the pass that should execute (and fold the settled conversation into history).
const CONTEXT = 64_000
const LOW = 20_000
const HIGH = 36_000
/**
 * Only the newest message is protected (with the 3,000-token read before it when the newest is a short text: most of
 * the read lies inside 2,000 tokens), so everything before it is settled.
 */
const BASE_CONFIG = { execute_threshold: 50, protected_tokens: 2_000 }

type PassRow = {
  id: number
  seq: number
  started_at: number
  decision: string
  first_divergence: number | null
  reason: string
}
type CompartmentRow = {
  id: string
  seq: number
  first_message_seq: number
  last_message_seq: number
  first_tag: number | null
  last_tag: number | null
  status: string
  folded_pass: number | null
}
type RepresentationRow = {
  compartment_id: string
  tier: string
  strategy: string
  content: string
  tokens: number
  survival_contract: string
  generator_model: string | null
  prompt_version: string | null
}
type SelectionRow = { compartment_id: string; tier: string; pass_id: number; reason: string; policy_version: string }
type ErrorRow = { session_id: string | null; hook: string; code: string | null; message: string; at: number }

const TIERS = ["full", "dense", "compact", "anchor"] as const

function passesOf(file: string, sessionId: string): PassRow[] {
  return queryStore<PassRow>(
    file,
    "SELECT id, seq, started_at, decision, first_divergence, json_extract(detail_json, '$.reason') AS reason " +
      "FROM passes WHERE session_id = ? ORDER BY seq",
    sessionId,
  )
}

function compartmentsOf(file: string, sessionId: string): CompartmentRow[] {
  return queryStore<CompartmentRow>(
    file,
    "SELECT id, seq, first_message_seq, last_message_seq, first_tag, last_tag, status, folded_pass FROM compartments " +
      "WHERE session_id = ? ORDER BY seq",
    sessionId,
  )
}

function representationsOf(file: string, sessionId: string): RepresentationRow[] {
  return queryStore<RepresentationRow>(
    file,
    "SELECT r.compartment_id, r.tier, r.strategy, r.content, r.tokens, r.survival_contract, r.generator_model, " +
      "r.prompt_version FROM representations r JOIN compartments c ON c.id = r.compartment_id WHERE c.session_id = ? " +
      "ORDER BY r.id",
    sessionId,
  )
}

function selectionsOf(file: string, sessionId: string): SelectionRow[] {
  return queryStore<SelectionRow>(
    file,
    "SELECT compartment_id, tier, pass_id, reason, policy_version FROM selections WHERE session_id = ? ORDER BY id",
    sessionId,
  )
}

function errorsOf(file: string, sessionId: string): ErrorRow[] {
  return queryStore<ErrorRow>(
    file,
    "SELECT session_id, hook, code, message, at FROM errors WHERE session_id = ? ORDER BY id",
    sessionId,
  )
}

/** Display ids of the session's compartments whose model tiers are stored (a complete set has an anchor). */
function modelTieredIds(file: string, sessionId: string): Set<string> {
  return new Set(
    representationsOf(file, sessionId)
      .filter((row) => row.strategy === "source-grounded-model" && row.tier === "anchor")
      .map((row) => displayId(row.compartment_id)),
  )
}

/** The stored (pristine) output of the tool part a tag names. */
function storedToolOutput(file: string, sessionId: string, tag: number): { input: unknown; output: string } {
  const [row] = queryStore<{ content_json: string }>(
    file,
    "SELECT p.content_json FROM parts p JOIN tags t ON t.session_id = p.session_id AND t.part_id = p.id " +
      "WHERE t.session_id = ? AND t.tag = ?",
    sessionId,
    tag,
  )
  if (!row) throw new Error(`no stored part for tag ${tag}`)
  const content = JSON.parse(row.content_json) as { state: { input: unknown; output: string } }
  return { input: content.state.input, output: content.state.output }
}

/** The display id of a compartment (`<session>#c3` -> `c3`). */
function displayId(compartmentId: string): string {
  return compartmentId.slice(compartmentId.lastIndexOf("#") + 1)
}

/** The text each compartment is rendered with now: its latest selection's tier, of the preferred strategy. */
function selectedText(
  representations: readonly RepresentationRow[],
  selections: readonly SelectionRow[],
  compartmentId: string,
  strategy: string,
): string {
  const selection = selections.filter((row) => row.compartment_id === compartmentId).at(-1)
  if (!selection) throw new Error(`no selection for ${compartmentId}`)
  const representation = representations.find(
    (row) => row.compartment_id === compartmentId && row.tier === selection.tier && row.strategy === strategy,
  )
  if (!representation) throw new Error(`no ${strategy} ${selection.tier} representation of ${compartmentId}`)
  return representation.content
}

/** Resolves when `probe` returns a truthy value; rejects after `timeoutMs`. */
async function waitFor<T>(label: string, probe: () => T | null | undefined | false, timeoutMs = 20_000): Promise<T> {
  const started = Date.now()
  for (;;) {
    const value = probe()
    if (value) return value
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${label}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * A one-shot signal. `wait(capMs)` resolves once it fired, or `capMs` after the wait began (so a held mock answer can
 * never hang a test; the assertions on request order catch a wait that ran into its cap).
 */
function signal(): { fire(): void; wait(capMs: number): Promise<void> } {
  let fired = false
  const waiters: (() => void)[] = []
  return {
    fire() {
      fired = true
      for (const resolve of waiters.splice(0)) resolve()
    },
    wait(capMs) {
      if (fired) return Promise.resolve()
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, capMs)
        waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    },
  }
}

async function createSession(server: OpenCodeServer, title: string): Promise<string> {
  const created = await server.client.session.create({ body: { title } })
  if (!created.data) throw new Error(`session.create failed: ${JSON.stringify(created.error)}`)
  return created.data.id
}

/** Sends one user message and waits for the turn to end (the session is idle); returns the turn's final text. */
async function prompt(server: OpenCodeServer, sessionId: string, text: string): Promise<string> {
  const response = await server.client.session.prompt({
    path: { id: sessionId },
    body: { parts: [{ type: "text", text }] },
  })
  if (!response.data) throw new Error(`session.prompt failed: ${JSON.stringify(response.error)}`)
  return response.data.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
}

function text(value: string, promptTokens = LOW): MockReply {
  return { kind: "text", text: value, promptTokens }
}

/** Asserts that `previous`'s messages are, message by message, byte-identical to the start of `next`'s. */
function expectPrefix(previous: ChatRequest, next: ChatRequest, label: string): void {
  expect(next.messages.length, label).toBeGreaterThan(previous.messages.length)
  previous.messages.forEach((message, index) => {
    expect(JSON.stringify(next.messages[index]), `${label}, message ${index}`).toBe(JSON.stringify(message))
  })
}

/** The text of every message but the folded-history one. */
function liveTexts(request: ChatRequest): string[] {
  const history = conversation(request)[0]
  return request.messages.filter((message) => message !== history || sessionHistory(request) === null).map(messageText)
}

/** The tool-call ids a request carries (calls and results). */
function callIds(request: ChatRequest): Set<string> {
  return new Set(
    request.messages.flatMap((message) => [
      ...(message.tool_calls ?? []).map((call) => call.id),
      ...(message.tool_call_id ? [message.tool_call_id] : []),
    ]),
  )
}

/** The tool-call ids of the tool parts stored in a message sequence range of a session. */
function storedCallIds(file: string, sessionId: string, firstSeq: number, lastSeq: number): string[] {
  return queryStore<{ call_id: string }>(
    file,
    "SELECT json_extract(p.content_json, '$.callID') AS call_id FROM parts p JOIN messages m ON m.id = p.message_id " +
      "WHERE m.session_id = ? AND m.seq BETWEEN ? AND ? AND p.type = 'tool' ORDER BY m.seq",
    sessionId,
    firstSeq,
    lastSeq,
  ).map((row) => row.call_id)
}

// ---------------------------------------------------------------------------------------------------------------

describe("compartments, the folded history, ctx_pin and ctx_expand in the real OpenCode", () => {
  const TURN_ONE = "Turn one: read notes.txt, a.txt, b.txt and c.txt. Never print the deploy key."
  const TURN_TWO = "Turn two: expand what you need."
  const NOTES = "Deploy notes\nPIN-ME the deploy key lives at vault path secret/deploy.\n"

  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let server: OpenCodeServer
  let sessionId = ""
  const finals: string[] = []

  beforeAll(async () => {
    let project = ""
    let aTxtTag: number | null = null
    const read = (name: string, promptTokens = LOW): MockReply => ({
      kind: "tool",
      name: "read",
      args: { filePath: join(project, name) },
      promptTokens,
    })
    const turns: ScriptedTurn[] = [
      {
        marker: "Turn one:",
        steps: [
          () => read("notes.txt"),
          // Pin the notes read (an early tag), by the tag the model sees on its result.
          (request) => ({
            kind: "tool",
            name: "ctx_pin",
            args: { tags: String(prefixTag(messageText(toolMessages(request).at(-1) as ChatMessage))) },
            promptTokens: LOW,
          }),
          () => read("a.txt"),
          // The model remembers the tag it saw on a.txt's result (the history may show the call without it later).
          (request) => {
            aTxtTag = prefixTag(messageText(toolMessages(request).at(-1) as ChatMessage))
            return read("b.txt")
          },
          // Reported usage over the threshold: the next pass executes and folds the settled messages.
          () => read("c.txt", HIGH),
          () => text("TURN-ONE-DONE"),
        ],
      },
      {
        marker: "Turn two:",
        steps: [
          // The first episode id the history shows.
          (request) => ({
            kind: "tool",
            name: "ctx_expand",
            args: { target: historyEpisodeIds(sessionHistory(request) ?? "")[0] ?? "none" },
            promptTokens: LOW,
          }),
          // The tag of the (folded) read of a.txt, as the model saw it on the result.
          () => ({ kind: "tool", name: "ctx_expand", args: { target: String(aTxtTag ?? "none") }, promptTokens: LOW }),
          () => read("d.txt", HIGH),
          () => text("TURN-TWO-DONE"),
        ],
      },
    ]
    const script = createTurnScript(turns)
    mock = await startMockModelServer((request, n) => {
      if (isTitleRequest(request)) return text("Fidelity session")
      return script(request, n) ?? text(`UNEXPECTED-REQUEST-${n}`)
    })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      contextLimit: CONTEXT,
      files: {
        ".opencode/magic-context.jsonc": JSON.stringify(BASE_CONFIG),
        "notes.txt": NOTES,
        "a.txt": fixtureText("A", 3_000),
        "b.txt": fixtureText("B", 3_000),
        "c.txt": fixtureText("C", 3_000),
        "d.txt": fixtureText("D", 3_000),
      },
    })
    project = sandbox.project
    server = await startOpenCodeServer(sandbox)
    sessionId = await createSession(server, "fidelity")
    finals.push(await prompt(server, sessionId, TURN_ONE))
    finals.push(await prompt(server, sessionId, TURN_TWO))
  })

  afterAll(async () => {
    await server?.stop()
    if (sandbox) keepRequests(sandbox.root, mock)
    await mock?.close()
    sandbox?.cleanup()
  })

  /** Facts every test below relies on: the scripted session ran as planned. */
  function session() {
    expect(finals).toEqual(["TURN-ONE-DONE", "TURN-TWO-DONE"])
    const requests = mock.requests.map((request) => request.body).filter((body) => !isTitleRequest(body))
    const passes = passesOf(sandbox.databaseFile, sessionId)
    expect(errorsOf(sandbox.databaseFile, sessionId)).toEqual([])
    // One pass per request; the HIGH reports make passes 6 and 10 execute.
    expect(requests).toHaveLength(10)
    expect(passes.map((pass) => pass.decision)).toEqual([
      ...["replay", "replay", "replay", "replay", "replay"],
      "execute",
      ...["replay", "replay", "replay"],
      "execute",
    ])
    expect(passes.filter((pass) => pass.decision === "execute").map((pass) => pass.reason)).toEqual([
      "threshold-work",
      "threshold-work",
    ])
    return { requests, passes }
  }

  it("cuts settled conversation into compartments and folds them into <session-history> at the prompt start", () => {
    const { requests, passes } = session()
    const file = sandbox.databaseFile
    const compartments = compartmentsOf(file, sessionId)
    const representations = representationsOf(file, sessionId)
    const selections = selectionsOf(file, sessionId)
    // Messages: 1 user, 2 read notes, 3 ctx_pin, 4 read a, 5 read b, 6 read c, 7 text; 8 user, 9 and 10
    // ctx_expand, 11 read d, 12 text. An episode is cut once settled (outside the protected window) and at least
    // 2,000 tokens or ended by the next user turn; each execute pass folds all of them.
    const ranges = compartments.map((row) => [
      displayId(row.id),
      row.first_message_seq,
      row.last_message_seq,
      row.status,
      row.folded_pass,
    ])
    expect(ranges).toEqual([
      ["c1", 1, 4, "folded", 6],
      ["c2", 5, 5, "folded", 6],
      ["c3", 6, 7, "folded", 10],
      // ctx_expand's answer (message 10) is c1's FULL, its raw source: past 12,000 tokens with message 9 it is split.
      ["c4", 8, 9, "folded", 10],
      ["c5", 10, 10, "folded", 10],
    ])
    for (const compartment of compartments) {
      const own = representations.filter((row) => row.compartment_id === compartment.id)
      // Written once, from the source, by the deterministic canonical record; the anchor always exists.
      expect(own.map((row) => row.strategy)).toEqual(own.map(() => "canonical-record"))
      expect(own.map((row) => row.tier)).toContain("anchor")
      for (const row of own) {
        expect(TIERS).toContain(row.tier)
        expect(row.tokens).toBeGreaterThan(0)
        expect(row.survival_contract.length).toBeGreaterThan(0)
        expect(row.prompt_version).toBeNull()
        const header = `[${displayId(compartment.id)} §${compartment.first_tag}§–§${compartment.last_tag}§]`
        expect(row.content.startsWith(header)).toBe(true)
      }
    }
    // One selection per compartment, recorded by the execute pass that folded it.
    const executes = passes.filter((pass) => pass.decision === "execute")
    const applied = selections.map((row) => [
      displayId(row.compartment_id),
      row.pass_id,
      row.reason,
      row.policy_version,
    ])
    expect(applied).toEqual([
      ["c1", executes[0]?.id, "new", "selection-v1"],
      ["c2", executes[0]?.id, "new", "selection-v1"],
      ["c3", executes[1]?.id, "new", "selection-v1"],
      ["c4", executes[1]?.id, "new", "selection-v1"],
      ["c5", executes[1]?.id, "new", "selection-v1"],
    ])

    // No history before the first execute pass.
    for (const request of requests.slice(0, 5)) expect(sessionHistory(request)).toBeNull()
    for (const [index, folded] of [
      [5, compartments.slice(0, 2)],
      [9, compartments],
    ] as const) {
      const request = requests[index] as ChatRequest
      const history = sessionHistory(request)
      // Right after the system messages: one synthetic user message carrying the history.
      expect(history, `request ${index + 1}`).not.toBeNull()
      const text = history as string
      expect(text.endsWith("</session-history>")).toBe(true)
      const carriers = conversation(request).filter((message) => messageText(message).includes("<session-history>"))
      expect(carriers).toHaveLength(1)
      // The pinned ledger holds the first user message verbatim.
      expect(text).toContain(`## Pinned (verbatim; these still apply)\n- §1§ ${TURN_ONE}\n`)
      // Each folded compartment at its selected tier, oldest first.
      expect(text).toContain("## Episodes (oldest first)")
      let cursor = text.indexOf("## Episodes (oldest first)")
      for (const compartment of folded) {
        const tierText = selectedText(representations, selections, compartment.id, "canonical-record")
        cursor = expectEpisodeShown(text, tierText, cursor, `${displayId(compartment.id)} in request ${index + 1}`)
      }
      // The folded raw messages are gone: their tool calls and results, the user's message, the files' content.
      const last = folded.at(-1) as CompartmentRow
      const foldedCalls = storedCallIds(sandbox.databaseFile, sessionId, 1, last.last_message_seq)
      expect(foldedCalls.length).toBeGreaterThan(0)
      const present = callIds(request)
      for (const callId of foldedCalls) expect(present.has(callId), `${callId} in request ${index + 1}`).toBe(false)
      const live = liveTexts(request).join("\n")
      expect(live).not.toContain(TURN_ONE)
      expect(live).not.toContain("PIN-ME")
      expect(JSON.stringify(request)).not.toContain("FILE-A-BEGIN")
      expect(JSON.stringify(request)).not.toContain("FILE-B-BEGIN")
    }
    // The second fold took the second turn's user message and the read of c.txt, too.
    const lastRequest = requests[9] as ChatRequest
    expect(liveTexts(lastRequest).join("\n")).not.toContain(TURN_TWO)
    expect(JSON.stringify(lastRequest)).not.toContain("FILE-C-BEGIN")
    expect(JSON.stringify(lastRequest)).toContain("FILE-D-BEGIN")
  })

  it("keeps each request a byte prefix of the next between execute passes", () => {
    const { requests, passes } = session()
    for (let index = 1; index < requests.length; index += 1) {
      const pass = passes[index] as PassRow
      if (pass.decision === "execute") {
        // The fold rewrote the prompt after the system messages, and the pass recorded where.
        expect(pass.first_divergence, `pass ${pass.seq}`).not.toBeNull()
        continue
      }
      const [previous, next] = [requests[index - 1] as ChatRequest, requests[index] as ChatRequest]
      expectPrefix(previous, next, `request ${index} -> ${index + 1}`)
      expect(pass.first_divergence, `pass ${pass.seq}`).toBeNull()
    }
  })

  it("ctx_pin pins an early tag, and once that message is folded the pin is in the pinned ledger verbatim", () => {
    const { requests } = session()
    const file = sandbox.databaseFile
    // The model pinned the notes read by its tag.
    const notesResult = toolMessages(requests[1] as ChatRequest).at(-1) as ChatMessage
    const notesTag = prefixTag(messageText(notesResult)) as number
    expect(notesTag).toBe(2)
    const pins = queryStore<{ tag: number; text: string; pinned_by: string }>(
      file,
      "SELECT tag, text, pinned_by FROM pins WHERE session_id = ?",
      sessionId,
    )
    const notes = storedToolOutput(file, sessionId, notesTag)
    expect(notes.output).toContain("PIN-ME the deploy key")
    const pinText = `read ${JSON.stringify(notes.input)}\n${notes.output}`
    expect(pins).toEqual([{ tag: notesTag, text: pinText, pinned_by: "agent" }])
    const answer = toolMessages(requests[2] as ChatRequest).at(-1) as ChatMessage
    expect(messageText(answer)).toMatch(TAG_PREFIX)
    const pinned = `§${notesTag}§ pinned (${pinText.length} characters, kept verbatim).`
    expect(messageText(answer).replace(TAG_PREFIX, "")).toBe(pinned)
    // While the message is live, no ledger; once folded (request 6 on), the pin is rendered verbatim.
    for (const request of requests.slice(0, 5)) expect(sessionHistory(request)).toBeNull()
    for (const request of requests.slice(5)) {
      const history = sessionHistory(request) as string
      expect(history).toContain(`\n- §${notesTag}§ ${pinText}\n`)
      const ledger = history.slice(history.indexOf("## Pinned"), history.indexOf("## Working set"))
      expect(ledger).toContain(pinText)
    }
  })

  it("ctx_expand brings back an episode seen in the history at full detail and a folded tag's stored original", () => {
    const { requests } = session()
    const file = sandbox.databaseFile
    const representations = representationsOf(file, sessionId)
    const c1 = compartmentsOf(file, sessionId)[0] as CompartmentRow
    // The model asked for the first episode id of the history it was shown.
    const expandEpisode = requests[7] as ChatRequest
    const episodeCall = expandEpisode.messages.flatMap((message) => message.tool_calls ?? []).at(-1)
    expect(episodeCall?.function.name).toBe("ctx_expand")
    expect(JSON.parse(episodeCall?.function.arguments ?? "{}")).toEqual({ target: "c1" })
    expect(historyEpisodeIds(sessionHistory(requests[6] as ChatRequest) ?? "")).toEqual(["c1", "c2"])
    // Its answer: the episode's most detailed tier, in full.
    const mostDetailed = TIERS.map((tier) =>
      representations.find((row) => row.compartment_id === c1.id && row.tier === tier),
    ).find((row) => row !== undefined) as RepresentationRow
    expect(mostDetailed.tier).toBe("full")
    const episodeAnswer = toolMessages(expandEpisode).at(-1) as ChatMessage
    expect(messageText(episodeAnswer).replace(TAG_PREFIX, "")).toBe(mostDetailed.content)

    // Then a tag whose message is folded (the read of a.txt): the stored original, call and output.
    const tagA = queryStore<{ tag: number }>(
      file,
      "SELECT t.tag FROM tags t JOIN parts p ON p.session_id = t.session_id AND p.id = t.part_id " +
        "WHERE t.session_id = ? AND t.tool = 'read' " +
        "AND json_extract(p.content_json, '$.state.input.filePath') LIKE '%/a.txt'",
      sessionId,
    )[0]?.tag as number
    expect(tagA).toBeGreaterThan(0)
    const expandTag = requests[8] as ChatRequest
    const tagCall = expandTag.messages.flatMap((message) => message.tool_calls ?? []).at(-1)
    expect(JSON.parse(tagCall?.function.arguments ?? "{}")).toEqual({ target: String(tagA) })
    const stored = storedToolOutput(file, sessionId, tagA)
    expect(stored.output).toContain("FILE-A-BEGIN")
    expect(stored.output).toContain("FILE-A-END")
    const tagAnswer = toolMessages(expandTag).at(-1) as ChatMessage
    const original = `§${tagA}§:\nread ${JSON.stringify(stored.input)}\n${stored.output}`
    expect(messageText(tagAnswer).replace(TAG_PREFIX, "")).toBe(original)
  })

  // Last in this block: it deletes the session the tests above read, and its status commands are model calls.
  it("lets go of a deleted session (OpenCode's session.deleted): the process holds one fewer, the stored rows stay", async () => {
    session()
    const stored = { passes: passesOf(sandbox.databaseFile, sessionId).length, compartments: compartmentsOf(sandbox.databaseFile, sessionId).length }
    expect(stored.compartments).toBeGreaterThan(0)
    // The report of another session of the same server says what the process holds.
    const other = await createSession(server, "another")
    const held = async (): Promise<string | undefined> => (await runCommand(server, other, "ctx-status")).split("\n").find((line) => line.startsWith("Held in memory"))
    expect(await held()).toBe("Held in memory by this process: 1 session (a deleted session is let go; its stored rows stay)")
    const removed = await server.client.session.delete({ path: { id: sessionId } })
    expect(removed.data).toBe(true)
    // The plugin hears of it as an event, after the server answered: asked again until it shows (each ask is a model call).
    let line = await held()
    for (let attempt = 0; attempt < 10 && !line?.includes(": 0 sessions"); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      line = await held()
    }
    expect(line).toBe("Held in memory by this process: 0 sessions (a deleted session is let go; its stored rows stay)")
    expect(passesOf(sandbox.databaseFile, sessionId)).toHaveLength(stored.passes)
    expect(compartmentsOf(sandbox.databaseFile, sessionId)).toHaveLength(stored.compartments)
    expect(errorsOf(sandbox.databaseFile, sessionId)).toEqual([])
    expect(queryStore(sandbox.databaseFile, "SELECT hook, message FROM errors")).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------------------------

/** The tiers the mock historian writes for an episode: plain words plus a verbatim slice of the episode source. */
function modelTiers(episode: RequestedEpisode): Record<(typeof TIERS)[number], string> {
  return {
    full: `Model full tier of ${episode.id}: ${episode.source.slice(0, 80)}`,
    dense: `Model dense tier of ${episode.id}: ${episode.source.slice(0, 60)}`,
    compact: `Model compact tier of ${episode.id}: ${episode.source.slice(0, 40)}`,
    anchor: `Model anchor of ${episode.id}`,
  }
}

const MALFORMED_ANSWER = 'Here are the tiers: {"episodes": [{"id": "c1", "tiers": {"full": "unterminated'

function wrongShapeAnswer(episodes: readonly RequestedEpisode[]): string {
  return JSON.stringify({
    episodes: episodes.map((episode) => ({ id: episode.id, summary: episode.source.slice(0, 40) })),
  })
}

/** A valid answer: the tiers of `modelTiers` for every requested episode. */
function validAnswer(episodes: readonly RequestedEpisode[]): string {
  return JSON.stringify({
    episodes: episodes.map((episode) => ({ id: episode.id, tiers: modelTiers(episode), facts: [] })),
  })
}

/** The historian mode a request's episodes belong to: every file and user message of a session names it. */
function modeOf(request: ChatRequest): string | null {
  const all = request.messages.map(messageText).join("\n")
  return /mode-(valid|malformed|shape|timeout)/.exec(all)?.[1] ?? null
}

type Historian = { request: RecordedRequest; episodes: RequestedEpisode[]; repair: boolean }

/** The historian requests the mock received, with the episodes each asks for. */
function historianRequests(mock: MockModelServer, mode: string): Historian[] {
  return mock.requests
    .filter((request) => isHistorianRequest(request.body) && modeOf(request.body) === mode)
    .map((request) => ({ request, episodes: requestedEpisodes(request.body), repair: isHistorianRepair(request.body) }))
}

/** The episode ids one historian request asks for. */
function batchIds(historian: Historian): string[] {
  return historian.episodes.map((episode) => episode.id)
}

/** Main-session requests of a mode, in order. */
function mainRequestsOf(mock: MockModelServer, mode: string): RecordedRequest[] {
  return mock.requests.filter(
    (request) => !isTitleRequest(request.body) && !isHistorianRequest(request.body) && modeOf(request.body) === mode,
  )
}

/** Session files and turns for one historian mode: `mode-<name>/<label>.txt` read in turns of the given files. */
function modeFiles(mode: string, labels: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    labels.map((label) => [`mode-${mode}/${label}.txt`, fixtureText(`${mode}${label}`.toUpperCase(), 3_000)]),
  )
}

/**
 * True when the session's historian is idle: every compartment cut so far went to the historian, and every run
 * ended (stored model tiers, or recorded one error). A pass starts a run only when none is going on, so a mock that
 * holds each main reply until this holds makes every batch exactly the compartments its pass cut.
 */
function historianSettled(mock: MockModelServer, file: string, mode: string, sessionId: string): boolean {
  const compartments = compartmentsOf(file, sessionId).map((row) => displayId(row.id))
  if (mode === "valid") {
    const stored = modelTieredIds(file, sessionId)
    return compartments.every((id) => stored.has(id))
  }
  const initial = historianRequests(mock, mode).filter((historian) => !historian.repair)
  const requested = new Set(initial.flatMap((historian) => historian.episodes.map((episode) => episode.id)))
  return compartments.every((id) => requested.has(id)) && errorsOf(file, sessionId).length === initial.length
}

/** A hold for a mock answer: until the session's historian is idle (bounded; the assertions catch a failure). */
function untilSettled(mock: MockModelServer, file: string, mode: string, sessionId: () => string): Promise<unknown> {
  const settled = (): boolean => historianSettled(mock, file, mode, sessionId())
  return waitFor(`the ${mode} historian to settle`, settled, 20_000).catch(() => undefined)
}

/**
 * A failing historian session. Turn one reads three files: compartments are cut and sent to the historian, which
 * fails. Once a failure is recorded, turn two pushes usage over the threshold, so an execute pass folds the
 * compartments into the history. Returns once every compartment went to the historian and every run ended.
 */
async function runFailingSession(options: {
  server: OpenCodeServer
  mock: MockModelServer
  databaseFile: string
  mode: string
  sessions: Map<string, string>
}): Promise<{ sessionId: string; turnOneDoneAt: number }> {
  const { server, mock, databaseFile, mode } = options
  const sessionId = await createSession(server, `historian ${mode}`)
  options.sessions.set(mode, sessionId)
  await prompt(server, sessionId, `mode-${mode} turn one: read a.txt, b.txt and c.txt.`)
  const turnOneDoneAt = Date.now()
  await waitFor(`the first historian failure of mode ${mode}`, () => errorsOf(databaseFile, sessionId).length >= 1)
  await prompt(server, sessionId, `mode-${mode} turn two: read d.txt.`)
  await waitFor(`the historian runs of mode ${mode}`, () => historianSettled(mock, databaseFile, mode, sessionId))
  return { sessionId, turnOneDoneAt }
}

/** The turns of a failing session; `hold(turn, step)` may delay the reply of a step (turn and step from 0). */
function failingTurns(
  mode: string,
  read: (mode: string, label: string, tokens?: number) => MockReply,
  hold: (turn: number, step: number) => Promise<unknown> | undefined,
): ScriptedTurn[] {
  const held = (turn: number, step: number, reply: MockReply): MockReply => {
    const until = hold(turn, step)
    return until ? { ...reply, hold: until } : reply
  }
  return [
    {
      marker: `mode-${mode} turn one:`,
      steps: [
        () => held(0, 0, read(mode, "a")),
        () => held(0, 1, read(mode, "b")),
        () => held(0, 2, read(mode, "c")),
        () => held(0, 3, text(`mode-${mode} turn one done`)),
      ],
    },
    {
      marker: `mode-${mode} turn two:`,
      steps: [() => held(1, 0, read(mode, "d", HIGH)), () => held(1, 1, text(`mode-${mode} turn two done`))],
    },
  ]
}

/** Asserts the fallback: errors recorded, no model tiers stored, and the history shows the canonical tiers. */
function expectCanonicalFallback(options: {
  mock: MockModelServer
  databaseFile: string
  sessionId: string
  mode: string
  errorMessage: string
}): void {
  const { mock, databaseFile, sessionId, mode } = options
  // One error per batch (c1, c2, c3), each with the code and the reason.
  const errors = errorsOf(databaseFile, sessionId)
  expect(errors.map((row) => [row.hook, row.code, row.message])).toEqual(
    [1, 2, 3].map(() => ["historian", "historian_failed", options.errorMessage]),
  )
  const representations = representationsOf(databaseFile, sessionId)
  expect(representations.filter((row) => row.strategy !== "canonical-record")).toEqual([])
  // The execute pass of turn two folded the compartments with their canonical text, after the historian had
  // failed on c1 and c2 (c3 was cut by that pass).
  const passes = passesOf(databaseFile, sessionId)
  const executes = passes.filter((pass) => pass.decision === "execute")
  expect(executes).toHaveLength(1)
  const execute = executes[0] as PassRow
  expect((errors[1] as ErrorRow).at).toBeLessThanOrEqual(execute.started_at)
  const requests = mainRequestsOf(mock, mode)
  expect(requests).toHaveLength(passes.length)
  const history = sessionHistory(requests[passes.indexOf(execute)]?.body as ChatRequest)
  expect(history).not.toBeNull()
  const selections = selectionsOf(databaseFile, sessionId)
  const folded = compartmentsOf(databaseFile, sessionId).filter((row) => row.folded_pass === execute.seq)
  expect(folded.map((row) => displayId(row.id))).toEqual(["c1", "c2", "c3"])
  for (const compartment of folded) {
    expectEpisodeShown(history as string, selectedText(representations, selections, compartment.id, "canonical-record"), 0, displayId(compartment.id))
  }
  expect(history).not.toContain("Model ")
  // The hidden agent offers no tools to any historian request.
  for (const historian of historianRequests(mock, mode)) expect(historian.request.body.tools ?? []).toEqual([])
}

describe("the model historian in the real OpenCode", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let server: OpenCodeServer
  const sessions = new Map<string, string>()
  let valid = ""
  let malformed = ""
  let shape = ""
  const finals: string[] = []

  beforeAll(async () => {
    let project = ""
    let databaseFile = ""
    const read = (mode: string, label: string, promptTokens = LOW): MockReply => ({
      kind: "tool",
      name: "read",
      args: { filePath: join(project, `mode-${mode}`, `${label}.txt`) },
      promptTokens,
    })
    const settled = (mode: string): Promise<unknown> =>
      untilSettled(mock, databaseFile, mode, () => sessions.get(mode) ?? "")
    // Ordering probes: the first historian request, and the next main request after a given moment.
    const historianSeen = signal()
    let mainWaiters: (() => void)[] = []
    const nextMainRequest = (): Promise<void> => {
      const next = signal()
      mainWaiters.push(next.fire)
      return next.wait(15_000)
    }
    let heldFirst = false
    const turns: ScriptedTurn[] = [
      {
        marker: "mode-valid turn one:",
        steps: [
          () => read("valid", "a"),
          () => read("valid", "b"),
          // The pass before this request cut the first compartment and started the historian: wait until its
          // request is here. The historian's answer waits for the next main request (below): the main session
          // provably goes on while the historian's request is outstanding.
          () => ({ ...read("valid", "c", HIGH), hold: historianSeen.wait(15_000) }),
          () => text("mode-valid turn one done"),
        ],
      },
      {
        marker: "mode-valid turn two:",
        steps: [
          // From here on each reply waits until the historian is idle, so its batches are deterministic.
          () => ({ ...read("valid", "d"), hold: settled("valid") }),
          () => ({ ...read("valid", "e", HIGH), hold: settled("valid") }),
          () => text("mode-valid turn two done"),
        ],
      },
      ...failingTurns("malformed", read, () => settled("malformed")),
      ...failingTurns("shape", read, () => settled("shape")),
    ]
    const script = createTurnScript(turns)
    mock = await startMockModelServer((request, n) => {
      if (isTitleRequest(request)) return text("Historian session")
      if (isHistorianRequest(request)) {
        historianSeen.fire()
        const episodes = requestedEpisodes(request)
        switch (modeOf(request)) {
          case "valid": {
            if (heldFirst) return text(validAnswer(episodes))
            heldFirst = true
            return { ...text(validAnswer(episodes)), hold: nextMainRequest() }
          }
          case "malformed":
            return text(MALFORMED_ANSWER)
          case "shape":
            return text(wrongShapeAnswer(episodes))
          default:
            return text("HISTORIAN-MODE-UNKNOWN")
        }
      }
      const waiting = mainWaiters
      mainWaiters = []
      for (const fire of waiting) fire()
      return script(request, n) ?? text(`UNEXPECTED-REQUEST-${n}`)
    })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      contextLimit: CONTEXT,
      files: {
        ".opencode/magic-context.jsonc": JSON.stringify({ ...BASE_CONFIG, historian: { strategy: "model" } }),
        ...modeFiles("valid", ["a", "b", "c", "d", "e"]),
        ...modeFiles("malformed", ["a", "b", "c", "d"]),
        ...modeFiles("shape", ["a", "b", "c", "d"]),
      },
    })
    project = sandbox.project
    databaseFile = sandbox.databaseFile
    server = await startOpenCodeServer(sandbox)

    valid = await createSession(server, "historian valid")
    sessions.set("valid", valid)
    finals.push(await prompt(server, valid, "mode-valid turn one: read a.txt, b.txt and c.txt."))
    await waitFor("model tiers of c1", () => modelTieredIds(databaseFile, valid).has("c1"))
    finals.push(await prompt(server, valid, "mode-valid turn two: read d.txt and e.txt."))
    // The last execute pass cut c4 and started the historian for it.
    await waitFor("model tiers of every compartment", () => historianSettled(mock, databaseFile, "valid", valid))
    malformed = (await runFailingSession({ server, mock, databaseFile, mode: "malformed", sessions })).sessionId
    shape = (await runFailingSession({ server, mock, databaseFile, mode: "shape", sessions })).sessionId
  })

  afterAll(async () => {
    await server?.stop()
    if (sandbox) keepRequests(sandbox.root, mock)
    await mock?.close()
    sandbox?.cleanup()
  })

  it("asks the model in a hidden child session without tools and stores its validated tiers", async () => {
    expect(finals).toEqual(["mode-valid turn one done", "mode-valid turn two done"])
    expect(errorsOf(sandbox.databaseFile, valid)).toEqual([])
    const historians = historianRequests(mock, "valid")
    // One batch per pass that cut compartments: c1; c2 (cut while the first request was out, sent by the next
    // pass); c3; c4 (cut by the last execute pass). No repair was needed.
    expect(historians.map((historian) => [historian.repair, batchIds(historian)])).toEqual([
      [false, ["c1"]],
      [false, ["c2"]],
      [false, ["c3"]],
      [false, ["c4"]],
    ])
    for (const historian of historians) {
      const body = historian.request.body
      // The hidden agent denies every tool: none is offered.
      expect(body.tools ?? []).toEqual([])
      // Its prompt replaces OpenCode's system prompt (OpenCode appends its environment block).
      const system = body.messages.filter((message) => message.role === "system").map(messageText).join("\n")
      expect(system).toContain(HISTORIAN_SYSTEM_PROMPT)
      expect(system).not.toContain("<context-management>")
      // One user message: the request for exactly the episodes it lists, each with its raw source.
      const users = body.messages.filter((message) => message.role === "user")
      expect(users.map(messageText)).toEqual([historianRequest(historian.episodes)])
      for (const episode of historian.episodes) expect(episode.source).toContain("mode-valid")
    }
    // The tiers the mock wrote are stored verbatim, as source-grounded model tiers with the prompt version.
    const representations = representationsOf(sandbox.databaseFile, valid)
    const compartments = compartmentsOf(sandbox.databaseFile, valid)
    const episodes = historians.flatMap((historian) => historian.episodes)
    for (const compartment of compartments) {
      const episode = episodes.find((candidate) => candidate.id === displayId(compartment.id)) as RequestedEpisode
      const own = representations.filter((row) => row.compartment_id === compartment.id)
      const model = own.filter((row) => row.strategy === "source-grounded-model")
      expect(model.map((row) => [row.tier, row.content, row.prompt_version, row.generator_model])).toEqual(
        TIERS.map((tier) => [tier, modelTiers(episode)[tier], HISTORIAN_PROMPT_VERSION, "default"]),
      )
      // The canonical record stays beside them.
      expect(own.some((row) => row.strategy === "canonical-record")).toBe(true)
    }
    // The historian's child sessions hang under the main session.
    const children = await server.client.session.children({ path: { id: valid } })
    expect((children.data ?? []).map((child) => child.title)).toEqual(historians.map(() => "magic-context historian"))
  })

  it("shows the model's tiers in the history from a later execute pass on", () => {
    const file = sandbox.databaseFile
    const passes = passesOf(file, valid)
    const requests = mainRequestsOf(mock, "valid")
    expect(requests).toHaveLength(passes.length)
    const executes = passes.filter((pass) => pass.decision === "execute")
    expect(executes).toHaveLength(2)
    const representations = representationsOf(file, valid)
    const selections = selectionsOf(file, valid)
    const compartments = compartmentsOf(file, valid)
    const [c1, c2, c3, c4] = compartments as [CompartmentRow, CompartmentRow, CompartmentRow, CompartmentRow]
    // First fold: the historian's answer for c1 was still held, so c1 and c2 are canonical.
    const first = sessionHistory(requests[passes.indexOf(executes[0] as PassRow)]?.body as ChatRequest) as string
    expect(first).not.toBeNull()
    const canonicalTier = (compartment: CompartmentRow): string =>
      representations.find(
        (row) =>
          row.compartment_id === compartment.id &&
          row.strategy === "canonical-record" &&
          row.tier === selections.find((selection) => selection.compartment_id === compartment.id)?.tier,
      )?.content as string
    expectEpisodeShown(first, canonicalTier(c1), 0, "c1")
    expectEpisodeShown(first, canonicalTier(c2), 0, "c2")
    expect(first).not.toContain("Model ")
    // Second fold: c1-c3 come back with the model's text at their selected tier; c4 (cut by this pass) is canonical.
    const second = sessionHistory(requests[passes.indexOf(executes[1] as PassRow)]?.body as ChatRequest) as string
    for (const compartment of [c1, c2, c3]) {
      const modelText = selectedText(representations, selections, compartment.id, "source-grounded-model")
      expect(second, displayId(compartment.id)).toContain(`\n\n${modelText}\n`)
      expect(second).not.toContain(canonicalTier(compartment))
    }
    expectEpisodeShown(second, canonicalTier(c4), 0, "c4")
    // Every model text carries a verbatim slice of its episode source (grounding), e.g. the user's words.
    // FULL is the source whoever wrote the other tiers: the model's full tier is never shown.
    expect(second).not.toContain("Model full tier of")
    expect(second).toMatch(/Model (?:dense tier|compact tier) of c1: §1§ \[user\] mode-valid turn one/)
  })

  it("never blocks the user's turn: the main session's next request goes out while the historian's waits", () => {
    const [historian] = historianRequests(mock, "valid")
    const first = historian?.request as RecordedRequest
    expect(first.answeredAt).toBeDefined()
    const next = mainRequestsOf(mock, "valid").find((request) => request.n > first.n) as RecordedRequest
    expect(next).toBeDefined()
    expect(next.receivedAt).toBeGreaterThanOrEqual(first.receivedAt)
    expect(next.receivedAt).toBeLessThanOrEqual(first.answeredAt as number)
    // The held answer was released by that main request, not by the mock's safety cap.
    expect((first.answeredAt as number) - first.receivedAt).toBeLessThan(15_000)
  })

  it("falls back to the canonical record after malformed JSON and one malformed repair", () => {
    const historians = historianRequests(mock, "malformed")
    const problem = "the answer contains no JSON object"
    // Each request is followed by exactly one repair, in the same child session, and nothing after it.
    const initial = historians.filter((historian) => !historian.repair)
    const repairs = historians.filter((historian) => historian.repair)
    expect(initial.map(batchIds)).toEqual([["c1"], ["c2"], ["c3"]])
    expect(repairs.map(batchIds)).toEqual([["c1"], ["c2"], ["c3"]])
    for (const repair of repairs) {
      const users = repair.request.body.messages.filter((message) => message.role === "user").map(messageText)
      expect(users).toEqual([historianRequest(repair.episodes), historianRepairRequest(problem)])
      const assistant = repair.request.body.messages.filter((message) => message.role === "assistant").map(messageText)
      expect(assistant).toEqual([MALFORMED_ANSWER])
    }
    expectCanonicalFallback({
      mock,
      databaseFile: sandbox.databaseFile,
      sessionId: malformed,
      mode: "malformed",
      errorMessage: `historian output rejected after one repair: ${problem}; the canonical record stays`,
    })
  })

  it("falls back to the canonical record after wrong-shape JSON and one wrong-shape repair", () => {
    const historians = historianRequests(mock, "shape")
    const initial = historians.filter((historian) => !historian.repair)
    const repairs = historians.filter((historian) => historian.repair)
    expect(initial.map(batchIds)).toEqual([["c1"], ["c2"], ["c3"]])
    expect(repairs.map(batchIds)).toEqual([["c1"], ["c2"], ["c3"]])
    const problems: string[] = []
    for (const repair of repairs) {
      const sources = new Map(repair.episodes.map((episode) => [episode.id, episode.source]))
      const parsed = parseHistorianOutput({ text: wrongShapeAnswer(repair.episodes), sources })
      expect(parsed.ok).toBe(false)
      const problem = parsed.ok ? "" : parsed.error
      expect(problem).toMatch(/^the JSON has the wrong shape at episodes\.0\.tiers: /)
      problems.push(problem)
      const users = repair.request.body.messages.filter((message) => message.role === "user").map(messageText)
      expect(users).toEqual([historianRequest(repair.episodes), historianRepairRequest(problem)])
    }
    expectCanonicalFallback({
      mock,
      databaseFile: sandbox.databaseFile,
      sessionId: shape,
      mode: "shape",
      errorMessage: `historian output rejected after one repair: ${problems[0]}; the canonical record stays`,
    })
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("a historian that does not answer in time, in the real OpenCode", () => {
  /**
   * The mock holds every historian answer this long; the plugin gives up after `historian.timeout` (3s). Not 1s: the
   * timeout runs from the historian's start, and turn one's next request went out ~0.6 s after the mock saw the
   * historian's request, only 3–60 ms before a 1s timeout fired (measured alone; a loaded machine lost the race).
   */
  const HOLD_MS = 8_000
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let server: OpenCodeServer
  let sessionId = ""
  let turnOneDoneAt = 0
  let abortedChildren = 0

  beforeAll(async () => {
    let project = ""
    const read = (mode: string, label: string, promptTokens = LOW): MockReply => ({
      kind: "tool",
      name: "read",
      args: { filePath: join(project, `mode-${mode}`, `${label}.txt`) },
      promptTokens,
    })
    const sessions = new Map<string, string>()
    const historianSeen = signal()
    // Turn one's third reply waits until the historian's request is out: the turn's next request and its end then
    // provably happen while the historian's request is outstanding. In turn two each reply waits until the
    // historian is idle (each request times out after 3s), so its batches are deterministic.
    const script = createTurnScript(
      failingTurns("timeout", read, (turn, step) => {
        if (turn === 0) return step === 2 ? historianSeen.wait(15_000) : undefined
        return untilSettled(mock, sandbox.databaseFile, "timeout", () => sessions.get("timeout") ?? "")
      }),
    )
    mock = await startMockModelServer((request, n) => {
      if (isTitleRequest(request)) return text("Timeout session")
      if (isHistorianRequest(request)) {
        historianSeen.fire()
        const episodes = requestedEpisodes(request)
        return { ...text(validAnswer(episodes)), hold: new Promise((resolve) => setTimeout(resolve, HOLD_MS)) }
      }
      return script(request, n) ?? text(`UNEXPECTED-REQUEST-${n}`)
    })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      contextLimit: CONTEXT,
      files: {
        ".opencode/magic-context.jsonc": JSON.stringify({
          ...BASE_CONFIG,
          historian: { strategy: "model", timeout: "3s" },
        }),
        ...modeFiles("timeout", ["a", "b", "c", "d"]),
      },
    })
    project = sandbox.project
    server = await startOpenCodeServer(sandbox)
    const databaseFile = sandbox.databaseFile
    const result = await runFailingSession({ server, mock, databaseFile, mode: "timeout", sessions })
    sessionId = result.sessionId
    turnOneDoneAt = result.turnOneDoneAt
    // The plugin aborts a child session whose answer is late; wait until every child's reply has ended (aborted, or
    // answered late and stored), so the assertions below also prove that nothing late is used.
    const allAnswered = async (): Promise<boolean> => {
      const children = (await server.client.session.children({ path: { id: sessionId } })).data ?? []
      for (const child of children) {
        const messages = (await server.client.session.messages({ path: { id: child.id } })).data ?? []
        const ended = messages.some(
          (message) => message.info.role === "assistant" && (message.info.time.completed || message.info.error),
        )
        if (!ended) return false
      }
      return children.length > 0
    }
    const started = Date.now()
    while (Date.now() - started < 20_000 && !(await allAnswered())) {
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    // (Time for the plugin to see the late answers, were it to use them.)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const children = (await server.client.session.children({ path: { id: sessionId } })).data ?? []
    for (const child of children) {
      const messages = (await server.client.session.messages({ path: { id: child.id } })).data ?? []
      if (messages.some((message) => message.info.role === "assistant" && message.info.error?.name === "MessageAbortedError")) {
        abortedChildren += 1
      }
    }
  })

  afterAll(async () => {
    await server?.stop()
    if (sandbox) keepRequests(sandbox.root, mock)
    await mock?.close()
    sandbox?.cleanup()
  })

  it("records historian_failed after historian.timeout, sends no repair and keeps the canonical record", () => {
    const historians = historianRequests(mock, "timeout")
    expect(historians.map((historian) => [historian.repair, batchIds(historian)])).toEqual([
      [false, ["c1"]],
      [false, ["c2"]],
      [false, ["c3"]],
    ])
    // Each late request was aborted by the plugin (so a real model stops costing); nothing it might still send is used.
    expect(abortedChildren).toBe(3)
    expectCanonicalFallback({
      mock,
      databaseFile: sandbox.databaseFile,
      sessionId,
      mode: "timeout",
      errorMessage: "the historian did not answer within 3000 ms; the canonical record stays",
    })
  })

  it("never blocks the user's turn: the turn ends while the historian's request is outstanding", () => {
    const [historian] = historianRequests(mock, "timeout")
    const first = historian?.request as RecordedRequest
    // The plugin gave up after the timeout (the mock was holding the answer for 8 s).
    const [error] = errorsOf(sandbox.databaseFile, sessionId)
    expect(error?.at).toBeDefined()
    expect((error?.at as number) - first.receivedAt).toBeLessThan(HOLD_MS)
    // Turn one's next request went out while the historian's waited, and the turn finished while it was outstanding.
    const next = mainRequestsOf(mock, "timeout").find((request) => request.n > first.n) as RecordedRequest
    expect(next).toBeDefined()
    expect(next.receivedAt).toBeGreaterThanOrEqual(first.receivedAt)
    expect(next.receivedAt).toBeLessThanOrEqual(turnOneDoneAt)
    expect(next.receivedAt).toBeLessThan(error?.at as number)
  })
})
