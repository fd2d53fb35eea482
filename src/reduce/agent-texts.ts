import { formatCount } from "./answer-bounds.js"
import { REDUCE_ALONGSIDE, REDUCE_NEVER_ALONE } from "./reduce-timing.js"

/**
 * What magic-context adds to every request of an agent that has its tools: the guidance in the system prompt and the
 * three tools' definitions (name, description, argument). Constant text, so the most cached part of every request
 * never changes because of it. The hosts register the tools from these (host/*-call.ts); the Lab counts them as the
 * plugin's fixed cost per request (lab/plugin-request-tokens.ts).
 */

/** The reduce tool's name, as every host registers it and as recorded sessions name its calls. */
export const REDUCE_TOOL = "ctx_reduce"

/** The reduce guidance added to the system prompt of an agent that has ctx_reduce. */
export const REDUCE_GUIDANCE = [
  "<context-management>",
  "Messages, attached files and tool outputs in this conversation start with a tag such as §12§. When you are done",
  "with material (old file reads, long command or test output, superseded searches), drop it with",
  'ctx_reduce(drop="3-5,12"): drops are queued and land at the next execute pass, and the raw content is kept.',
  `Call ctx_reduce ${REDUCE_ALONGSIDE} ${REDUCE_NEVER_ALONE}`,
  "Do not drop what you still need, do not call ctx_reduce repeatedly for the same tags, and never copy §N§ tags",
  "into your own replies.",
  "</context-management>",
].join("\n")

/** A tool as the agent reads it: a name, a description and its one string argument. */
export type AgentToolText = { name: string; description: string; argument: { name: string; description: string } }

export const REDUCE_TOOL_DESCRIPTION =
  "Drop material you are done with from your context. Every message, file and tool output in the conversation " +
  "starts with a tag like §12§; pass the tags to drop as a comma-separated list of numbers and inclusive ranges, " +
  'e.g. drop="3-5,8,12-15". Use it for spent material: old file reads, long command or test output, superseded ' +
  "searches. Drops are queued and land at the next execute pass (not instantly); the raw content stays in " +
  "magic-context's store, and user messages are never dropped. Do not call it again for tags you already queued. " +
  `Call it ${REDUCE_ALONGSIDE} ${REDUCE_NEVER_ALONE}`

export const REDUCE_TOOL_TEXT: AgentToolText = {
  name: REDUCE_TOOL,
  description: REDUCE_TOOL_DESCRIPTION,
  argument: { name: "drop", description: 'Tags to drop: numbers and inclusive ranges, e.g. "3-5,8,12-15"' },
}

export const EXPAND_TOOL_DESCRIPTION =
  "Bring back detail magic-context condensed or dropped. target is an episode id from the session history (e.g. " +
  '"c12": returns that episode at full detail) or a tag (e.g. "§42§" or "42": returns the item\'s original ' +
  "content, also when it was dropped). The answer is bounded in size; the episode is also kept in more detail " +
  "from the next history update on."

export const EXPAND_TOOL_TEXT: AgentToolText = {
  name: "ctx_expand",
  description: EXPAND_TOOL_DESCRIPTION,
  argument: { name: "target", description: 'An episode id like "c12", or a tag like "§42§"' },
}

/**
 * The longest item a pin keeps. A pin is stored and rendered verbatim in every later prompt, so a pinned 50,000
 * character read would sit in the ledger for good; a longer item is refused, never cut (a cut pin is not verbatim).
 */
export const MAX_PIN_CHARS = 4_000

export const PIN_TOOL_DESCRIPTION =
  "Pin material that must survive verbatim however much of the session is condensed later: a constraint, an " +
  'exact error, a decision you must not lose. tags: "12" or "12,15" (the §N§ tags). Pins are kept word for word in ' +
  `the session history; they have a budget, so pin only what is essential (one pin holds at most ${formatCount(MAX_PIN_CHARS)} ` +
  "characters)."

export const PIN_TOOL_TEXT: AgentToolText = {
  name: "ctx_pin",
  description: PIN_TOOL_DESCRIPTION,
  argument: { name: "tags", description: 'Tags to pin, e.g. "12" or "12,15"' },
}

/** Every tool magic-context gives the agent, in the order the hosts register them. */
export const AGENT_TOOL_TEXTS: readonly AgentToolText[] = [REDUCE_TOOL_TEXT, EXPAND_TOOL_TEXT, PIN_TOOL_TEXT]
