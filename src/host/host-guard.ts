import type { DeferredWrites } from "./deferred-writes.js"
import type { HostRuntime } from "./host-runtime.js"

/**
 * Runs a hook's body so that it never throws into the host: an internal error is recorded (where /ctx-status shows
 * it; the errors table gets it when the store is next usable) and the hook answers `undefined`, so the host goes on
 * with its own data unchanged. Nothing runs while the config switches magic-context off.
 */
export type HostGuard = <T>(hook: string, sessionId: string | null, body: () => Promise<T> | T) => Promise<T | undefined>

/** Creates the one guard of a host's hooks; `writes` retries the error rows the store could not take yet. */
export function createHostGuard(options: { runtime: HostRuntime; writes: DeferredWrites }): HostGuard {
  const { runtime, writes } = options
  return async (hook, sessionId, body) => {
    if (!runtime.config.enabled) return undefined
    try {
      return await body()
    } catch (error) {
      // In memory at once; the errors table gets it when the store is next usable (never waiting for a lock).
      runtime.errors.record({ hook, sessionId, error })
      runtime.storeFailed(error)
      if (runtime.errors.unsaved().length > 0) writes.retryLater()
      return undefined
    }
  }
}
