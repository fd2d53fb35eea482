import type { TagKind } from "../transcript/trackables.js"

/** The kind of a stored part. */
export type PartKind = "user" | "assistant" | "reasoning" | "tool" | "file" | "none"

/** What the pass remembers about a stored part, so a replay pass never re-reads or re-counts it. */
export type KnownPart = {
  messageId: string
  kind: PartKind
  final: boolean
  hash: string
  /** Tokens of the content the model reads (text, tool output or error). */
  tokens: number
  /** Tokens of a tool call (name and input); 0 for other parts. */
  callTokens: number
  /**
   * A reasoning part the provider's rule makes invalid in the prompt (its prefix changed under Anthropic's prefix
   * check): left out of every prompt from the execute pass that withheld it on. Absent: sent.
   */
  withheld?: true
}

/** The tokens a stored part puts into the prompt: none once withheld. */
export function promptTokensOf(known: KnownPart | undefined): number {
  return known && known.withheld !== true ? known.tokens + known.callTokens : 0
}

/** Why a tag's content left the prompt. */
export type DropReason = "reduce" | "reclaim" | "smart" | "superseded"

/** A tag: the number a trackable part is known by, and whether its content is still in the prompt. */
export type TagRecord = {
  tag: number
  kind: TagKind
  messageId: string
  partId: string
  tool: string | null
  status: "live" | "dropped"
  droppedReason: DropReason | null
  /** For a superseded edit or write: the tag of the newest edit of the same file. */
  supersededBy: number | null
  /** Tokens of the rendered `§N§ ` prefix. */
  prefixTokens: number
}
