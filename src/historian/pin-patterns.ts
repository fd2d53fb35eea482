import { readPinPattern } from "../config/pin-pattern.js"
import type { Fact } from "./fidelity-types.js"

/** A compiled pin pattern: "/regex/flags" or plain text (case-insensitive substring). */
export type PinPattern = (text: string) => boolean

/**
 * Compiles the config's pin patterns (`readPinPattern` says how one reads). A pattern that is not a valid regular
 * expression matches nothing and is reported; the config loader refuses such a pattern before it gets here.
 */
export function compilePinPatterns(patterns: readonly string[]): { matchers: PinPattern[]; problems: string[] } {
  const matchers: PinPattern[] = []
  const problems: string[] = []
  for (const pattern of patterns) {
    const reading = readPinPattern(pattern)
    if (reading.kind === "invalid") {
      problems.push(`pin pattern ${pattern} is not a valid regular expression (${reading.problem}); ignored`)
      continue
    }
    if (reading.kind === "text") {
      matchers.push((text) => text.toLowerCase().includes(reading.needle))
      continue
    }
    const { regex } = reading
    // A g or y flag makes test() resume at lastIndex: start over, so every text gets the same answer.
    matchers.push((text) => {
      regex.lastIndex = 0
      return regex.test(text)
    })
  }
  return { matchers, problems }
}

/** The facts with every fact a pattern matches raised to PIN (verbatim, floor exact). */
export function applyPinPatterns(facts: readonly Fact[], matchers: readonly PinPattern[]): Fact[] {
  if (matchers.length === 0) return [...facts]
  return facts.map((fact) =>
    fact.retention !== "PIN" && matchers.some((matches) => matches(fact.text)) ? { ...fact, retention: "PIN", floor: "exact" } : fact,
  )
}
