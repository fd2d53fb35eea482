// What Pi 1.6 itself sends the model for a session file: its own `buildSessionContext` (the active branch, the newest
// compaction's kept range, context_edit) and `convertToLlm`, imported from the installed package (test/hosts/pi-1,
// installed by scripts/install-test-hosts.mjs before the unit tests), less what magic-context's extension leaves out
// (Pi's system messages, which the `context` event never carries, and its own /ctx-status reports). The importer's
// turns are compared with it block by block.
import { convertToLlm } from "../hosts/pi-1/node_modules/@earendil-works/pi-coding-agent/dist/core/messages.js"
import { buildSessionContext, migrateSessionEntries, parseSessionEntries } from "../hosts/pi-1/node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js"
import { PI_STATUS_TYPE } from "../../src/transcript/importers/pi-sent-as-user.js"
import type { Turn } from "../../src/transcript/turn-model.js"

/** One block the model reads: who sent it and what it holds (an image by its type only). */
export type Step = { role: string; block: string }

/** The blocks of the messages Pi 1.6 builds from the session file `text`. */
export function piBuiltSteps(text: string): Step[] {
  const entries = parseSessionEntries(text)
  migrateSessionEntries(entries)
  const body = entries.filter((entry) => entry.type !== "session") as Parameters<typeof buildSessionContext>[0]
  const { messages } = buildSessionContext(body)
  const sent = messages.filter((message) => message.role !== "system" && !(message.role === "custom" && message.customType === PI_STATUS_TYPE))
  return convertToLlm(sent).flatMap((message): Step[] => {
    if (message.role === "toolResult") return [{ role: `result ${message.toolCallId}`, block: blocksText(message.content) }]
    if (message.role === "user") return (typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content).map((block) => ({ role: "user", block: blockText(block) }))
    if (message.role !== "assistant") return []
    return message.content.map((block): Step => {
      if (block.type === "text") return { role: "assistant", block: block.text }
      if (block.type === "thinking") return { role: "reasoning", block: block.thinking }
      return { role: "call", block: `${block.id} ${block.name} ${JSON.stringify(block.arguments)}` }
    })
  })
}

/** The same blocks for the importer's turns. */
export function turnSteps(turns: readonly Turn[]): Step[] {
  return turns.flatMap((turn) =>
    turn.parts.map((part): Step => {
      if (part.type === "tool-call") return { role: "call", block: `${part.callId} ${part.tool} ${JSON.stringify(part.input)}` }
      if (part.type === "tool-result") return { role: `result ${part.callId}`, block: part.output }
      if (part.type === "reasoning") return { role: "reasoning", block: part.text }
      if (part.type === "file") return { role: turn.role, block: `[image ${part.mime}]` }
      return { role: turn.role, block: part.text }
    }),
  )
}

type Block = { type: string; text?: string; mimeType?: string }

function blockText(block: Block): string {
  return block.type === "text" ? (block.text ?? "") : `[image ${block.mimeType ?? ""}]`
}

/** A tool result's blocks as the importer joins them (one output, an image as `[image]`). */
function blocksText(content: readonly Block[]): string {
  return content.map((block) => (block.type === "text" ? (block.text ?? "") : "[image]")).join("\n")
}
