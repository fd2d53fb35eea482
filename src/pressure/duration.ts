import { DURATION_PATTERN } from "../config/schema.js"

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/** Parses "5m", "90s", "1h", "250ms" (the config schema guarantees the form). */
export function parseDurationMs(text: string): number {
  if (!DURATION_PATTERN.test(text)) throw new Error(`not a duration: ${text}`)
  const match = /^(\d+)(ms|s|m|h)$/.exec(text) as RegExpExecArray
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number)
}
