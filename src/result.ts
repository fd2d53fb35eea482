/** The outcome of an expected failure at a trust boundary (config, transcripts, model output). */
export type Result<T, E = string> = { ok: true; value: T } | { ok: false; error: E }

/** Wraps a value as a success. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value }
}

/** Wraps an error as a failure. */
export function fail<E>(error: E): { ok: false; error: E } {
  return { ok: false, error }
}
