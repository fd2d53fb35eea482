import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import { PluginError } from "../plugin-error.js"
import type { HostMessage } from "../transcript/host-message.js"
import { hostModelLimits } from "../pressure/model-window.js"
import { createHooks } from "./hooks.js"
import { hostMessages } from "./opencode-messages.js"
import { createModelHistorian } from "./model-historian.js"
import type { HostRuntime } from "../host/host-runtime.js"
import { startHostRuntime } from "../host/start-host-runtime.js"
import { claimInstance } from "../host/instance-claim.js"

const SERVICE = "magic-context"

/**
 * Builds the plugin for one OpenCode instance: reads the config (reporting bad files or values through the host
 * log and a toast, then going on with defaults), and wires the hooks. Opens nothing until a hook needs it. A copy
 * of the plugin loaded a second time for the same project registers no hooks and says so in the log; the first
 * copy's `/ctx-status` names it (host/instance-claim.ts).
 */
export async function createPlugin(input: PluginInput): Promise<Hooks> {
  const env = process.env
  const hostLog = (level: "error" | "warn" | "info", message: string): void => {
    void Promise.resolve()
      .then(() => input.client.app.log({ body: { service: SERVICE, level, message } }))
      .catch(() => undefined)
  }
  const claim = claimInstance({ instance: input.directory ?? input.worktree ?? "(no directory)", module: import.meta.url })
  if (claim.kind === "inert") {
    hostLog("warn", claim.reason)
    return {}
  }
  /** The host log and a toast: how the user hears about their settings. */
  const announce = (level: "error" | "warn", message: string): void => {
    hostLog(level, message)
    void Promise.resolve()
      .then(() => input.client.tui.showToast({ body: { title: SERVICE, message, variant: level === "error" ? "error" : "warning" } }))
      .catch(() => undefined)
  }
  const runtime = startHostRuntime({
    directory: input.directory,
    worktree: input.worktree,
    env,
    announce,
    logError: (message) => hostLog("error", message),
  })
  let providersLoaded: Promise<void> | null = null
  const loadProviderLimits = (): Promise<void> => {
    providersLoaded ??= fetchProviderLimits(input, runtime).catch((error: unknown) => {
      runtime.errors.record({ hook: "config.providers", sessionId: null, error })
    })
    return providersLoaded
  }
  const historian = createModelHistorian({ runtime, client: input.client })
  const hooks = createHooks({
    runtime,
    projectId: input.project?.id ?? null,
    directory: input.directory ?? null,
    loadProviderLimits,
    historian,
    listMessages: (sessionId) => listSessionMessages(input, sessionId),
    setupProblems: claim.duplicateNotes,
  })
  const dispose = hooks.dispose
  return {
    ...hooks,
    dispose: async () => {
      try {
        await dispose?.()
      } finally {
        claim.release()
      }
    },
  }
}

/** The session's messages as OpenCode stores them, through the plugin's client (in-process in `opencode run`). */
async function listSessionMessages(input: PluginInput, sessionId: string): Promise<HostMessage[]> {
  const response = await input.client.session.messages({ path: { id: sessionId } })
  if (response.data) return hostMessages(response.data)
  const reason = JSON.stringify(response.error)
  throw new PluginError("host_request_failed", `OpenCode did not list the messages of ${sessionId}: ${reason}`)
}

/** How long the first pass waits for the host's provider list before falling back to the default window. */
const PROVIDERS_TIMEOUT_MS = 3_000

/** Reads every model's context and output limits from the host's provider list (once per instance). */
async function fetchProviderLimits(input: PluginInput, runtime: HostRuntime): Promise<void> {
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), PROVIDERS_TIMEOUT_MS))
  const response = await Promise.race([input.client.config.providers(), timeout])
  const providers = response?.data?.providers ?? []
  for (const provider of providers) {
    for (const [modelID, model] of Object.entries(provider.models ?? {})) {
      const limit = model.limit
      if (limit) runtime.facts.rememberLimits(provider.id, modelID, hostModelLimits(limit))
      runtime.facts.rememberApi(provider.id, modelID, model.api?.npm ?? "")
    }
  }
}
