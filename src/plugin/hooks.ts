import type { Hooks } from "@opencode-ai/plugin"
import { runPass } from "../pass/run-pass.js"
import { systemClock } from "../pass/system-clock.js"
import type { HostMessage } from "../transcript/host-message.js"
import { stripTagEchoes } from "../transcript/tag-format.js"
import { applyEdits } from "./apply-edits.js"
import { maybeFail } from "./fault-injection.js"
import type { PluginRuntime } from "./plugin-runtime.js"

export type HookContext = {
  runtime: PluginRuntime
  projectId: string | null
  directory: string | null
}

/**
 * The hooks magic-context registers. Every body runs inside `guard`: an internal error is recorded and the
 * host's data is left exactly as OpenCode passed it, so the plugin can never abort the user's turn.
 * This is the only module that writes into OpenCode's `output` objects.
 */
export function createHooks(context: HookContext): Hooks {
  const { runtime } = context
  const compacting = new Set<string>()

  const guard = async (hook: string, sessionId: string | null, body: () => Promise<void> | void): Promise<void> => {
    if (!runtime.config.enabled) return
    try {
      await body()
    } catch (error) {
      runtime.errors.record({ hook, sessionId, error })
    }
  }

  return {
    "experimental.chat.messages.transform": async (_input, output) => {
      const messages = output.messages as HostMessage[]
      const sessionId = messages[0]?.info.sessionID ?? null
      await guard("experimental.chat.messages.transform", sessionId, async () => {
        if (!sessionId) return
        const counter = runtime.counterFor(lastUserModel(messages))
        const registry = await runtime.sessions()
        const state = registry.stateFor(
          { id: sessionId, source: "opencode", projectId: context.projectId, directory: context.directory, title: null },
          counter,
        )
        const trigger = compacting.delete(sessionId) ? "compaction" : "transform"
        const db = await runtime.database()
        const result = runPass({ db, state, messages, counter, clock: systemClock, trigger, tagsVisible: true })
        maybeFail(runtime.faults, "transform")
        applyEdits(messages, result.edits)
      })
    },

    "experimental.text.complete": async (input, output) => {
      await guard("experimental.text.complete", input.sessionID, () => {
        const cleaned = stripTagEchoes(output.text)
        maybeFail(runtime.faults, "text")
        output.text = cleaned
      })
    },

    "experimental.session.compacting": async (input) => {
      await guard("experimental.session.compacting", input.sessionID, () => {
        compacting.add(input.sessionID)
      })
    },

    dispose: async () => {
      runtime.dispose()
    },
  }
}

/** The model of the newest user message (OpenCode records the model a turn was asked of on the user message). */
function lastUserModel(messages: readonly HostMessage[]): { providerID: string; modelID: string } | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const info = messages[index]?.info
    if (info?.role === "user") return info.model
  }
  return null
}
