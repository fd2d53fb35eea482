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
 * Whether hooks may use the store now. After a failure they get the same failure at once, without touching the store
 * (a hook passes the messages through without waiting), until a backoff has passed: 1 s, doubling per consecutive
 * failure up to 30 s, or up to 5 s when the store was busy. A success starts the backoff over.
 */
export type StoreGate = {
  /** The failure to answer with while the store is skipped; null when it may be tried. */
  blocking(now: number): unknown | null
  fail(error: unknown, now: number): void
  succeed(): void
  /** The last failure, or null when the store worked last (or was never tried). */
  failure(): StoreFailure | null
}

/** Creates a gate with no failure. */
export function createStoreGate(): StoreGate {
  let current: StoreFailure | null = null
  return {
    blocking: (now) => (current !== null && now < current.retryAt ? current.error : null),
    fail(error, now) {
      if (current?.error === error) return
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
