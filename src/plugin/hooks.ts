import type { Hooks } from "@opencode-ai/plugin"
import { hostModelLimits } from "../pressure/model-window.js"
import type { SessionInfo } from "../store/session-repository.js"
import { newestUserInfo, type HostMessage, type HostPart } from "../transcript/host-message.js"
import { stripTagEchoes } from "../transcript/tag-format.js"
import { applyEdits, applyRenderedEdits } from "../session/apply-edits.js"
import { compactionContext } from "./compaction-context.js"
import { HISTORIAN_SYSTEM_PROMPT } from "../historian/prompt.js"
import { HISTORIAN_AGENT, type ModelHistorian } from "./model-historian.js"
import {
  isStatusRequest,
  serverStatusCommandWanted,
  STATUS_COMMAND,
  STATUS_TEMPLATE,
  statusExchangeIds,
  statusReplyText,
  statusReportOf,
  statusRequestPart,
  statusRequestText,
} from "./status-command.js"
import { maybeFail } from "../host/fault-injection.js"
import type { HostRuntime } from "../host/host-runtime.js"
import { REDUCE_GUIDANCE } from "../reduce/agent-texts.js"
import { reduceToolAvailable } from "./tool-availability.js"
import { createDeferredWrites } from "../host/deferred-writes.js"
import { createExpandTool, createPinTool, createReduceTool } from "./context-tools.js"
import { hostMessages } from "./opencode-messages.js"
import { createHostGuard } from "../host/host-guard.js"
import { createHostPass } from "../host/host-pass.js"
import { REDUCE_TOOL } from "../reduce/agent-texts.js"
import { noteProviderError, rejectedSinceLastPass, thinkingType } from "./provider-events.js"
import { createPartsCountedAhead } from "./parts-counted-ahead.js"
import { deletedSessionId } from "./deleted-session.js"

export type HookContext = {
  runtime: HostRuntime
  projectId: string | null
  directory: string | null
  /** Fetches the host's model limits (the provider list) when no `chat.params` has told them yet. */
  loadProviderLimits: () => Promise<void>
  /** The model historian (does nothing unless `historian.strategy` is "model"). */
  historian: ModelHistorian
  /** The session's messages as OpenCode stores them (the plugin's SDK client), for storing a turn's final reply. */
  listMessages: (sessionId: string) => Promise<HostMessage[]>
  /** Problems with how the plugin is set up that the status report lists with the config's (a second copy loaded). */
  setupProblems?: () => readonly string[]
}

/** How long `dispose` waits for turn-end writes still running (OpenCode awaits it before the process exits). */
const DISPOSE_WAIT_MS = 2_000

const NO_STATUS_IDS: ReadonlySet<string> = new Set()

/**
 * The hooks magic-context registers. Every body runs inside `guard`: an internal error is recorded and the
 * host's data is left exactly as OpenCode passed it, so the plugin can never abort the user's turn.
 * This is the only module that writes into OpenCode's `output` objects.
 */
