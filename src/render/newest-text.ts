import type { HostMessage, HostPart } from "../transcript/host-message.js"

/**
 * The last `chars` characters of what `textOf` reads of each part (null: the part adds nothing, not even a line),
 * each part's on a line of its own, newest last: read from the newest part back, only as far as needed (the protected
 * window of a large model holds megabytes).
 */
export function newestText(messages: readonly HostMessage[], chars: number, textOf: (part: HostPart) => string | null): string {
  const texts: string[] = []
  let length = -1
  for (let index = messages.length - 1; index >= 0 && length < chars; index -= 1) {
    const parts = messages[index]?.parts ?? []
    for (let at = parts.length - 1; at >= 0 && length < chars; at -= 1) {
      const text = textOf(parts[at] as HostPart)
      if (text === null) continue
      texts.push(text)
      length += text.length + 1
    }
  }
  return texts.reverse().join("\n").slice(-chars)
}
