import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtureText } from "./harness/fixture-text.js"
import {
  isTitleRequest,
  messageText,
  startMockModelServer,
  type ChatRequest,
  type MockModelServer,
  type MockReply,
} from "./harness/mock-model-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import {
  ANY_TAG,
  callIdOf,
  isCompactionRequest,
  keepRequests,
  lastUserText,
  mainRequests,
  prefixTag,
  recordingScript,
  systemTexts,
  toolMessages,
  toolResult,
} from "./harness/prompt-inspection.js"
import { queryStore } from "./harness/store-reader.js"
import { nudgeFloors } from "../../src/pressure/nudge-band.js"

type PassRow = {
  seq: number
  trigger: string
  decision: string
  band: string
  usage_tokens: number
  window_tokens: number
  rendered_tokens: number
  first_divergence: number | null
  detail_json: string
}
type PassDetail = { reason: string; breakdown: { total: number; fixed: number }; dropped: number[]; newTags: number[]; nudge: unknown }
type Pass = PassRow & { detail: PassDetail }
type TagRow = {
  tag: number
  kind: string
  message_id: string
  part_id: string
  tool: string | null
  status: string
  dropped_reason: string | null
}
type StoredPart = { content: { callID?: string; state?: { output?: string } }; tokens: number; final: number }
type Message = ChatRequest["messages"][number]

const RUN_LOGS = ["--print-logs", "--log-level", "INFO"]

function readPasses(file: string): Pass[] {
  const rows = queryStore<PassRow>(file, "SELECT * FROM passes ORDER BY seq")
  return rows.map((row) => ({ ...row, detail: JSON.parse(row.detail_json) as PassDetail }))
}

function readTags(file: string): TagRow[] {
  return queryStore<TagRow>(
    file,
    "SELECT tag, kind, message_id, part_id, tool, status, dropped_reason FROM tags ORDER BY tag",
  )
}

function readErrors(file: string): unknown[] {
  return queryStore(file, "SELECT hook, message FROM errors")
}

/** The stored (pristine) output of the tool part a tag names. */
function storedOutput(file: string, tag: number): string {
  return storedPart(file, tag).content.state?.output ?? ""
}

/** The stored (pristine) part a tag names. */
function storedPart(file: string, tag: number): StoredPart {
  const [row] = queryStore<{ content_json: string; tokens: number; final: number }>(
    file,
    "SELECT p.content_json, p.tokens, p.final FROM parts p " +
      "JOIN tags t ON t.session_id = p.session_id AND t.part_id = p.id WHERE t.tag = ?",
    tag,
  )
  if (!row) throw new Error(`no stored part for tag ${tag}`)
  return { content: JSON.parse(row.content_json) as StoredPart["content"], tokens: row.tokens, final: row.final }
}

function expectExitOk(result: RunResult): void {
  expect(result.exitCode, result.stderr.slice(-3000)).toBe(0)
}

/** Asserts that `previous`'s messages are, message by message, byte-identical to the start of `next`'s. */
function expectPrefix(previous: ChatRequest, next: ChatRequest, label: string): void {
  expect(next.messages.length, label).toBeGreaterThan(previous.messages.length)
  previous.messages.forEach((message, index) => {
    expect(JSON.stringify(next.messages[index]), `${label}, message ${index}`).toBe(JSON.stringify(message))
  })
}