export function createHooks(context: HookContext): Hooks {
  const { runtime } = context
  /** Sessions whose next completed text is the reply to a /ctx-status request, with the report the reply shows. */
  const statusReplies = new Map<string, string>()
  /**
   * Sessions a full scan found free of /ctx-status exchanges, with no request since: a request always reaches the
   * transform first as its newest message (the command's own model call), which takes the session off this list, so
   * a transform of a listed session does not look through every message for one.
   */
  const statusFree = new Set<string>()
  const sessionInfo = (id: string): SessionInfo => ({
    id,
    source: "opencode",
    projectId: context.projectId,
    directory: context.directory,
    title: null,
  })
  const writes = createDeferredWrites({ runtime, sessionInfo })
  /** Turn-end writes still running; `dispose` lets them finish. */
  const inFlight = new Set<Promise<void>>()

  const guard = createHostGuard({ runtime, writes })
  const countedAhead = createPartsCountedAhead()
  const hostPass = createHostPass({
    runtime,
    writes,
    guard,
    settleHook: "pass.settle",
    // The main step's system prompt follows this transform (title and compaction requests have no main pass).
    afterRecord: (sessionId) => runtime.mainStepPending.add(sessionId),
    // Off the request path: the historian's tiers show at a later execute pass.
    afterSettle: (sessionId) => void context.historian.schedule(sessionId),
  })

  /** One pass over the session's messages, its edits applied in place (all or nothing). */
  const mainPass = async (
    sessionId: string,
    all: HostMessage[],
    messages: HostMessage[],
    statusIds: ReadonlySet<string>,
  ): Promise<void> => {
    const user = newestUserInfo(messages)
    const model = user?.model ?? null
    const counter = runtime.counterFor(model)
    countedAhead.passRan(sessionId, counter)
    await hostPass.run({
      info: sessionInfo(sessionId),
      messages,
      counter,
      describe: async () => {
        const compaction = runtime.compacting.delete(sessionId)
        const providerID = model?.providerID ?? "unknown"
        const modelID = model?.modelID ?? "unknown"
        if (!runtime.facts.limitsFor(providerID, modelID)) await context.loadProviderLimits()
        return {
          trigger: compaction ? "compaction" : "transform",
          model: { providerID, modelID, hostLimits: runtime.facts.limitsFor(providerID, modelID), hostApi: runtime.facts.apiFor(providerID, modelID) },
          tagsVisible: reduceToolAvailable({ hostConfig: runtime.facts.hostConfig, agent: user?.agent, promptTools: user?.tools }),
          loopThinkingRequired: runtime.facts.loopThinkingRequired(sessionId),
          withholdAllReasoning: (db) => rejectedSinceLastPass(runtime, db, sessionId),
        }
      },
      apply: (result) => {
        const removals = [...statusIds].map((messageId) => ({ type: "remove-message" as const, messageId }))
        applyRenderedEdits(all, result.rendered, result.edits, removals)
      },
    })
  }

  return {
    config: async (hostConfig) => {
      await guard("config", null, () => {
        runtime.facts.hostConfig = hostConfig
        if (serverStatusCommandWanted({ directory: context.directory, env: process.env })) {
          const commands = (hostConfig.command ??= {}) as Record<string, unknown>
          commands[STATUS_COMMAND] = {
            description: "magic-context: where this session's context goes (usage, breakdown, drops, history, errors)",
            template: STATUS_TEMPLATE,
          }
        }
        if (runtime.config.historian.strategy !== "model") return
        const agents = (hostConfig.agent ??= {}) as Record<string, unknown>
        agents[HISTORIAN_AGENT] = {
          mode: "subagent",
          hidden: true,
          description: "magic-context's historian: condenses episodes of a session into tiers. Not for direct use.",
          prompt: HISTORIAN_SYSTEM_PROMPT,
          permission: { "*": "deny" },
        }
      })
    },

    tool: runtime.config.enabled
      ? { [REDUCE_TOOL]: createReduceTool(runtime), ctx_expand: createExpandTool(runtime), ctx_pin: createPinTool(runtime) }
      : {},

    "tool.definition": async (input, output) => {
      await guard("tool.definition", null, () => {
        const text = `${input.toolID} ${output.description} ${JSON.stringify(output.parameters ?? {})}`
        runtime.facts.rememberToolDefinition(input.toolID, text, runtime.counterFor(null))
      })
    },

    "chat.params": async (input, output) => {
      await guard("chat.params", input.sessionID, () => {
        const limit = input.model.limit
        if (limit) runtime.facts.rememberLimits(input.model.providerID, input.model.id, hostModelLimits(limit))
        runtime.facts.rememberApi(input.model.providerID, input.model.id, input.model.api?.npm ?? "")
        // The title request mixes in a variant of its own: only the session's own steps say how it thinks.
        if (input.agent !== "title") runtime.facts.rememberThinking(input.sessionID, thinkingType(output.options))
      })
    },

    "command.execute.before": async (input, output) => {
      await guard("command.execute.before", input.sessionID, async () => {
        if (input.command !== STATUS_COMMAND) return
        const text = await statusRequestText({
          runtime,
          sessionId: input.sessionID,
          waitingSessions: writes.waiting(),
          now: runtime.now(),
          setupProblems: context.setupProblems?.() ?? [],
        })
        // Mutate in place: the host keeps its own reference to this array.
        output.parts.splice(0, output.parts.length, statusRequestPart(text) as (typeof output.parts)[number])
      })
    },

    "experimental.chat.messages.transform": async (_input, output) => {
      const all = hostMessages(output.messages)
      const sessionId = all[0]?.info.sessionID ?? null
      await guard("experimental.chat.messages.transform", sessionId, async () => {
        if (!sessionId || context.historian.isHistorianSession(sessionId)) return
        // /ctx-status: its own request carries nothing but the report; later prompts leave the exchange out.
        const newest = all[all.length - 1]
        if (newest && isStatusRequest(newest)) {
          statusFree.delete(sessionId)
          applyEdits(all, all.slice(0, -1).map((message) => ({ type: "remove-message" as const, messageId: message.info.id })))
          statusReplies.set(sessionId, statusReportOf(newest))
          return
        }
        const statusIds = statusFree.has(sessionId) ? NO_STATUS_IDS : statusExchangeIds(all)
        if (statusIds.size === 0) statusFree.add(sessionId)
        const messages = statusIds.size > 0 ? all.filter((message) => !statusIds.has(message.info.id)) : all
        await mainPass(sessionId, all, messages, statusIds)
      })
    },

    "experimental.chat.system.transform": async (input, output) => {
      const sessionId = input.sessionID ?? null
      await guard("experimental.chat.system.transform", sessionId, () => {
        if (!sessionId) return
        // Title and compaction requests also come through here, without a main pass before them: only the system
        // prompt of a main step is the session's fixed prompt, and only it gets the reduce guidance.
        if (!runtime.mainStepPending.delete(sessionId)) return
        const counter = runtime.counterFor({ providerID: input.model.providerID, modelID: input.model.id })
        runtime.facts.rememberSystem(sessionId, output.system, counter)
        if (runtime.lastPass.get(sessionId)?.tagsVisible) output.system.push(REDUCE_GUIDANCE)
      })
    },

    "experimental.text.complete": async (input, output) => {
      await guard("experimental.text.complete", input.sessionID, () => {
        // The historian's answer is data (its tiers may cite §N§ tags): its child sessions are left alone.
        if (context.historian.isHistorianSession(input.sessionID)) return
        // The reply to /ctx-status shows the report itself, tags included, whatever the model wrote.
        const report = statusReplies.get(input.sessionID)
        if (report !== undefined) {
          statusReplies.delete(input.sessionID)
          output.text = statusReplyText(report)
          return
        }
        const cleaned = stripTagEchoes(output.text)
        maybeFail(runtime.faults, "text")
        output.text = cleaned
      })
    },

    "experimental.session.compacting": async (input, output) => {
      await guard("experimental.session.compacting", input.sessionID, async () => {
        runtime.compacting.add(input.sessionID)
        const db = await runtime.database()
        const registry = await runtime.sessions()
        const state = registry.stateFor(sessionInfo(input.sessionID), runtime.counterFor(null))
        const extra = compactionContext({ db, state })
        if (extra) output.context.push(extra)
      })
    },

    event: async ({ event }) => {
      if (event.type === "message.part.updated") {
        // Read inside the guard: an event without its part is recorded, never thrown into the host.
        const part = event.properties.part as HostPart | undefined
        await guard("event", part?.sessionID ?? null, () => countedAhead.partUpdated(part as HostPart))
        return
      }
      if (event.type === "session.error") {
        await guard("event", event.properties.sessionID ?? null, () => noteProviderError(runtime, event.properties))
        return
      }
      if (event.type === "session.deleted") {
        const sessionId = deletedSessionId(event.properties)
        await guard("event", sessionId, async () => {
          if (sessionId === null) return
          // What the session still owes goes in first: a turn-end write under way, rows a busy store left waiting.
          await Promise.all([...inFlight])
          if (writes.waitingFor(sessionId)) await writes.flush()
          runtime.endSession(sessionId)
          statusReplies.delete(sessionId)
          statusFree.delete(sessionId)
          countedAhead.forget(sessionId)
          context.historian.forget(sessionId)
        })
        return
      }
      if (event.type !== "session.idle") return
      const sessionId = event.properties.sessionID
      const work = guard("event", sessionId, async () => {
        // Only sessions this process works on (a pass ran, or rows wait); never the historian's own.
        if (context.historian.isHistorianSession(sessionId)) return
        if (!runtime.lastPass.has(sessionId) && !writes.waitingFor(sessionId)) return
        // The turn's final reply is in no pass (the next pass would be the first to see it): store it now.
        const listed = await context.listMessages(sessionId)
        const statusIds = statusExchangeIds(listed)
        await writes.write(sessionId, listed.filter((message) => !statusIds.has(message.info.id)))
      })
      inFlight.add(work)
      await work
      inFlight.delete(work)
    },

    dispose: async () => {
      // OpenCode awaits this before `opencode run` exits: let a turn-end write finish, then try what still waits.
      const settled = Promise.all([...inFlight])
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, DISPOSE_WAIT_MS).unref?.())])
      await writes.flush().catch(() => undefined)
      writes.close()
      runtime.dispose()
    },
  }
}

