/** One message as the compartment cutter sees it: its place, role and size. */
export type CutMessage = { id: string; seq: number; role: "user" | "assistant"; tokens: number; authoredUser: boolean }

/** A range of settled messages that becomes one compartment (an episode). */
export type CompartmentCut = { firstSeq: number; lastSeq: number; messageIds: string[]; tokens: number }

/** An episode closes at the next user turn; one larger than this is split at message boundaries. */
export const MAX_EPISODE_TOKENS = 12_000
/** A trailing episode (its turn still going on inside the protected window) waits until it holds this much. */
export const MIN_TRAILING_EPISODE_TOKENS = 2_000

/**
 * Cuts settled conversation into episodes (compartments) at natural boundaries: a new episode starts at each
 * message a person wrote (a user turn), and an episode larger than MAX_EPISODE_TOKENS is split between messages.
 * A message is never split, so a tool call and its result (one part in OpenCode) always stay together. Only
 * messages after `coveredThroughSeq` (the last compartment so far) and before the protected window are cut, so
 * every settled message lands in exactly one compartment. The last episode is cut only when its turn has ended
 * (the next user turn is in view) or it already holds MIN_TRAILING_EPISODE_TOKENS.
 */
export function cutCompartments(options: {
  /** Live messages in order (oldest first). */
  messages: readonly CutMessage[]
  coveredThroughSeq: number
  /** The sequence number of the oldest protected message (nothing from it on is settled). */
  protectedFromSeq: number
}): CompartmentCut[] {
  const settled = options.messages.filter((message) => message.seq > options.coveredThroughSeq && message.seq < options.protectedFromSeq)
  const episodes: CutMessage[][] = []
  for (const message of settled) {
    const current = episodes[episodes.length - 1]
    const currentTokens = current?.reduce((sum, item) => sum + item.tokens, 0) ?? 0
    if (!current || message.authoredUser || currentTokens + message.tokens > MAX_EPISODE_TOKENS) {
      episodes.push([message])
      continue
    }
    current.push(message)
  }
  const last = episodes[episodes.length - 1]
  if (last) {
    const lastSeq = last[last.length - 1]?.seq ?? 0
    const nextMessage = options.messages.find((message) => message.seq > lastSeq)
    const turnEnded = nextMessage?.authoredUser === true
    const tokens = last.reduce((sum, item) => sum + item.tokens, 0)
    if (!turnEnded && tokens < MIN_TRAILING_EPISODE_TOKENS) episodes.pop()
  }
  return episodes.map((episode) => ({
    firstSeq: episode[0]?.seq ?? 0,
    lastSeq: episode[episode.length - 1]?.seq ?? 0,
    messageIds: episode.map((message) => message.id),
    tokens: episode.reduce((sum, message) => sum + message.tokens, 0),
  }))
}
