import type { CountingAhead } from "../tokens/counted-ahead.js"
import { isFinalPart, type HostPart } from "../transcript/host-message.js"
import { partText } from "../transcript/part-content.js"

/**
 * Counts a finished part's texts when the host reports it (`message.part.updated`), before the transform call that
 * stores it: the pass's ingest then finds their counts made (`CountingAhead`) instead of running the tokenizer while
 * the request waits. Only sessions a main pass ran for in this process are counted, with that pass's counter (the
 * event names no model). A part whose event never came is counted by the pass as before, to the same number.
 */
export type PartsCountedAhead = {
  /** The counter the session's last main pass used; its finished parts are counted with it from now on. */
  passRan(sessionId: string, counter: CountingAhead): void
  /** A part the host reports created or changed. */
  partUpdated(part: HostPart): void
  /** Stops counting for a session the host ended. */
  forget(sessionId: string): void
}

export function createPartsCountedAhead(): PartsCountedAhead {
  const counters = new Map<string, CountingAhead>()
  return {
    passRan(sessionId, counter) {
      counters.set(sessionId, counter)
    },
    partUpdated(part) {
      const counter = counters.get(part.sessionID)
      if (counter === undefined || !isFinishedPart(part)) return
      const text = partText(part)
      counter.countAhead(text.content)
      counter.countAhead(text.call)
    },
    forget(sessionId) {
      counters.delete(sessionId)
    },
  }
}

/**
 * True when the host will not send the part changed again: a tool that finished, a text or reasoning part whose
 * stream ended (`time.end`) or that never streamed (no `time`: a user's text), any other part. A streaming text is
 * reported again and again while it grows; counting it then would count every prefix.
 */
export function isFinishedPart(part: HostPart): boolean {
  if (part.type === "text" || part.type === "reasoning") return part.time === undefined || part.time.end !== undefined
  return isFinalPart(part)
}
