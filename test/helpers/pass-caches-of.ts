import { createPassCaches, type PassCaches } from "../../src/pass/pass-caches.js"
import type { SessionState } from "../../src/session/session-state.js"

const held = new WeakMap<SessionState, PassCaches>()

/** The caches a test's session state passes with, one value per state as a session holds them (`createSession`). */
export function passCachesOf(state: SessionState): PassCaches {
  const known = held.get(state)
  if (known) return known
  const caches = createPassCaches()
  held.set(state, caches)
  return caches
}
