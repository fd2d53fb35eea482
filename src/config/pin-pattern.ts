/**
 * How a `pins` entry reads: "/regex/flags" is a regular expression, anything else plain text matched
 * case-insensitively. A pattern written as a regular expression that does not compile is invalid (the config loader
 * refuses it with the compiler's message), never matched as text.
 */
export type PinPatternReading =
  | { kind: "regex"; regex: RegExp }
  | { kind: "text"; needle: string }
  | { kind: "invalid"; problem: string }

/** Reads one `pins` entry. */
export function readPinPattern(pattern: string): PinPatternReading {
  const written = /^\/(.+)\/([a-z]*)$/.exec(pattern)
  if (!written) return { kind: "text", needle: pattern.toLowerCase() }
  try {
    return { kind: "regex", regex: new RegExp(written[1] as string, written[2]) }
  } catch (error) {
    return { kind: "invalid", problem: error instanceof Error ? error.message : String(error) }
  }
}
