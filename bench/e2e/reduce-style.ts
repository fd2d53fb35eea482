/**
 * How a cooperative bench agent calls ctx_reduce: `batched` in the same response as its next scripted tool call (a
 * read, a command), as the guidance and the reminders ask, so the call costs no model request of its own; `alone`
 * as a response of its own (the style before the guidance asked for batching), kept so both can be measured.
 * Chosen with BENCH_REDUCE=alone|batched; batched when unset.
 */
export type ReduceStyle = "alone" | "batched"

export const REDUCE_STYLE_VARIABLE = "BENCH_REDUCE"

/** The style an environment value names; a value that names none is a clear error, not a silent default. */
export function reduceStyleOf(value: string | undefined): ReduceStyle {
  if (value === undefined || value === "") return "batched"
  if (value === "alone" || value === "batched") return value
  throw new Error(`${REDUCE_STYLE_VARIABLE}=${JSON.stringify(value)}: expected "alone" or "batched"`)
}

/** The suffix of a results file for the style: none for the default. */
export function reduceStyleSuffix(style: ReduceStyle): string {
  return style === "batched" ? "" : `-reduce-${style}`
}
