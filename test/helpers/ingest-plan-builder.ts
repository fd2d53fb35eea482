import type { IngestPlan, NewMessage, NewPart } from "../../src/session/plan-ingest.js"
import type { PartKind, TagRecord } from "../../src/session/session-state.js"
import { contentHash } from "../../src/transcript/content-hash.js"
import type { TagKind } from "../../src/transcript/trackables.js"
import type { HostPart } from "../../src/transcript/host-message.js"

/** A new message row for a hand-made ingest plan. */
export function newMessage(options: { id: string; seq: number; role?: string; createdAt?: number | null }): NewMessage {
  const role = options.role ?? "user"
  return {
    id: options.id,
    seq: options.seq,
    role,
    createdAt: options.createdAt ?? null,
    infoJson: JSON.stringify({ id: options.id, role }),
  }
}

/** A final text part. */
export function newTextPart(options: {
  id: string
  messageId: string
  text: string
  position?: number
  kind?: PartKind
  tokens?: number
}): NewPart {
  const content = { id: options.id, messageID: options.messageId, type: "text", text: options.text }
  return part({
    id: options.id,
    messageId: options.messageId,
    position: options.position ?? 0,
    type: "text",
    kind: options.kind ?? "user",
    tool: null,
    status: null,
    final: true,
    content,
    tokens: options.tokens ?? options.text.length,
    callTokens: 0,
  })
}

/** A tool part; final when its status is `completed` or `error`, as in OpenCode. */
export function newToolPart(options: {
  id: string
  messageId: string
  tool: string
  status: "pending" | "running" | "completed" | "error"
  output?: string
  position?: number
  tokens?: number
  callTokens?: number
}): NewPart {
  const content = {
    id: options.id,
    messageID: options.messageId,
    type: "tool",
    tool: options.tool,
    state: { status: options.status, output: options.output ?? "" },
  }
  return part({
    id: options.id,
    messageId: options.messageId,
    position: options.position ?? 0,
    type: "tool",
    kind: "tool",
    tool: options.tool,
    status: options.status,
    final: options.status === "completed" || options.status === "error",
    content,
    tokens: options.tokens ?? (options.output ?? "").length,
    callTokens: options.callTokens ?? 3,
  })
}

/** A live tag on a part. */
export function newTag(options: {
  tag: number
  partId: string
  messageId: string
  kind?: TagKind
  tool?: string | null
  status?: "live" | "dropped"
  droppedReason?: TagRecord["droppedReason"]
  supersededBy?: number | null
  prefixTokens?: number
}): TagRecord {
  return {
    tag: options.tag,
    kind: options.kind ?? "message",
    messageId: options.messageId,
    partId: options.partId,
    tool: options.tool ?? null,
    status: options.status ?? "live",
    droppedReason: options.droppedReason ?? null,
    supersededBy: options.supersededBy ?? null,
    prefixTokens: options.prefixTokens ?? 4,
  }
}

/** An ingest plan; the counters default to one past the highest tag and message sequence in it. */
export function ingestPlan(options: {
  sessionId: string
  messages?: NewMessage[]
  parts?: NewPart[]
  tags?: TagRecord[]
  nextTag?: number
  nextSeq?: number
}): IngestPlan {
  const messages = options.messages ?? []
  const tags = options.tags ?? []
  return {
    sessionId: options.sessionId,
    messages,
    parts: options.parts ?? [],
    tags,
    nextTag: options.nextTag ?? Math.max(0, ...tags.map((tag) => tag.tag)) + 1,
    nextSeq: options.nextSeq ?? Math.max(0, ...messages.map((message) => message.seq)) + 1,
  }
}

function part(options: Omit<NewPart, "hash" | "content" | "replacesNonFinal"> & { content: unknown }): NewPart {
  const { content, ...rest } = options
  return { ...rest, content: content as HostPart, hash: contentHash(JSON.stringify(content)), replacesNonFinal: false }
}
