import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import { readConfigFiles } from "../config/read-config-files.js"
import { createErrorLog } from "./error-log.js"
import { injectedFaults } from "./fault-injection.js"
import { createHooks } from "./hooks.js"
import { createPluginRuntime } from "./plugin-runtime.js"

const SERVICE = "magic-context"

/**
 * Builds the plugin for one OpenCode instance: reads the config (reporting bad files or values through the host
 * log and a toast, then going on with defaults), and wires the hooks. Opens nothing until a hook needs it.
 */
export async function createPlugin(input: PluginInput): Promise<Hooks> {
  const env = process.env
  const hostLog = (level: "error" | "warn" | "info", message: string): void => {
    void Promise.resolve()
      .then(() => input.client.app.log({ body: { service: SERVICE, level, message } }))
      .catch(() => undefined)
  }
  const loaded = readConfigFiles({ directory: input.directory, worktree: input.worktree, env })
  for (const diagnostic of loaded.diagnostics) {
    hostLog("error", diagnostic.message)
    void Promise.resolve()
      .then(() => input.client.tui.showToast({ body: { title: SERVICE, message: diagnostic.message, variant: "error" } }))
      .catch(() => undefined)
  }
  const errors = createErrorLog({ now: () => Date.now(), hostLog: (message) => hostLog("error", message) })
  const runtime = createPluginRuntime({
    config: loaded.config,
    configDiagnostics: loaded.diagnostics,
    errors,
    faults: injectedFaults(env),
    env,
    now: () => Date.now(),
  })
  return createHooks({ runtime, projectId: input.project?.id ?? null, directory: input.directory ?? null })
}
