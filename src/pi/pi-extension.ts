import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent"
import { callContextTool } from "../host/context-tool.js"
import { createDeferredWrites } from "../host/deferred-writes.js"
import { EXPAND_CALL } from "../host/expand-call.js"
import type { HostRuntime } from "../host/host-runtime.js"
import { maybeFail } from "../host/fault-injection.js"
import { createHostGuard } from "../host/host-guard.js"
import { createHostPass } from "../host/host-pass.js"
import { startHostRuntime } from "../host/start-host-runtime.js"
import { PIN_CALL } from "../host/pin-call.js"
import { REDUCE_CALL } from "../host/reduce-call.js"
import { REDUCE_GUIDANCE } from "../reduce/agent-texts.js"
import { statusReport } from "../host/status-report.js"
import { applyRenderedEdits } from "../session/apply-edits.js"
import { piCompaction } from "../status/status-data.js"
import type { SessionInfo } from "../store/session-repository.js"
import { isStatusReport, PI_STATUS_TYPE } from "../transcript/importers/pi-sent-as-user.js"
import { stripTagEchoes } from "../transcript/tag-format.js"
import { readPiContext, type PiMessage } from "./pi-messages.js"
import { readPiCompactionSetting } from "./pi-settings.js"

const PI_STATUS_COMMAND = "ctx-status"
const CONTEXT_TOOLS = [REDUCE_CALL, EXPAND_CALL, PIN_CALL]

/**
 * magic-context as a Pi extension: the same engine and store as the OpenCode plugin, wired to Pi's events. The
 * pass runs in `context` (before every model call) on Pi's messages read as host messages and written back
 * (`pi-messages.ts`); the context tools are Pi tools; `/ctx-status` shows the report as a message the model never
 * gets; the reduce guidance joins the system prompt at `before_agent_start`; a reply that copies `§N§` tags is
 * cleaned at `message_end`; the run's final reply is stored at `agent_end`. Every handler fails open: an internal
 * error is recorded (where /ctx-status shows it) and Pi goes on with its own messages.
 */
