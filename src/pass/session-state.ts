import type { TagKind } from "../transcript/trackables.js"

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
}

export type TagRecord = {
  tag: number
  kind: TagKind
  messageId: string
  partId: string
  tool: string | null
  status: "live" | "dropped"
  /** Tokens of the rendered `§N§ ` prefix. */
  prefixTokens: number
}

/**
 * The in-memory mirror of one session's stored state. Loaded from the store once per process, then kept in
 * step by each pass, so that a pass costs in proportion to the new material.
 */
export type SessionState = {
  sessionId: string
  nextTag: number
  nextSeq: number
  nextPass: number
  messages: Set<string>
  parts: Map<string, KnownPart>
  tagsByPart: Map<string, TagRecord>
  tagsByNumber: Map<number, TagRecord>
}

/** A state for a session the store has never seen. */
export function emptySessionState(sessionId: string): SessionState {
  return {
    sessionId,
    nextTag: 1,
    nextSeq: 1,
    nextPass: 1,
    messages: new Set(),
    parts: new Map(),
    tagsByPart: new Map(),
    tagsByNumber: new Map(),
  }
}
