/**
 * The non-incidental probes the default policy kept over every probe fixture, by window, when last measured. Both Lab
 * regression gates read them: an improvement raises them, a regression fails the gates.
 */
export const PINNED_DEFAULT_SURVIVED: Readonly<Record<number, number>> = { 16_000: 154, 32_000: 163, 64_000: 171 }
