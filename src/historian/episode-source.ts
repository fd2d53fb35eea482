import type { HostMessage } from "../transcript/host-message.js"
import { partText } from "../transcript/part-content.js"

/** A tool output longer than this is cut in the historian's source (the canonical record keeps exact error lines). */
export const SOURCE_OUTPUT_CHARS = 2_000

/**
 * An episode's raw messages as the model historian reads them: one line group per part, each with its `§N§` tag so
 * that facts can cite their source, tool calls with their input and (cut) output.
 */
export function renderEpisodeSource(messages: readonly HostMessage[], tagOf: (partId: string) => number | null): string {
  const lines: string[] = []
  for (const message of messages) {
    for (const part of message.parts) {
      const tag = tagOf(part.id)
      const label = tag === null ? "" : `§${tag}§ `
      if (part.type === "text" && !part.ignored && part.text.trim()) {
        lines.push(`${label}[${message.info.role}${part.synthetic ? ", inserted" : ""}] ${part.text}`)
      } else if (part.type === "tool") {
        const { call, content } = partText(part)
        const output = content.length > SOURCE_OUTPUT_CHARS ? `${content.slice(0, SOURCE_OUTPUT_CHARS)} [... ${content.length - SOURCE_OUTPUT_CHARS} more characters]` : content
        lines.push(`${label}[tool call] ${call}`, `[tool ${part.state.status}] ${output}`)
      }
    }
  }
  return lines.join("\n")
}
