/**
 * How big the ctx_* tools let an argument, an answer and what they store get: an agent's argument can be anything (a
 * broken loop once sent 10 MB), and an answer goes back into the prompt, so none may repeat an unbounded input.
 */

/** The longest argument a ctx_* tool reads; 500 tags written "§123456§, " take 5,000 characters. */
export const MAX_ARGUMENT_CHARS = 10_000
/** How much of a bad argument an answer quotes. */
export const QUOTED_ARGUMENT_CHARS = 60
/** How many tags or ranges an answer lists before it counts the rest. */
export const LISTED_TAG_PIECES = 6
/**
 * The longest answer ctx_reduce and ctx_pin give, and ctx_expand when it returns no stored content (that is bounded
 * by MAX_EXPAND_CHARS). The worst ctx_reduce answer (every list at LISTED_TAG_PIECES of 16-digit tags, all six
 * reasons for a rejection) is 1,988 characters.
 */
export const MAX_TOOL_ANSWER_CHARS = 3_000
/** How much of an argument the plugin's own call record keeps (the host's tool part keeps all of it). */
export const STORED_ARGUMENT_CHARS = 200

/** A text for an answer: whole as JSON when short, else its first QUOTED_ARGUMENT_CHARS and its length. */
export function quoteArgument(text: string): string {
  if (text.length <= QUOTED_ARGUMENT_CHARS) return JSON.stringify(text)
  return `${JSON.stringify(head(text, QUOTED_ARGUMENT_CHARS))}… (${formatCount(text.length)} characters)`
}

/** The text itself up to `maxChars`, else its head and its length: `abc… (6 characters)`. */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  return `${head(text, maxChars)}… (${formatCount(text.length)} characters)`
}

/** The first `length` characters, one fewer when the cut would split a surrogate pair. */
function head(text: string, length: number): string {
  const code = text.charCodeAt(length - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length)
}

/** A count as the answers write it: 10,485,760. */
export function formatCount(value: number): string {
  return value.toLocaleString("en-US")
}
