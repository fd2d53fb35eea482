import { defaultConfig, type Config } from "../../src/config/schema.js"
import { callContextTool } from "../../src/host/context-tool.js"
import { createDeferredWrites } from "../../src/host/deferred-writes.js"
import { createErrorLog } from "../../src/host/error-log.js"
import { createHostGuard } from "../../src/host/host-guard.js"
import { createHostPass } from "../../src/host/host-pass.js"
import { createHostRuntime, type HostRuntime } from "../../src/host/host-runtime.js"
import { REDUCE_CALL } from "../../src/host/reduce-call.js"
import type { PassResult } from "../../src/pass/run-pass.js"
import { applyRenderedEdits } from "../../src/session/apply-edits.js"
import type { SessionInfo } from "../../src/store/session-repository.js"
import type { HostMessage, HostPart } from "../../src/transcript/host-message.js"

/**
 * A third host in miniature: a chat whose lines are its own shape. Wiring it to magic-context takes what every host
 * adapter takes and nothing more: translation (lines to host messages and back) and event wiring (a pass before each
 * model call, the reduce tool as the host's own tool), around `createHostPass` and the one guard.
 */

/** A line of the fake host's chat: a person's words, or the agent's, with the output of a tool it ran. */
export type ChatLine = { id: string; speaker: "person" | "agent"; words: string; at: number; ran?: { tool: string; output: string } }

export type FakeHost = {
  runtime: HostRuntime
  /** The event before a model call: the lines the model gets (the host's own when magic-context fails). */
  beforeModelCall(sessionId: string, lines: readonly ChatLine[]): Promise<ChatLine[]>
  /** The agent calls ctx_reduce (a tool the host registered). */
  reduce(sessionId: string, drop: string): Promise<string>
  /** Sessions whose rows wait for the store (the host pass deferred them). */
  waiting(): number
  /** The last pass's result, as the host pass returned it. */
  lastResult(): PassResult | null
  dispose(): void
}

const MODEL = { providerID: "fake", modelID: "fake-model" }

/** The fake host with its store at `dbFile`; `window` is the model's context window the host tells. */
export function createFakeHost(options: { dbFile: string; window: number; busyTimeoutMs?: number }): FakeHost {
  const defaults = defaultConfig()
  const config: Config = { ...defaults, database: { ...defaults.database, path: options.dbFile, busy_timeout_ms: options.busyTimeoutMs ?? defaults.database.busy_timeout_ms } }
  const errors = createErrorLog({ now: () => Date.now(), hostLog: () => undefined })
  const runtime = createHostRuntime({ config, configDiagnostics: [], errors, faults: new Set(), env: {}, now: () => Date.now() })
  // A shipped host names itself in `SessionSource` (a migration widens the stored CHECK); the double borrows Pi's.
  const sessionInfo = (id: string): SessionInfo => ({ id, source: "pi", projectId: null, directory: null, title: null })
  const writes = createDeferredWrites({ runtime, sessionInfo })
  const guard = createHostGuard({ runtime, writes })
  const hostPass = createHostPass({ runtime, writes, guard, settleHook: "fake.pass.settle" })
  let last: PassResult | null = null

  return {
    runtime,
    async beforeModelCall(sessionId, lines) {
      const answer = await guard("fake.before-model-call", sessionId, async () => {
        const messages = lines.map((line) => hostMessageOf(sessionId, line))
        const edited = [...messages]
        last = await hostPass.run({
          info: sessionInfo(sessionId),
          messages,
          counter: runtime.counterFor(MODEL),
          describe: () => ({
            trigger: "transform",
            model: { ...MODEL, hostLimits: { context: options.window, output: 1_000 }, hostApi: null },
            tagsVisible: true,
            loopThinkingRequired: false,
          }),
          apply: (result) => applyRenderedEdits(edited, result.rendered, result.edits),
        })
        return edited.map(chatLineOf)
      })
      return answer ?? [...lines]
    },
    reduce: (sessionId, drop) => callContextTool(REDUCE_CALL, runtime, sessionInfo(sessionId), { drop }),
    waiting: () => writes.waiting(),
    lastResult: () => last,
    dispose() {
      writes.close()
      runtime.dispose()
    },
  }
}

/** Translation in: a chat line as a host message (the agent's tool run as a completed tool part). */
function hostMessageOf(sessionID: string, line: ChatLine): HostMessage {
  const owner = { sessionID, messageID: line.id }
  const words: HostPart = { ...owner, id: `${line.id}-words`, type: "text", text: line.words }
  if (line.speaker === "person") {
    return { info: { id: line.id, sessionID, role: "user", time: { created: line.at }, agent: "build", model: MODEL }, parts: [words] }
  }
  const parts: HostPart[] = [words]
  if (line.ran) {
    const { tool, output } = line.ran
    parts.push({ ...owner, id: `${line.id}-ran`, type: "tool", callID: `${line.id}-call`, tool, state: { status: "completed", input: {}, output, title: tool, metadata: {}, time: { start: line.at, end: line.at } } })
  }
  return {
    info: {
      id: line.id,
      sessionID,
      role: "assistant",
      time: { created: line.at, completed: line.at },
      parentID: "",
      ...MODEL,
      mode: "build",
      path: { cwd: "/", root: "/" },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    },
    parts,
  }
}

/** Translation out: a host message, as the pass left it, back as a chat line. */
function chatLineOf(message: HostMessage): ChatLine {
  const words = message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n")
  const speaker = message.info.role === "user" ? "person" : "agent"
  const line: ChatLine = { id: message.info.id, speaker, words, at: message.info.time.created }
  for (const part of message.parts) {
    if (part.type !== "tool") continue
    const output = part.state.status === "completed" ? part.state.output : part.state.status === "error" ? part.state.error : ""
    line.ran = { tool: part.tool, output }
  }
  return line
}
