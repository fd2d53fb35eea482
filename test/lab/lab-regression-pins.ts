/**
 * The non-incidental probes the default policy kept over every probe fixture, by window, when last measured. The full
 * gate (lab-regression.full.test.ts) reads them: an improvement raises them, a regression fails the gate.
 */
export const PINNED_DEFAULT_SURVIVED: Readonly<Record<number, number>> = { 16_000: 210, 32_000: 240, 64_000: 246 }

/**
 * The gate in `npm test` (lab-regression.test.ts): two OpenCode-shaped synthetic sessions, the cheapest fixtures in
 * which the most named rules each keep a probe the default would otherwise lose at 32k (measured one rule off at a
 * time: doc-rule-lines, doc-limit-lines, long-user-rules, commit-hash, code-blocks, error-cause, failure-location),
 * about a third of the time of every fixture.
 */
export const GATE_TRACES: readonly string[] = ["opencode-verdant-irrigation.json", "opencode-shelfwise-notices.json"]

/** The non-incidental probes of GATE_TRACES the default kept at 32k when last measured (22 + 21). */
export const PINNED_GATE_SURVIVED = 43
