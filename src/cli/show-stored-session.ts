import { existsSync } from "node:fs"
import { PluginError } from "../plugin-error.js"
import { openStoreReader } from "../store/open-store-reader.js"
import { lastMessageSeq, readMessagesBySeq } from "../store/raw-repository.js"
import { listSessions } from "../store/session-repository.js"
import { importOpencodeExport } from "../transcript/importers/opencode-export.js"
import type { Transcript } from "../transcript/turn-model.js"

/**
 * A stored session as a transcript to replay: its pristine messages (the store keeps every message as the host gave
 * it, in OpenCode's message shape for both hosts) read through the `opencode export` importer, as if exported, and
 * one call more: the newest request, whose answer the store does not hold yet. The store is opened read-only and
 * closed again. A missing store or an unknown session id is a PluginError that says what exists.
 */
export async function readStoredSession(file: string, sessionId: string): Promise<Transcript> {
  if (!existsSync(file)) {
    throw new PluginError("transcript_unreadable", `${file}: no magic-context store here (give --db PATH, or a transcript file)`, { file })
  }
  const db = await openStoreReader(file)
  try {
    const sessions = listSessions(db, 10_000)
    const session = sessions.find((stored) => stored.id === sessionId)
    if (!session) {
      const newest = sessions.slice(0, 3).map((stored) => stored.id)
      const holds = sessions.length === 0 ? "it holds no session" : `it holds ${sessions.length} (newest: ${newest.join(", ")}; magic-context status --list shows them all)`
      throw new PluginError("transcript_unreadable", `${file}: no session ${sessionId}; ${holds}`, { file, sessionId })
    }
    const messages = readMessagesBySeq(db, sessionId, 0, lastMessageSeq(db, sessionId))
    const document = { info: { id: sessionId, title: session.title ?? sessionId }, messages }
    const transcript = importOpencodeExport(JSON.stringify(document), { file: `${file}#${sessionId}` })
    // The store holds the messages up to the newest request; the call that request made has no assistant message
    // stored yet. An empty assistant turn at the end makes the replay run that call too.
    const index = (transcript.turns.at(-1)?.index ?? -1) + 1
    return { ...transcript, turns: [...transcript.turns, { index, role: "assistant", time: null, parts: [] }] }
  } finally {
    db.close()
  }
}