describe("ctx_reduce, the execute pass and the cache contract in the real OpenCode", () => {
  // Usable window 64,000 - 4,096 = 59,904 tokens; threshold 50% (29,952); force band from 85%.
  const CONTEXT = 64_000
  const LOW = 20_000
  const HIGH = 36_000
  const files: Record<string, string> = {
    "magic-context.jsonc": '{ "execute_threshold": 50, "protected_tokens": 300, "historian": { "strategy": "off" } }\n',
  }
  for (const label of ["A", "B", "C", "D", "E", "F", "G"]) files[`${label.toLowerCase()}.txt`] = fixtureText(label, 3_000)

  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let replies: Map<number, MockReply>
  let first: RunResult
  let second: RunResult
  /** The store as it was when the request carrying the ctx_reduce result reached the model. */
  let atQueue: { operations: unknown[]; reduceCalls: unknown[] } | null = null

  beforeAll(async () => {
    let project = ""
    let databaseFile = ""
    const read = (label: string, promptTokens: number): MockReply => ({
      kind: "tool",
      name: "read",
      args: { filePath: join(project, `${label}.txt`) },
      promptTokens,
    })
    const recording = recordingScript((request) => {
      if (isTitleRequest(request)) return { kind: "text", text: "Reduce session" }
      if (lastUserText(request).includes("wrap up")) return { kind: "text", text: "WRAPPED-MARKER", promptTokens: HIGH }
      const step = toolMessages(request).length
      switch (step) {
        case 0:
          return read("a", LOW)
        case 1:
          return read("b", LOW)
        case 2:
          return read("c", LOW)
        case 3: {
          // As the guidance asks: ctx_reduce in the same response as the next read (two parallel tool calls). It
          // names the tag of the first read, as the model sees it, and a tag that does not exist.
          const readA = toolMessages(request).find((message) => messageText(message).includes("FILE-A-BEGIN"))
          const drop = `${prefixTag(readA ? messageText(readA) : "")},999`
          const readD = read("d", LOW) as Extract<MockReply, { kind: "tool" }>
          const calls = [{ name: "ctx_reduce", args: { drop } }, { name: readD.name, args: readD.args }]
          return { kind: "tools", calls, promptTokens: LOW }
        }
        case 5:
          // This request carries both answers, the ctx_reduce one and d.txt's read: the store as it is now.
          atQueue = {
            operations: queryStore(databaseFile, "SELECT kind, tag, status, queued_pass, applied_pass FROM operations"),
            reduceCalls: queryStore(
              databaseFile,
              "SELECT drop_argument, queued, deferred, rejected, refused_reason FROM reduce_calls",
            ),
          }
          return read("e", LOW)
        case 6:
          // Reported usage jumps over the threshold: the next pass executes the queued drop.
          return read("f", HIGH)
        case 7:
          return read("g", HIGH)
        default:
          return { kind: "text", text: "REDUCE-DONE", promptTokens: HIGH }
      }
    })
    replies = recording.replies
    mock = await startMockModelServer(recording.script)
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url, contextLimit: CONTEXT, files })
    project = sandbox.project
    databaseFile = sandbox.databaseFile
    first = await sandbox.run(["run", ...RUN_LOGS, "please", "read", "the", "files"])
    second = await sandbox.run(["run", "--continue", ...RUN_LOGS, "wrap", "up"])
  })

  afterAll(async () => {
    keepRequests(sandbox.root, mock)
    await mock.close()
    sandbox.cleanup()
  })

  /** Facts every test below relies on: the scripted session ran as planned. */
  function session() {
    expectExitOk(first)
    expect(first.stdout).toContain("REDUCE-DONE")
    expectExitOk(second)
    expect(second.stdout).toContain("WRAPPED-MARKER")
    const requests = mainRequests(mock)
    const passes = readPasses(sandbox.databaseFile)
    const tags = readTags(sandbox.databaseFile)
    expect(readErrors(sandbox.databaseFile)).toEqual([])
    // One transform pass per main request, in order.
    expect(passes.map((pass) => pass.trigger)).toEqual(requests.map(() => "transform"))
    const reads = tags.filter((tag) => tag.tool === "read")
    const readA = reads.find((tag) => storedOutput(sandbox.databaseFile, tag.tag).includes("FILE-A-BEGIN"))
    expect(readA).toBeDefined()
    const tagA = (readA as TagRow).tag
    const callA = storedPart(sandbox.databaseFile, tagA).content.callID as string
    // The requests of the first `opencode run` (one process); the last one is the `--continue` turn.
    const firstRun = requests.findIndex((request) => lastUserText(request) === "wrap up")
    expect(firstRun).toBe(8)
    return { requests, passes, tags, tagA, callA, firstRun }
  }

  it("ctx_reduce answers what it queued and rejected, and queues the drop in the store", () => {
    const { requests, passes, tags, tagA } = session()
    // The model named the tag of the first read and a tag that does not exist.
    const callRequest = requests[3] as ChatRequest
    expect(prefixTag(messageText(toolMessages(callRequest)[0] as Message))).toBe(tagA)
    const reduceTag = tags.find((tag) => tag.tool === "ctx_reduce")
    expect(reduceTag).toBeDefined()
    // OpenCode ran both calls of the batched response and sends them as one assistant message with two calls,
    // each answered: the ctx_reduce call took no request of its own (7 reads and the answer in 8 requests).
    const answerRequest = requests[4] as ChatRequest
    const batched = answerRequest.messages.filter((message) => (message.tool_calls ?? []).length > 1)
    expect(batched.map((message) => (message.tool_calls ?? []).map((call) => call.function.name))).toEqual([["ctx_reduce", "read"]])
    const [reduceCall, readCall] = (batched[0] as Message).tool_calls ?? []
    const answer = toolResult(answerRequest, reduceCall?.id ?? "")
    expect(answer).toBeDefined()
    expect(messageText(toolResult(answerRequest, readCall?.id ?? "") as Message)).toMatch(/^§\d+§ [\s\S]*FILE-D-BEGIN[\s\S]*FILE-D-END/)
    expect(toolMessages(answerRequest)).toHaveLength(5)
    // What the tool knew when it ran: the last pass before the call (pass 4) and the tags it had assigned.
    const lastPass = passes[3] as Pass
    const usage = Math.round((lastPass.rendered_tokens / lastPass.window_tokens) * 100)
    const highest = Math.max(...passes.slice(0, 4).flatMap((pass) => pass.detail.newTags))
    const tokensA = storedPart(sandbox.databaseFile, tagA).tokens
    expect(usage).toBeLessThan(50)
    const expected = [
      `Queued 1 drop (§${tagA}§, ~${tokensA.toLocaleString("en-US")} tokens); usage is ${usage}% of the window: ` +
        "they land at the next execute pass (at 50% or after 5 idle minutes).",
      `Rejected §999§: no such tag in this session (tags in this session run from 1 to ${highest}).`,
    ].join("\n")
    expect(messageText(answer as Message)).toBe(`§${(reduceTag as TagRow).tag}§ ${expected}`)
    // The store when that answer reached the model: one queued drop, recorded with the pass that saw the call.
    expect(atQueue).toEqual({
      operations: [{ kind: "drop", tag: tagA, status: "queued", queued_pass: 4, applied_pass: null }],
      reduceCalls: [{ drop_argument: `${tagA},999`, queued: 1, deferred: 0, rejected: 1, refused_reason: null }],
    })
  })

  it("sends the dropped read unchanged until the execute pass, then its marker; the raw part stays untouched", () => {
    const { requests, passes, tags, tagA, callA } = session()
    // The reported usage crossed the threshold after the call: the next pass (7) executed the queued drop.
    expect(passes.map((pass) => pass.decision)).toEqual([
      ...["replay", "replay", "replay", "replay", "replay", "replay"],
      "execute",
      ...["replay", "replay"],
    ])
    const execute = passes[6] as Pass
    expect(execute.band).toBe("execute")
    expect(execute.detail.reason).toBe("threshold-work")
    expect(execute.detail.dropped).toEqual([tagA])

    const raw = storedPart(sandbox.databaseFile, tagA)
    const output = raw.content.state?.output ?? ""
    expect(raw.final).toBe(1)
    expect(output).toContain("FILE-A-BEGIN")
    expect(output).toContain("FILE-A-END")
    expect(output).not.toMatch(ANY_TAG)
    requests.forEach((request, index) => {
      const result = toolResult(request, callA)
      if (index === 0) return expect(result).toBeUndefined()
      const text = messageText(result as Message)
      if (index < 6) expect(text, `request ${index + 1}`).toBe(`§${tagA}§ ${output}`)
      else expect(text, `request ${index + 1}`).toBe(`[dropped §${tagA}§ read output]`)
    })
    const dropped = tags.find((tag) => tag.tag === tagA) as TagRow
    expect(dropped).toMatchObject({ status: "dropped", dropped_reason: "reduce" })
    expect(tags.filter((tag) => tag.status === "dropped").map((tag) => tag.tag)).toEqual([tagA])
    const operations = queryStore(sandbox.databaseFile, "SELECT tag, status, queued_pass, applied_pass FROM operations")
    expect(operations).toEqual([{ tag: tagA, status: "applied", queued_pass: 4, applied_pass: 7 }])
    // The execute pass started epoch 1; no reminders were placed in this small window.
    const state = queryStore(sandbox.databaseFile, "SELECT epoch, last_execute_pass FROM session_state")
    expect(state).toEqual([{ epoch: 1, last_execute_pass: 7 }])
    expect(queryStore(sandbox.databaseFile, "SELECT * FROM placements")).toEqual([])
  })

  it("keeps each request a byte prefix of the next; only the execute pass changes one message: the drop", () => {
    const { requests, passes, callA } = session()
    expect(requests).toHaveLength(9)
    const system = systemTexts(requests[0] as ChatRequest)
    expect(system.some((text) => text.includes("<context-management>"))).toBe(true)
    for (const request of requests) expect(systemTexts(request)).toEqual(system)
    for (let index = 1; index < requests.length; index += 1) {
      const previous = requests[index - 1] as ChatRequest
      const next = requests[index] as ChatRequest
      const pass = passes[index] as PassRow
      if (pass.decision !== "execute") {
        expectPrefix(previous, next, `request ${index} -> ${index + 1}`)
        continue
      }
      // The execute pass rewrote the prompt: of the previous messages only the dropped read's result changed.
      const changed = previous.messages.flatMap((message, position) =>
        JSON.stringify(next.messages[position]) === JSON.stringify(message) ? [] : [position],
      )
      expect(changed).toEqual([next.messages.indexOf(toolResult(next, callA) as Message)])
    }
    // Passes record the same: no divergence from the previous prompt except at the execute pass.
    expect(passes.map((pass) => pass.first_divergence !== null)).toEqual(
      passes.map((pass, index) => pass.decision === "execute" && index > 0),
    )
  })

  it("takes the provider's reported usage as the truth: calibrated against the request that pass sent", () => {
    const { passes, firstRun } = session()
    const main = mock.requests.filter((request) => !isTitleRequest(request.body) && !isCompactionRequest(request.body))
    // The first pass has no report yet: usage is the estimate.
    const start = passes[0] as Pass
    expect(start.usage_tokens).toBe(start.detail.breakdown.total)
    // The process knows the system prompt only after its first transform: the first pass counts less of the fixed
    // prompt than the second, though both requests carried all of it.
    expect(start.detail.breakdown.fixed).toBeLessThan((passes[1] as Pass).detail.breakdown.fixed)
    // Every later replay pass of the same process: its estimate plus (report - estimate) of the previous request, that
    // estimate taken with the fixed prompt as this pass counts it. (The breakdown is of the prompt as sent; on a
    // replay pass without reminders that is also the usage's basis.)
    for (let index = 1; index < firstRun; index += 1) {
      const pass = passes[index] as Pass
      if (pass.decision === "execute") continue
      const previous = passes[index - 1] as Pass
      const reported = replies.get((main[index - 1] as { n: number }).n)?.promptTokens as number
      const sentNow = previous.detail.breakdown.total - previous.detail.breakdown.fixed + pass.detail.breakdown.fixed
      expect(pass.usage_tokens, `pass ${pass.seq}`).toBe(pass.detail.breakdown.total + reported - sentNow)
    }
  })
})

