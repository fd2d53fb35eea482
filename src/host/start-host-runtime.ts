import { readConfigFiles } from "../config/read-config-files.js"
import { createErrorLog } from "./error-log.js"
import { injectedFaults } from "./fault-injection.js"
import { createHostRuntime, type HostRuntime } from "./host-runtime.js"

/**
 * The runtime for one host process, as both adapters start it: reads the config files of the project (and the
 * user's), tells the user about a bad file or value through `announce` (then goes on with defaults), sends internal
 * errors to the host's log, and turns on the faults the environment injects (tests only). Opens nothing.
 */
export function startHostRuntime(options: {
  directory: string | undefined
  worktree: string | undefined
  env: Record<string, string | undefined>
  /** How the user hears about their settings (a toast and the host log, or stderr). */
  announce: (level: "error" | "warn", message: string) => void
  /** Where internal errors go besides the store (the host's log). */
  logError: (message: string) => void
}): HostRuntime {
  const { env } = options
  const loaded = readConfigFiles({ directory: options.directory, worktree: options.worktree, env })
  for (const diagnostic of loaded.diagnostics) options.announce(diagnostic.severity === "error" ? "error" : "warn", diagnostic.message)
  const errors = createErrorLog({ now: () => Date.now(), hostLog: options.logError, directory: options.directory ?? null })
  return createHostRuntime({
    config: loaded.config,
    configDiagnostics: loaded.diagnostics,
    errors,
    faults: injectedFaults(env),
    env,
    now: () => Date.now(),
    warn: (message) => options.announce("warn", message),
  })
}
