import { messageText, type ChatMessage, type ChatRequest } from "./mock-model-server.js"

/** The first line of every request the model historian sends (src/historian/prompt.ts). */
export const HISTORIAN_REQUEST_MARKER = "HISTORIAN-REQUEST"
/** How the historian's one repair request starts (src/historian/prompt.ts `historianRepairRequest`). */
export const HISTORIAN_REPAIR_START = "Your answer could not be used: "

/** True for a request of the historian's child session (its conversation starts with a HISTORIAN-REQUEST). */
export function isHistorianRequest(request: ChatRequest): boolean {
  return request.messages.some(
    (message) => message.role === "user" && messageText(message).startsWith(HISTORIAN_REQUEST_MARKER),
  )
}

/** True for the historian's repair request: its newest user message is the repair text. */
export function isHistorianRepair(request: ChatRequest): boolean {
  const user = [...request.messages].reverse().find((message) => message.role === "user")
  return user !== undefined && messageText(user).startsWith(HISTORIAN_REPAIR_START)
}

/** One `<episode id="…">` block of a historian request: the id and the episode source exactly as sent. */
export type RequestedEpisode = { id: string; source: string }

/** The episodes a historian request asks for, in order (parsed from the first HISTORIAN-REQUEST message). */
export function requestedEpisodes(request: ChatRequest): RequestedEpisode[] {
  const message = request.messages.find(
    (candidate) => candidate.role === "user" && messageText(candidate).startsWith(HISTORIAN_REQUEST_MARKER),
  )
  if (!message) return []
  const text = messageText(message)
  return [...text.matchAll(/<episode id="([^"]+)">\n([\s\S]*?)\n<\/episode>/g)].map((match) => ({
    id: match[1] as string,
    source: match[2] as string,
  }))
}

/** The request's messages after the system messages. */
export function conversation(request: ChatRequest): ChatMessage[] {
  return request.messages.filter((message) => message.role !== "system")
}

/** The folded history the request starts with (its first non-system message), or null. */
export function sessionHistory(request: ChatRequest): string | null {
  const first = conversation(request)[0]
  if (!first || first.role !== "user") return null
  const text = messageText(first)
  return text.startsWith("<session-history>") ? text : null
}

/** The newest message of a request that is not a magic-context reminder (a steer is a trailing user message). */
export function newestMessage(request: ChatRequest): ChatMessage | undefined {
  return [...request.messages].reverse().find((message) => !messageText(message).startsWith("<system-reminder>"))
}

/** The episode ids a history text shows (`[c12 §40§–§57§]` tier headers), in order, each once. */
export function historyEpisodeIds(history: string): string[] {
  return [...new Set([...history.matchAll(/\[(c\d+)[\]\s]/g)].map((match) => match[1] as string))]
}
