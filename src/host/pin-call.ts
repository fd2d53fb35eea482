import { formatCount } from "../reduce/answer-bounds.js"
import { parseDropRanges } from "../reduce/parse-drop-ranges.js"
import { insertPin } from "../store/pin-repository.js"
import { readMessageParts } from "../store/raw-repository.js"
import type { HostPart } from "../transcript/host-message.js"
import { itemText } from "../session/item-text.js"
import { MAX_PIN_CHARS, PIN_TOOL_TEXT } from "../reduce/agent-texts.js"
import type { ContextTool } from "./context-tool.js"
import type { HostRuntime } from "./host-runtime.js"
import type { SessionInfo } from "../store/session-repository.js"

/** One call pins at most this many tags. */
export const MAX_PINS_PER_CALL = 10
/** ctx_pin, whatever the host: pins the raw content of tags into the pinned ledger (verbatim at every pressure). */
export const PIN_CALL: ContextTool = {
  ...PIN_TOOL_TEXT,
  failure: "ctx_pin could not run because of an internal error in magic-context (recorded); nothing was pinned.",
  run: pin,
}

async function pin(runtime: HostRuntime, session: SessionInfo, tags: unknown): Promise<string> {
  const sessionId = session.id
  const parsed = parseDropRanges(tags, { name: "tags", verb: "pin" })
  if (!parsed.ok) return `Nothing was pinned: ${parsed.error}.`
  if (parsed.value.tags.length > MAX_PINS_PER_CALL) return `Nothing was pinned: one call pins at most ${MAX_PINS_PER_CALL} tags.`
  const db = await runtime.database()
  const registry = await runtime.sessions()
  const state = registry.stateFor(session, runtime.counterFor(null))
  const lines: string[] = []
  for (const number of parsed.value.tags) {
    const tag = state.tagsByNumber.get(number)
    if (!tag) {
      lines.push(`§${number}§: no such tag in this session.`)
      continue
    }
    const text = itemText({ tag, parts: readMessageParts(db, sessionId, tag.messageId) as HostPart[] })
    if (text.length > MAX_PIN_CHARS) {
      lines.push(
        `§${number}§ was not pinned: it holds ${formatCount(text.length)} characters and a pin keeps at most ` +
          `${formatCount(MAX_PIN_CHARS)} verbatim. Quote the lines that matter in your reply and pin that message's tag.`,
      )
      continue
    }
    const added = insertPin(db, sessionId, { tag: number, text, pinnedBy: "agent" }, Date.now())
    lines.push(added ? `§${number}§ pinned (${text.length} characters, kept verbatim).` : `§${number}§ was already pinned.`)
  }
  return lines.join("\n")
}