describe("nudges in the real OpenCode", () => {
  // Usable window 128,000 - 4,096 = 123,904 tokens: the derived protected window is ~11.4k tokens.
  const CONTEXT = 128_000
  const READS = 10
  const files: Record<string, string> = {}
  for (let index = 1; index <= READS; index += 1) files[`n${index}.txt`] = fixtureText(`N${index}`, 10_000)

  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let run: RunResult

  beforeAll(async () => {
    let project = ""
    mock = await startMockModelServer((request) => {
      if (isTitleRequest(request)) return { kind: "text", text: "Nudge session" }
      const step = toolMessages(request).length
      // Reported usage stays near the 65% threshold but under it (53%, 61% with the newest read): only the nudge
      // bands are at work, and close enough to the threshold for every level and the steer message.
      if (step === READS) return { kind: "text", text: "NUDGE-DONE", promptTokens: 66_000 }
      return { kind: "tool", name: "read", args: { filePath: join(project, `n${step + 1}.txt`) }, promptTokens: 66_000 }
    })
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url, contextLimit: CONTEXT, files })
    project = sandbox.project
    run = await sandbox.run(["run", ...RUN_LOGS, "please", "read", "all", "files"])
  })

  afterAll(async () => {
    keepRequests(sandbox.root, mock)
    await mock.close()
    sandbox.cleanup()
  })

  it("appends a ctx_reduce reminder to the newest tool result and replays it byte-identically for the epoch", () => {
    expectExitOk(run)
    expect(run.stdout).toContain("NUDGE-DONE")
    expect(readErrors(sandbox.databaseFile)).toEqual([])
    const requests = mainRequests(mock)
    const passes = readPasses(sandbox.databaseFile)
    expect(passes.map((pass) => pass.decision)).toEqual(requests.map(() => "replay"))
    type Placement = { epoch: number; kind: string; anchor_id: string; text: string; placed_pass: number }
    const placements = queryStore<Placement>(
      sandbox.databaseFile,
      "SELECT epoch, kind, anchor_id, text, placed_pass FROM placements ORDER BY id",
    )
    const toolParts = queryStore<{ id: string; call_id: string }>(
      sandbox.databaseFile,
      "SELECT id, json_extract(content_json, '$.callID') AS call_id FROM parts WHERE type = 'tool'",
    )
    const callIds = new Map(toolParts.map((row) => [row.id, row.call_id]))
    const nudges = placements.filter((placement) => placement.kind === "nudge")
    expect(nudges.length).toBeGreaterThanOrEqual(2)
    const firstPlaced = (nudges[0] as Placement).placed_pass
    // Quiet until the floors are reached (the seed's 60k live tail and 25k reclaimable, scaled to this 124k window).
    const floors = nudgeFloors(CONTEXT - 4_096)
    for (const request of requests.slice(0, firstPlaced - 1)) {
      for (const message of request.messages) expect(messageText(message)).not.toContain("magic-context:")
    }
    for (const nudge of nudges) {
      expect(nudge.epoch).toBe(0)
      expect(nudge.text).toMatch(/^<system-reminder>magic-context: .* ctx_reduce\(drop="[\d,-]+"\)\.</)
      expect(nudge.text).toContain("with ctx_reduce in the same response as your next real tool call")
      expect(nudge.text.endsWith("</system-reminder>")).toBe(true)
      expect(nudge.text).toMatch(/§\d+§ read \(\d+\.\dk\)/)
      // Only above the floors: at least the scaled reclaimable floor (15.5k).
      const reclaimable = /; (\d+\.\d)k tokens \(\d+% of the conversation\)/.exec(nudge.text)
      expect(Number(reclaimable?.[1]) * 1_000).toBeGreaterThanOrEqual(floors.minReclaimable - 50)
      const callId = callIds.get(nudge.anchor_id) as string
      expect(callId).toBeDefined()
      const placedIn = requests[nudge.placed_pass - 1] as ChatRequest
      // Appended to the newest tool result of that request, which is new in it.
      const newest = toolMessages(placedIn).at(-1)
      expect(newest?.tool_call_id).toBe(callId)
      const text = messageText(newest as Message)
      expect(text.endsWith(`\n\n${nudge.text}`)).toBe(true)
      expect(text).toMatch(/^§\d+§ <path>/)
      for (const earlier of requests.slice(0, nudge.placed_pass - 1)) {
        expect(toolResult(earlier, callId)).toBeUndefined()
      }
      // Replayed byte-identically, at the same position, in every later request.
      const position = placedIn.messages.indexOf(newest as Message)
      for (const later of requests.slice(nudge.placed_pass)) {
        expect(JSON.stringify(later.messages[position])).toBe(JSON.stringify(newest))
      }
    }
    // Channel 2: the ceiling steer, once per epoch, a user message right after the newest message of its pass.
    const steers = placements.filter((placement) => placement.kind === "steer")
    expect(steers).toHaveLength(1)
    const steer = steers[0] as Placement
    expect(steer.text).toMatch(
      /^<system-reminder>magic-context: the context window is \d+% full .*Call ctx_reduce .* in the same response as your next real tool call\.</,
    )
    expect(steer.text.endsWith("</system-reminder>")).toBe(true)
    const steerRequest = requests[steer.placed_pass - 1] as ChatRequest
    const steerAt = steerRequest.messages.length - 1
    expect(steerRequest.messages[steerAt]).toEqual({ role: "user", content: steer.text })
    expect(steerRequest.messages[steerAt - 1]?.role).toBe("tool")
    for (const earlier of requests.slice(0, steer.placed_pass - 1)) {
      for (const message of earlier.messages) expect(messageText(message)).not.toBe(steer.text)
    }
    for (const later of requests.slice(steer.placed_pass)) {
      expect(JSON.stringify(later.messages[steerAt])).toBe(JSON.stringify(steerRequest.messages[steerAt]))
    }
    // And the whole prompt stays a byte prefix from request to request.
    for (let index = 1; index < requests.length; index += 1) {
      const [previous, next] = [requests[index - 1] as ChatRequest, requests[index] as ChatRequest]
      expectPrefix(previous, next, `request ${index} -> ${index + 1}`)
    }
  })
})

