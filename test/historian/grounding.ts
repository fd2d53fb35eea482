import type { CanonicalRecord } from "../../src/historian/canonical-record.js"
import { extractIdentifiers } from "../../src/historian/extract-identifiers.js"
import type { HostMessage } from "../../src/transcript/host-message.js"

/**
 * Identifiers named by a record's facts that do not occur verbatim in the messages the fact cites (whitespace
 * collapsed on both sides). Empty when every fact is grounded in its sources.
 */
export function ungroundedIdentifiers(record: CanonicalRecord, messages: readonly HostMessage[]): string[] {
  const textById = new Map(messages.map((message) => [message.info.id, normalize(messageText(message))]))
  const problems: string[] = []
  for (const fact of record.facts) {
    const source = fact.source.messageIds.map((id) => textById.get(id) ?? "").join("\n")
    const named = fact.kind === "identifier" ? [fact.text] : extractIdentifiers(fact.text, "prose")
    for (const identifier of named) {
      if (source.includes(normalize(identifier))) continue
      problems.push(`${fact.kind}: ${identifier} (${fact.text.slice(0, 80)})`)
    }
  }
  return problems
}

/** Every string a message carries: texts, reasoning, tool names and inputs (recursively), outputs, errors, files. */
export function messageText(message: HostMessage): string {
  const strings: string[] = []
  for (const part of message.parts) {
    if (part.type === "text" || part.type === "reasoning") strings.push(part.text)
    if (part.type === "file") strings.push(part.filename ?? "", part.mime, part.url)
    if (part.type !== "tool") continue
    strings.push(part.tool)
    collectStrings(part.state.input, strings)
    if (part.state.status === "completed") strings.push(part.state.output)
    if (part.state.status === "error") strings.push(part.state.error)
  }
  return strings.join("\n")
}

function collectStrings(value: unknown, into: string[]): void {
  if (typeof value === "string") {
    into.push(value)
    return
  }
  if (value === null || typeof value !== "object") return
  for (const item of Object.values(value)) collectStrings(item, into)
}

function normalize(text: string): string {
  return text.replace(/\s+/g, " ")
}
