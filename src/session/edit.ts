import type { HostMessage } from "../transcript/host-message.js"

/**
 * A change the renderer asks for in the host's message list, addressed by ids. The renderer only describes
 * edits; the shell applies them all or none (`plugin/apply-edits.ts`), so rendering stays a pure function of the
 * stored state and the messages.
 */
export type Edit =
  /** Replace a text part's text. */
  | { type: "set-text"; messageId: string; partId: string; text: string }
  /** Replace a finished tool's result: its output when completed, its error text when it failed. */
  | { type: "set-tool-result"; messageId: string; partId: string; text: string }
  /** Replace a tool call's input (a superseded edit keeps only its path). */
  | { type: "set-tool-input"; messageId: string; partId: string; input: Record<string, unknown> }
  /** Insert a synthetic text part before `beforePartId`. */
  | { type: "insert-part"; messageId: string; beforePartId: string; partId: string; text: string }
  /** Remove a part (a dropped media file). */
  | { type: "remove-part"; messageId: string; partId: string }
  /** Insert a whole message after `afterMessageId`, or at the start when it is null (history, a steer message). */
  | { type: "insert-message"; afterMessageId: string | null; message: HostMessage }
  /** Remove a whole message (folded into history). */
  | { type: "remove-message"; messageId: string }

/** An edit that writes into a part's content (its text, a tool's result or input), as against one that adds or removes. */
export function isContentEdit(edit: Edit): edit is Extract<Edit, { type: "set-text" | "set-tool-result" | "set-tool-input" }> {
  return edit.type === "set-text" || edit.type === "set-tool-result" || edit.type === "set-tool-input"
}

/**
 * Where a run of rendered edits lands, by position: `edits[offset + k]` is an edit of the live message at host
 * position `liveFrom + targets[2k]`, and writes that message's part at position `targets[2k + 1]` (-1: not a content
 * edit, or one to look up by id); the first `removed` edits remove the list's first `removed` messages, in order (the
 * folded ones). Made by the renderer from the memo's verified messages (`renderPromptPlaced`); valid for the very
 * message objects that pass rendered.
 */
export type PlacedEdits = {
  offset: number
  liveFrom: number
  targets: Int32Array
  removed: number
  /** The live run itself (`edits[offset ..]` holds its edits), for the next pass to say what it kept of it. */
  run: readonly Edit[]
  /** How many leading live messages have the edits they had in the earlier run `keptFrom` (0 and null: none). */
  kept: number
  keptFrom: readonly Edit[] | null
}