describe("an agent without ctx_reduce, on a model with an input limit, in the real OpenCode", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let run: RunResult

  beforeAll(async () => {
    let project = ""
    mock = await startMockModelServer((request) => {
      if (isTitleRequest(request)) return { kind: "text", text: "Deny session" }
      if (toolMessages(request).length > 0) return { kind: "text", text: "DENY-DONE" }
      return { kind: "tool", name: "read", args: { filePath: join(project, "notes.txt") } }
    })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files: { "notes.txt": fixtureText("NOTES", 1_000) },
      config: { permission: { ctx_reduce: "deny" } },
      // OpenCode's overflow point for a model with an input limit: input - min(20,000, output) = 45,904 tokens.
      contextLimit: 100_000,
      inputLimit: 50_000,
    })
    project = sandbox.project
    run = await sandbox.run(["run", ...RUN_LOGS, "please", "read", "the", "notes"])
  })

  afterAll(async () => {
    keepRequests(sandbox.root, mock)
    await mock.close()
    sandbox.cleanup()
  })

  it("sends no tags, no ctx_reduce tool and no guidance, while the store still tags every item", () => {
    expectExitOk(run)
    expect(run.stdout).toContain("DENY-DONE")
    expect(readErrors(sandbox.databaseFile)).toEqual([])
    const requests = mainRequests(mock)
    expect(requests).toHaveLength(2)
    for (const request of requests) {
      expect((request.tools ?? []).map((tool) => tool.function.name)).not.toContain("ctx_reduce")
      expect((request.tools ?? []).length).toBeGreaterThan(0)
      for (const text of systemTexts(request)) {
        expect(text).not.toContain("<context-management>")
        expect(text).not.toContain("ctx_reduce")
      }
      for (const message of request.messages) expect(messageText(message)).not.toMatch(ANY_TAG)
    }
    const last = requests[1] as ChatRequest
    const user = last.messages.find((message) => message.role === "user") as Message
    expect(messageText(user)).toBe("please read the notes")
    expect(messageText(toolMessages(last)[0] as Message)).toMatch(/^<path>.*notes\.txt<\/path>/)
    const tags = readTags(sandbox.databaseFile)
    expect(tags.map((tag) => [tag.tag, tag.kind, tag.tool])).toEqual([
      [1, "message", null],
      [2, "tool", "read"],
      // The final answer, stored when the turn ended.
      [3, "message", null],
    ])
    expect(storedPart(sandbox.databaseFile, 2).content.state?.output).toContain("FILE-NOTES-END")
  })

  it("measures the usable window as OpenCode does for a model with an input limit", () => {
    expectExitOk(run)
    const passes = readPasses(sandbox.databaseFile)
    expect(passes.map((pass) => pass.window_tokens)).toEqual([45_904, 45_904])
  })
})