export function registerMagicContext(
  pi: ExtensionAPI,
  options: {
    env?: Record<string, string | undefined>
    cwd?: string
    /** Problems with how the extension is set up (a second copy loaded), shown by /ctx-status with the config's. */
    setupProblems?: () => readonly string[]
  } = {},
): HostRuntime {
  const env = options.env ?? process.env
  const cwd = options.cwd ?? process.cwd()
  const warn = (message: string): void => void process.stderr.write(`magic-context: ${message}\n`)
  const runtime = startHostRuntime({ directory: cwd, worktree: cwd, env, announce: (_level, message) => warn(message), logError: warn })
  if (!runtime.config.enabled) return runtime
  const sessionInfo = (id: string, ctx?: ExtensionContext): SessionInfo => ({
    id,
    source: "pi",
    projectId: null,
    directory: ctx?.cwd ?? cwd,
    title: ctx?.sessionManager.getSessionName() ?? null,
  })
  const writes = createDeferredWrites({ runtime, sessionInfo: (id) => sessionInfo(id) })
  /** Unknown message roles already recorded, so each is recorded once per process. */
  const unknownRoles = new Set<string>()
  /** Pi's own compactions per session in this process (shown by /ctx-status). */
  const compactions = new Map<string, number>()

  const guard = createHostGuard({ runtime, writes })
  const hostPass = createHostPass({ runtime, writes, guard, settleHook: "pi.pass.settle" })

  const contextPass = async (all: PiMessage[], ctx: ExtensionContext): Promise<PiMessage[] | undefined> => {
    const sessionId = ctx.sessionManager.getSessionId()
    // Status reports are for the user: the model never gets them.
    const messages = all.filter((message) => !isStatusReport(message))
    const context = readPiContext(sessionId, messages)
    for (const role of context.unknownRoles) {
      if (unknownRoles.has(role)) continue
      unknownRoles.add(role)
      runtime.errors.record({ hook: "pi.context", sessionId, error: new Error(`a Pi message of unknown role "${role}" passed through untouched (magic-context does not read it)`) })
    }
    const model = ctx.model
    const providerID = model?.provider ?? "unknown"
    const modelID = model?.id ?? "unknown"
    const edited = [...context.messages]
    await hostPass.run({
      info: sessionInfo(sessionId, ctx),
      messages: context.messages,
      counter: runtime.counterFor({ providerID, modelID }),
      describe: () => {
        // Every model the session ran is resolved by its API (a message's rule is its model's): remember this one's.
        if (model?.api) runtime.facts.rememberApi(providerID, modelID, model.api)
        return {
          trigger: "transform",
          model: { providerID, modelID, hostLimits: model ? { context: model.contextWindow, output: model.maxTokens } : null, hostApi: model?.api ?? null },
          tagsVisible: pi.getActiveTools().includes(REDUCE_CALL.name),
          replyCreated: "after-pass",
          // Pi's extensions are not told how a request thinks; Pi asks Claude for budgeted (manual) thinking on every
          // model it does not know as adaptive, under which a tool loop's last message must start with its block.
          loopThinkingRequired: true,
        }
      },
      apply: (result) => applyRenderedEdits(edited, result.rendered, result.edits),
    })
    return context.rebuild(edited)
  }

  pi.on("context", async (event, ctx) => {
    const messages = await guard("pi.context", ctx.sessionManager.getSessionId(), () => contextPass(event.messages, ctx))
    return messages ? { messages } : undefined
  })

  pi.on("before_agent_start", async (event, ctx) => {
    const sessionId = ctx.sessionManager.getSessionId()
    const result = await guard("pi.before_agent_start", sessionId, () => {
      const model = ctx.model
      const counter = runtime.counterFor(model ? { providerID: model.provider, modelID: model.id } : null)
      const active = new Set(pi.getActiveTools())
      for (const tool of pi.getAllTools()) {
        if (active.has(tool.name)) runtime.facts.rememberToolDefinition(tool.name, `${tool.name} ${tool.description} ${JSON.stringify(tool.parameters ?? {})}`, counter)
      }
      if (!active.has(REDUCE_CALL.name)) {
        runtime.facts.rememberSystem(sessionId, [event.systemPrompt], counter)
        return undefined
      }
      const systemPrompt = `${event.systemPrompt}\n\n${REDUCE_GUIDANCE}`
      runtime.facts.rememberSystem(sessionId, [systemPrompt], counter)
      return { systemPrompt }
    })
    return result ?? undefined
  })

  pi.on("message_end", async (event, ctx) => {
    const message = event.message
    if (message.role !== "assistant") return undefined
    const cleaned = await guard("pi.message_end", ctx.sessionManager.getSessionId(), () => {
      maybeFail(runtime.faults, "text")
      let changed = false
      const content = message.content.map((block) => {
        if (block.type !== "text") return block
        const text = stripTagEchoes(block.text)
        if (text === block.text) return block
        changed = true
        return { ...block, text }
      })
      return changed ? { message: { ...message, content } } : undefined
    })
    return cleaned ?? undefined
  })

  for (const tool of CONTEXT_TOOLS) {
    pi.registerTool({
      name: tool.name,
      label: tool.name,
      description: tool.description,
      // Plain JSON Schema: the call parses and validates its one string argument itself.
      parameters: { type: "object", properties: { [tool.argument.name]: { type: "string", description: tool.argument.description } }, required: [tool.argument.name] } as never,
      async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
        const text = await callContextTool(tool, runtime, sessionInfo(ctx.sessionManager.getSessionId(), ctx), params)
        return { content: [{ type: "text", text }], details: {} }
      },
    })
  }

  pi.registerCommand(PI_STATUS_COMMAND, {
    description: "magic-context: where this session's context goes (usage, breakdown, drops, history, errors)",
    handler: async (_args, ctx) => {
      const sessionId = ctx.sessionManager.getSessionId()
      await guard("pi.ctx-status", sessionId, async () => {
        const report = await statusReport({
          runtime,
          sessionId,
          waitingSessions: writes.waiting(),
          now: runtime.now(),
          hostCompaction: piCompaction({ ...readPiCompactionSetting({ cwd: ctx.cwd, env }), compacted: compactions.get(sessionId) ?? 0 }),
          setupProblems: options.setupProblems?.() ?? [],
        })
        if (!ctx.hasUI) process.stdout.write(`${report}\n`)
        pi.sendMessage({ customType: PI_STATUS_TYPE, content: report, display: true, details: {} })
      })
    },
  })

  // Pi summarized the session itself: the next pass sees the summary (as user text Pi sends) and the messages it kept.
  pi.on("session_compact", (_event, ctx) => {
    const sessionId = ctx.sessionManager.getSessionId()
    compactions.set(sessionId, (compactions.get(sessionId) ?? 0) + 1)
  })

  // The run's final reply is in no pass (the next one would be the first to see it): store it when the run ends.
  pi.on("agent_end", async (_event, ctx) => {
    const sessionId = ctx.sessionManager.getSessionId()
    await guard("pi.agent_end", sessionId, async () => {
      if (!runtime.lastPass.has(sessionId) && !writes.waitingFor(sessionId)) return
      const branch = ctx.sessionManager.getBranch().flatMap((entry) => (entry.type === "message" ? [entry.message] : []))
      await writes.write(sessionId, readPiContext(sessionId, branch).messages)
    })
  })

  pi.on("session_shutdown", async () => {
    await writes.flush().catch(() => undefined)
    writes.close()
    runtime.dispose()
  })
  return runtime
}
