import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { probeTally } from "../../faults/probe-tally.js"
import {
  isTitleRequest,
  messageText,
  startMockModelServer,
  type ChatRequest,
  type MockModelServer,
} from "../harness/mock-model-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox } from "../harness/opencode-harness.js"
import { startOpenCodeServer, type OpenCodeServer } from "../harness/opencode-serve.js"
import { createSession, timedPrompt, type TimedTurn } from "../harness/serve-session.js"
import { openStoreReadOnly } from "../harness/store-reader.js"

/** ~1 MB of one repeated character: the worst case for BPE (one pre-token), which once stopped the plugin. */
const PASTE = "=".repeat(1_000_000)
/** How much longer the paste's turn may take with the plugin than without it. */
const ALLOWED_EXTRA_MS = 1_000

type Measured = { server: OpenCodeServer; sandbox: OpenCodeSandbox; mock: MockModelServer; warm: TimedTurn; paste: TimedTurn; sessionId: string }

/** A server with (or without) the plugin: a warm-up turn, then the paste in a session of its own. */
async function measure(withPlugin: boolean): Promise<Measured> {
  const mock = await startMockModelServer((request) => {
    if (isTitleRequest(request)) return { kind: "text", text: "Paste" }
    const newest = request.messages.at(-1)
    return { kind: "text", text: newest && messageText(newest).includes("warm up") ? "WARM-DONE" : "PASTE-DONE" }
  })
  const sandbox = createOpenCodeSandbox({ mockUrl: mock.url, ...(withPlugin ? {} : { pluginEntry: null }) })
  const server = await startOpenCodeServer(sandbox)
  const warm = await timedPrompt(server, await createSession(server, "warm"), "warm up")
  const sessionId = await createSession(server, "paste")
  const paste = await timedPrompt(server, sessionId, PASTE)
  return { server, sandbox, mock, warm, paste, sessionId }
}

describe("a ~1 MB paste without whitespace in the real OpenCode", () => {
  let without: Measured
  let withPlugin: Measured
  // One try: the turn within 1 s, the paste tagged to the model, the raw message stored.
  const tally = probeTally("1 MB paste without whitespace (opencode serve)")
  const held = { fast: false, tagged: false, stored: false }

  beforeAll(async () => {
    without = await measure(false)
    withPlugin = await measure(true)
  }, 240_000)

  afterAll(async () => {
    tally.tried()
    if (held.fast && held.tagged && held.stored) tally.survived()
    if (!held.stored) tally.lost()
    tally.record()
    for (const measured of [without, withPlugin]) {
      if (!measured) continue
      await measured.server.stop()
      await measured.mock.close()
      measured.sandbox.cleanup()
    }
  })

  it("completes the turn within 1 s of the same turn without magic-context", () => {
    expect(withPlugin.warm.text).toBe("WARM-DONE")
    expect(without.paste.text).toBe("PASTE-DONE")
    expect(withPlugin.paste.text).toBe("PASTE-DONE")
    const extra = withPlugin.paste.durationMs - without.paste.durationMs
    console.info(
      `1 MB paste turn: ${Math.round(withPlugin.paste.durationMs)} ms with magic-context, ` +
        `${Math.round(without.paste.durationMs)} ms without (the first, short turn: ${Math.round(withPlugin.warm.durationMs)} ms with, ` +
        `${Math.round(without.warm.durationMs)} ms without)`,
    )
    expect(extra).toBeLessThan(ALLOWED_EXTRA_MS)
    held.fast = true
  })

  it("sends the paste tagged, whole, to the model", () => {
    const requests = withPlugin.mock.requests.map((request) => request.body).filter((body) => !isTitleRequest(body))
    const pasted = requests.filter((body: ChatRequest) => body.messages.some((message) => messageText(message).includes("=====")))
    expect(pasted).toHaveLength(1)
    const user = (pasted[0] as ChatRequest).messages.filter((message) => message.role === "user").map(messageText)
    expect(user).toEqual([`§1§ ${PASTE}`])
    held.tagged = true
  })

  it("stores the raw message, pristine, with its count", () => {
    const db = openStoreReadOnly(withPlugin.sandbox.databaseFile)
    try {
      const rows = db
        .prepare(
          "SELECT json_extract(p.content_json, '$.text') AS text, p.tokens, t.tag FROM parts p " +
            "JOIN messages m ON m.session_id = p.session_id AND m.id = p.message_id AND m.role = 'user' " +
            "LEFT JOIN tags t ON t.session_id = p.session_id AND t.part_id = p.id WHERE p.session_id = ?",
        )
        .all(withPlugin.sessionId) as { text: string; tokens: number; tag: number | null }[]
      expect(rows).toHaveLength(1)
      const [row] = rows as [{ text: string; tokens: number; tag: number | null }]
      // Compared as a boolean: a failure must not print 1 MB.
      expect(row.text === PASTE).toBe(true)
      expect(row.tag).toBe(1)
      expect(row.tokens).toBeGreaterThan(10_000)
      held.stored = true
      expect(db.prepare("SELECT hook, message FROM errors").all()).toEqual([])
    } finally {
      db.close()
    }
  })
})