describe("OpenCode's own compaction with magic-context in the real OpenCode", () => {
  // OpenCode keeps the newest user turn verbatim (tail_turns 1) and summarizes the first.
  const env = { OPENCODE_CONFIG_CONTENT: JSON.stringify({ compaction: { auto: true, prune: false, tail_turns: 1 } }) }
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let first: RunResult
  let second: RunResult

  beforeAll(async () => {
    let project = ""
    const read = (label: string, promptTokens: number): MockReply => ({
      kind: "tool",
      name: "read",
      args: { filePath: join(project, `${label}.txt`) },
      promptTokens,
    })
    mock = await startMockModelServer((request) => {
      if (isTitleRequest(request)) return { kind: "text", text: "Compaction session" }
      if (isCompactionRequest(request)) return { kind: "text", text: "## Objective\n- SUMMARY-MARKER read the files" }
      const user = lastUserText(request)
      const results = toolMessages(request).map(messageText).join("\n")
      // OpenCode's synthetic continuation after an automatic compaction.
      if (user.startsWith("Continue if you have next steps")) return { kind: "text", text: "AFTER-COMPACTION-DONE" }
      if (user.includes("second turn")) {
        if (!results.includes("FILE-B-BEGIN")) return read("b", 20_000)
        // Reported over OpenCode's overflow point (100,000 - 4,096) on a tool call: it compacts before its next step.
        // (magic-context takes the report as the truth too, so its first pass after the compaction is an emergency.)
        if (!results.includes("FILE-C-BEGIN")) return read("c", 99_000)
        return { kind: "text", text: "SECOND-DONE", promptTokens: 20_000 }
      }
      if (!results.includes("FILE-A-BEGIN")) return read("a", 18_000)
      return { kind: "text", text: "FIRST-DONE", promptTokens: 20_000 }
    })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files: { "a.txt": fixtureText("A", 3_000), "b.txt": fixtureText("B", 3_000), "c.txt": fixtureText("C", 3_000) },
    })
    project = sandbox.project
    first = await sandbox.run(["run", ...RUN_LOGS, "please", "read", "the", "notes"], { env })
    second = await sandbox.run(["run", "--continue", ...RUN_LOGS, "second", "turn"], { env })
  })

  afterAll(async () => {
    keepRequests(sandbox.root, mock)
    await mock.close()
    sandbox.cleanup()
  })

  it("completes, records a compaction pass and adds the user's words to the summary prompt", () => {
    expectExitOk(first)
    expect(first.stdout).toContain("FIRST-DONE")
    expectExitOk(second)
    expect(second.stdout).toContain("AFTER-COMPACTION-DONE")
    const compactions = mock.requests.map((request) => request.body).filter(isCompactionRequest)
    expect(compactions).toHaveLength(1)
    const compaction = compactions[0] as ChatRequest
    const prompt = compaction.messages.filter((message) => message.role === "user").map(messageText).join("\n")
    expect(prompt).toContain(
      [
        "magic-context (the session's raw transcript is kept in full outside this summary):",
        "Keep these user instructions and constraints verbatim in the summary, newest last:",
        "- please read the notes",
        "- second turn",
      ].join("\n"),
    )
    // The summarizer read the head (the first turn) as magic-context rendered it.
    expect(prompt).toContain("[User]: §1§ please read the notes")
    const passes = readPasses(sandbox.databaseFile)
    expect(passes.filter((pass) => pass.trigger === "compaction")).toHaveLength(1)
    // The summary OpenCode stored: agent compaction, from that request.
    const summaries = queryStore<{ agent: string; summary: number }>(
      sandbox.databaseFile,
      "SELECT json_extract(info_json, '$.agent') AS agent, json_extract(info_json, '$.summary') AS summary " +
        "FROM messages WHERE json_extract(info_json, '$.summary') IS NOT NULL",
    )
    expect(summaries).toEqual([{ agent: "compaction", summary: 1 }])
    expect(readErrors(sandbox.databaseFile)).toEqual([])
  })

  it("keeps the tags of surviving messages and gives new material new, larger numbers", () => {
    const requests = mainRequests(mock)
    const tags = readTags(sandbox.databaseFile)
    // Gap-free, each number once, each part once.
    expect(tags.map((tag) => tag.tag)).toEqual(tags.map((_, index) => index + 1))
    expect(new Set(tags.map((tag) => tag.part_id)).size).toBe(tags.length)
    const summarized = (request: ChatRequest): boolean =>
      request.messages.some((message) => messageText(message).includes("SUMMARY-MARKER"))
    const before = requests.filter((request) => !summarized(request))
    const after = requests.filter(summarized)
    expect(after.length).toBeGreaterThan(0)
    // What each tagged message was called before the compaction, by its content.
    const seen = new Map<string, number>()
    for (const request of before) {
      for (const message of request.messages) {
        const tag = renderedTag(messageText(message))
        if (tag !== null) seen.set(identity(message), tag)
      }
    }
    const highestBefore = Math.max(...seen.values())
    const survivors: string[] = []
    const fresh: string[] = []
    for (const message of (after[0] as ChatRequest).messages) {
      const tag = renderedTag(messageText(message))
      if (tag === null) continue
      const known = seen.get(identity(message))
      if (known !== undefined) {
        expect(tag, identity(message)).toBe(known)
        survivors.push(identity(message))
      } else {
        expect(tag, identity(message)).toBeGreaterThan(highestBefore)
        fresh.push(identity(message))
      }
    }
    // The newest turn survived (the user's message and the read the model already saw); the summary, the new read
    // and OpenCode's continuation are new.
    expect(survivors).toEqual(["user:second turn", `tool:${callIdOf(before.at(-1) as ChatRequest, "FILE-B-BEGIN")}`])
    expect(fresh).toHaveLength(3)
  })
})

/** The tag a rendered message carries: its `§N§ ` prefix, or the tag named by its dropped marker. */
function renderedTag(text: string): number | null {
  const dropped = /^\[dropped §(\d+)§ /.exec(text)
  return dropped ? Number(dropped[1]) : prefixTag(text)
}

/** A stable identity for a message across requests: a tool result by its call id, other messages by text. */
function identity(message: Message): string {
  if (message.role === "tool") return `tool:${message.tool_call_id}`
  return `${message.role}:${messageText(message).replace(/^§\d+§ /, "")}`
}
