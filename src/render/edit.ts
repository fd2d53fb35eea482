/**
 * A change the renderer wants made to the host's message list. The renderer only describes edits; the shell
 * applies them (see `plugin/apply-edits.ts`), so rendering stays a pure function of state and messages.
 * Indices refer to the list as the renderer saw it.
 */
export type Edit =
  /** Write `prefix` before a text part's text. */
  | { type: "prefix-text"; messageIndex: number; partIndex: number; partId: string; prefix: string }
  /** Write `prefix` before a finished tool's output (or error text). */
  | { type: "prefix-tool-output"; messageIndex: number; partIndex: number; partId: string; prefix: string }
  /** Insert a new synthetic text part before part `partIndex`, which must be `beforePartId`. */
  | { type: "insert-text"; messageIndex: number; partIndex: number; beforePartId: string; newPartId: string; text: string }
