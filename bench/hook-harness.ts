import type { Hooks } from "@opencode-ai/plugin"
import { defaultConfig } from "../src/config/schema.js"
import { createErrorLog } from "../src/host/error-log.js"
import { createHooks } from "../src/plugin/hooks.js"
import { createHostRuntime, type HostRuntime } from "../src/host/host-runtime.js"
import type { SessionState } from "../src/session/session-state.js"
import type { HostMessage } from "../src/transcript/host-message.js"
import { asOpenCodeMessages } from "../test/helpers/host-messages.js"

/** The model the synthetic sessions name (bench/synthetic-session.ts). */
const MODEL = { providerID: "anthropic", modelID: "claude-sonnet-4-5" }
const OUTPUT_TOKENS = 4_096

/**
 * The plugin's real hooks, as OpenCode builds them (`createPlugin` without the SDK client): the transform hook
 * under measurement is `experimental.chat.messages.transform`, the window comes from `chat.params` the way the host
 * reports a model's limits. A hook that fails open would look fast: every call checks that nothing was recorded in
 * the error log, and throws if something was.
 */
export type HookHarness = {
  /** One transform call on `messages` (the hook edits them in place). */
  transform(messages: HostMessage[]): Promise<void>
  /**
   * The events OpenCode sends while a step runs, before the next transform call: `message.part.updated` for every part
   * of `messages` (new messages, as a fresh copy: the host's events carry objects of their own). Returns how long the
   * hooks took, in ms.
   */
  partsUpdated(messages: readonly HostMessage[]): Promise<number>
  /**
   * Turns of the event loop after a call, as the host's request and the model's reply give them, until what the hook
   * left to do once it returned (storing the compartments its pass cut, in slices) is done. Returns how long, in ms.
   */
  afterCall(): Promise<number>
  /** Tells the hooks the model's context window, so the usable window is `usableTokens`. */
  useWindow(usableTokens: number): Promise<void>
  /** The session's state as the runtime holds it (to queue drops the way ctx_reduce does). */
  state(): Promise<SessionState>
  runtime: HostRuntime
  dispose(): Promise<void>
}

export function hookHarness(options: { dbFile: string; sessionID: string }): HookHarness {
  const base = defaultConfig()
  const errors = createErrorLog({ now: () => Date.now(), hostLog: () => undefined })
  const runtime = createHostRuntime({
    config: { ...base, database: { ...base.database, path: options.dbFile } },
    configDiagnostics: [],
    errors,
    faults: new Set(),
    env: {},
    now: () => Date.now(),
  })
  const hooks: Hooks = createHooks({
    runtime,
    projectId: "bench",
    directory: "/repo",
    loadProviderLimits: () => Promise.resolve(),
    historian: { schedule: () => Promise.resolve(), isHistorianSession: () => false, forget: () => undefined },
    listMessages: () => Promise.resolve([]),
  })
  const failIfRecorded = (hook: string): void => {
    const recorded = errors.recent()
    if (recorded.length > 0) throw new Error(`${hook} recorded an internal error: ${recorded[0]?.message}`)
  }
  return {
    runtime,
    async transform(messages) {
      const hook = hooks["experimental.chat.messages.transform"]
      if (!hook) throw new Error("the plugin has no transform hook")
      await hook({}, { messages: asOpenCodeMessages(messages) })
      failIfRecorded("transform")
    },
    async partsUpdated(messages) {
      const hook = hooks.event
      if (!hook) throw new Error("the plugin has no event hook")
      const started = performance.now()
      for (const message of messages) {
        for (const part of message.parts) await hook({ event: { type: "message.part.updated", properties: { part } } as unknown as Parameters<typeof hook>[0]["event"] })
      }
      const ms = performance.now() - started
      failIfRecorded("message.part.updated")
      return ms
    },
    async afterCall() {
      const started = performance.now()
      do await new Promise((resolve) => setTimeout(resolve, 0))
      while ([...(await runtime.sessions()).sessions()].some((session) => session.planner?.owesCuts() === true))
      failIfRecorded("after the call")
      return performance.now() - started
    },
    async useWindow(usableTokens) {
      const hook = hooks["chat.params"]
      if (!hook) throw new Error("the plugin has no chat.params hook")
      const model = { providerID: MODEL.providerID, id: MODEL.modelID, limit: { context: usableTokens + OUTPUT_TOKENS, output: OUTPUT_TOKENS } }
      await hook({ sessionID: options.sessionID, model } as unknown as Parameters<typeof hook>[0], { options: {} } as unknown as Parameters<typeof hook>[1])
      failIfRecorded("chat.params")
    },
    async state() {
      const registry = await runtime.sessions()
      return registry.stateFor({ id: options.sessionID, source: "opencode", projectId: "bench", directory: "/repo", title: null }, runtime.counterFor(null))
    },
    async dispose() {
      await hooks.dispose?.()
    },
  }
}
