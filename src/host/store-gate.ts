import { storeFailureKind, type StoreFailureKind } from "../store/store-failure.js"

/** After a store that cannot be opened or written, it is tried again after this long, doubling per failure. */
export const OPEN_RETRY_FIRST_MS = 1_000
export const OPEN_RETRY_MAX_MS = 30_000
/** A busy store (another process holds the lock) is retried sooner: locks are usually short. */
export const BUSY_RETRY_MAX_MS = 5_000

/** The store's last failure, while hooks skip it. */
export type StoreFailure = {
  error: unknown
  kind: StoreFailureKind
  /** When the first of the consecutive failures happened (epoch ms). */
  since: number
  /** When the store is tried again (epoch ms). */
  retryAt: number
  /** Consecutive failures so far. */
  failures: number
}

/**
 * How hooks may use the store now. After a failure comes a backoff: 1 s, doubling per consecutive failure up to 30 s,
 * or up to 5 s when the store was busy. During it a store that could not be opened or used is skipped (hooks get the
 * same failure at once and pass the messages through), and a busy store is tried without waiting for its lock (a
 * hook fails at once while the lock lasts, and works again as soon as it is gone). After it, a try waits as usual.
 * A failure during the backoff does not lengthen it; a success ends it.
 */
export type StoreGate = {
  /** The failure to answer with while the store is skipped; null when it may be tried. */
  blocking(now: number): unknown | null
  /** True while a busy store's backoff runs: tries must not wait for the lock. */
  noWait(now: number): boolean
  fail(error: unknown, now: number): void
  succeed(): void
  /** The last failure, or null when the store worked last (or was never tried). */
  failure(): StoreFailure | null
}

/** Creates a gate with no failure. */
export function createStoreGate(): StoreGate {
  let current: StoreFailure | null = null
  const inBackoff = (now: number): boolean => current !== null && now < current.retryAt
  return {
    blocking: (now) => (current !== null && current.kind !== "busy" && inBackoff(now) ? current.error : null),
    noWait: (now) => current?.kind === "busy" && inBackoff(now),
    fail(error, now) {
      if (current?.error === error) return
      // A try during the backoff (one that did not wait) keeps the backoff as it is.
      if (current !== null && inBackoff(now) && storeFailureKind(error) === current.kind) return
      const kind = storeFailureKind(error) ?? "unusable"
      const failures = (current?.failures ?? 0) + 1
      const cap = kind === "busy" ? BUSY_RETRY_MAX_MS : OPEN_RETRY_MAX_MS
      const delay = Math.min(cap, OPEN_RETRY_FIRST_MS * 2 ** (failures - 1))
      current = { error, kind, since: current?.since ?? now, retryAt: now + delay, failures }
    },
    succeed() {
      current = null
    },
    failure: () => current,
  }
}
