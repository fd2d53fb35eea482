import { compartmentDisplayId } from "../historian/compartment-id.js"
import { listCompartments } from "../store/compartment-repository.js"
import type { Database } from "../store/driver.js"
import { readMessagesBySeq, readRawParts, readTaggedParts } from "../store/raw-repository.js"
import type { HostMessage, HostPart } from "../transcript/host-message.js"
import { partText } from "../transcript/part-content.js"
import type { RawRecords } from "../report/show-prompt.js"

/**
 * What the store keeps of a replayed session, untouched by any pass: each episode's source messages and each tagged
 * part, as text (a tool as its call and its whole output). Read once, after the replay; the store only ever adds to
 * these, so they hold for every call of the replay.
 */
export function readRawRecords(db: Database, sessionId: string): RawRecords {
  const parts = new Map(readRawParts(db, sessionId).map((part) => [part.id, part.content as HostPart]))
  const tagOfPart = new Map<string, number>()
  const partOfTag = new Map<number, string>()
  for (const { tag, partId } of readTaggedParts(db, sessionId)) {
    tagOfPart.set(partId, tag)
    partOfTag.set(tag, partId)
  }
  const ranges = new Map(
    listCompartments(db, sessionId).map((compartment) => [compartmentDisplayId(compartment.seq), compartment] as const),
  )
  const episodes = new Map<string, string>()
  return {
    episode(id) {
      const known = episodes.get(id)
      if (known !== undefined) return known
      const compartment = ranges.get(id)
      if (!compartment) return null
      const messages = readMessagesBySeq(db, sessionId, compartment.firstMessageSeq, compartment.lastMessageSeq) as HostMessage[]
      const text = messages
        .flatMap((message) => message.parts.flatMap((part) => rawPartLines(message.info.role, part, tagOfPart.get(part.id) ?? null)))
        .join("\n")
      episodes.set(id, text)
      return text
    },
    tag(tag) {
      const part = parts.get(partOfTag.get(tag) ?? "")
      return part ? rawPartLines(null, part, null).join("\n") : null
    },
  }
}

/** A part as raw text: `§N§ [role] text`, a tool as `[tool call] name {input}` and its whole output. */
function rawPartLines(role: string | null, part: HostPart, tag: number | null): string[] {
  const label = tag === null ? "" : `§${tag}§ `
  const { call, content } = partText(part)
  if (part.type === "tool") return [`${label}[tool call] ${call}`, `[tool ${part.state.status}] ${content}`]
  if (content.trim() === "") return []
  if (role === null) return [content]
  return [`${label}[${role}${part.type === "text" ? "" : ` ${part.type}`}] ${content}`]
}
