import { formatCount, MAX_ARGUMENT_CHARS, QUOTED_ARGUMENT_CHARS, quoteArgument } from "../reduce/answer-bounds.js"
import { compartmentDisplayId, readCompartmentDisplayId } from "../historian/compartment-id.js"
import { withoutTagSigns } from "../reduce/parse-drop-ranges.js"
import type { HostPart } from "../transcript/host-message.js"
import { itemText } from "../session/item-text.js"
import { listCompartments } from "../store/compartment-repository.js"
import { readMessageParts } from "../store/raw-repository.js"
import { EXPAND_TOOL_TEXT } from "../reduce/agent-texts.js"
import type { ContextTool } from "./context-tool.js"
import type { HostRuntime } from "./host-runtime.js"
import type { SessionInfo } from "../store/session-repository.js"

/**
 * The most stored text one ctx_expand answer carries; with the note on what is not shown, an answer is at most
 * MAX_EXPAND_CHARS + 50 characters. Answers without stored text stay under MAX_TOOL_ANSWER_CHARS.
 */
export const MAX_EXPAND_CHARS = 24_000

/**
 * ctx_expand, whatever the host: every reduction is reversible. A compartment comes back at its most detailed tier
 * (and is marked relevant, so the next history update promotes it); a tag comes back as its raw content from the
 * store. Unknown ids get a clear answer.
 */
export const EXPAND_CALL: ContextTool = {
  ...EXPAND_TOOL_TEXT,
  failure: "ctx_expand could not run because of an internal error in magic-context (recorded).",
  run: expand,
}

async function expand(runtime: HostRuntime, session: SessionInfo, target: unknown): Promise<string> {
  const sessionId = session.id
  if (typeof target === "string" && target.length > MAX_ARGUMENT_CHARS) {
    return `target is ${formatCount(target.length)} characters long: give one episode id like "c12" or one tag like "§42§".`
  }
  if (typeof target !== "string" || target.trim().length === 0) {
    return 'target must be an episode id like "c12" or a tag like "§42§".'
  }
  const wanted = withoutTagSigns(target).trim()
  const db = await runtime.database()
  const episode = readCompartmentDisplayId(wanted)
  if (episode !== null) {
    // The last pass's cut, if it is not stored yet (`settleAfterPass`).
    runtime.settle(sessionId)
    const compartments = listCompartments(db, sessionId)
    const found = compartments.find((compartment) => compartmentDisplayId(compartment.seq) === episode)
    if (!found) {
      const known = compartments.length > 0 ? `episodes run from ${compartmentDisplayId(1)} to ${compartmentDisplayId(compartments.length)}` : "this session has no episodes yet"
      return `No episode ${shown(episode, target.trim())} in this session (${known}).`
    }
    const full = ["full", "dense", "compact", "anchor"]
      .map((tier) => found.representations.find((representation) => representation.tier === tier))
      .find((representation) => representation !== undefined)
    runtime.expanded.add(found.id)
    return bounded(full?.content ?? "(no text stored for this episode)")
  }
  if (/^\d+(?:\s*,\s*\d+)+$/.test(wanted)) return `${quoteArgument(target)} names several tags; ctx_expand takes one target at a time.`
  if (!/^\d+$/.test(wanted)) return `${quoteArgument(target)} is neither an episode id like "c12" nor a tag like "§42§".`
  const registry = await runtime.sessions()
  const state = registry.stateFor(session, runtime.counterFor(null))
  const number = withoutLeadingZeros(wanted)
  const tag = state.tagsByNumber.get(Number(number))
  if (!tag) {
    const highest = state.nextTag - 1
    return `No tag ${shown(`§${number}§`, number)} in this session (${highest > 0 ? `tags run from 1 to ${highest}` : "no tags yet"}).`
  }
  const parts = readMessageParts(db, sessionId, tag.messageId) as HostPart[]
  const text = itemText({ tag, parts })
  const note = tag.status === "dropped" ? ` (dropped from the context; this is the stored original)` : ""
  return bounded(`§${tag.tag}§${note}:\n${text}`)
}

/** An id as written in an answer: itself when short, else the quoted head of what the agent wrote. */
function shown(id: string, written: string): string {
  return id.length <= QUOTED_ARGUMENT_CHARS ? id : quoteArgument(written)
}

function withoutLeadingZeros(digits: string): string {
  return digits.replace(/^0+(?=\d)/, "")
}

function bounded(text: string): string {
  if (text.length <= MAX_EXPAND_CHARS) return text
  return `${text.slice(0, MAX_EXPAND_CHARS)}\n[... ${text.length - MAX_EXPAND_CHARS} more characters not shown]`
}
