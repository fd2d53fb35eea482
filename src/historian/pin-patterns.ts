import type { Fact } from "./fidelity-types.js"

/** A compiled pin pattern: "/regex/flags" or plain text (case-insensitive substring). */
export type PinPattern = (text: string) => boolean

/**
 * Compiles the config's pin patterns. A pattern that is not a valid regular expression is reported and matched as
 * plain text instead, so a typo never disables the plugin.
 */
export function compilePinPatterns(patterns: readonly string[]): { matchers: PinPattern[]; problems: string[] } {
  const matchers: PinPattern[] = []
  const problems: string[] = []
  for (const pattern of patterns) {
    const regex = /^\/(.+)\/([a-z]*)$/.exec(pattern)
    if (regex) {
      try {
        const compiled = new RegExp(regex[1] as string, regex[2])
        // A g or y flag makes test() resume at lastIndex: start over, so every text gets the same answer.
        matchers.push((text) => {
          compiled.lastIndex = 0
          return compiled.test(text)
        })
        continue
      } catch (error) {
        problems.push(`pin pattern ${pattern} is not a valid regular expression (${String(error)}); matched as text`)
      }
    }
    const needle = pattern.toLowerCase()
    matchers.push((text) => text.toLowerCase().includes(needle))
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
