import type { HostMessage } from "../transcript/host-message.js"
import { partText } from "../transcript/part-content.js"
import { toolInputText } from "./tool-input-text.js"

/**
 * The text a model reads from a prompt, for probes to search verbatim: text and reasoning parts as they are (ignored
 * text is not sent), each tool call as its name and decoded input values (see `toolInputText`), its output, error or
 * marker as text, and file names. Parts are separated by newlines, so an `exact` string never spans two parts.
 */
export function promptText(messages: readonly HostMessage[]): string {
  const chunks: string[] = []
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === "file") {
        chunks.push(part.filename ?? part.url)
        continue
      }
      if (part.type === "tool") chunks.push(toolInputText(part.tool, part.state.input))
      const { content } = partText(part)
      if (content.length > 0) chunks.push(content)
    }
  }
  return chunks.join("\n")
}
