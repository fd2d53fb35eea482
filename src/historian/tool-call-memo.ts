import type { Recognizers } from "../session/recognizers.js"
import { isFinalPart, type HostToolPart } from "../transcript/host-message.js"

/** What a reading was read from: the fields of a tool part it depends on besides its input object. */
type Remembered<Reading> = { tool: string; status: string; output: string; recognizers: Recognizers; reading: Reading }

/**
 * A memory of the last reading of each tool input object. The working set reads every finished call of the live
 * session at every planning pass, and a replay's snapshots share each call's input object (and output text) from
 * pass to pass; a call whose tool, status, output text or recognizers changed since is read again, and a host that
 * sends new objects every call (OpenCode) simply misses. Only finished calls are kept: a host may still be filling in
 * a running call's input. Callers never mutate a reading.
 */
export function createToolCallMemo<Reading>(): (part: HostToolPart, output: string, recognizers: Recognizers, read: () => Reading) => Reading {
  const readings = new WeakMap<object, Remembered<Reading>>()
  return (part, output, recognizers, read) => {
    const key = part.state.input
    if (!isFinalPart(part) || key === null || typeof key !== "object") return read()
    const known = readings.get(key)
    if (known && known.tool === part.tool && known.status === part.state.status && known.output === output && known.recognizers === recognizers) {
      return known.reading
    }
    const reading = read()
    readings.set(key, { tool: part.tool, status: part.state.status, output, recognizers, reading })
    return reading
  }
}
