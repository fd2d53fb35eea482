import type { Database } from "./driver.js"
import { statement } from "./statements.js"

export type StoredPin = { tag: number; text: string; pinnedBy: "agent" | "user" }

/** Pins a tag's content (once per tag; a second pin of the same tag keeps the first). */
export function insertPin(db: Database, sessionId: string, pin: StoredPin, now: number): boolean {
  const result = statement(
    db,
    `INSERT INTO pins (session_id, tag, text, pinned_by, created_at) VALUES (@session_id, @tag, @text, @pinned_by, @now)
     ON CONFLICT (session_id, tag) DO NOTHING`,
  ).run({ session_id: sessionId, tag: pin.tag, text: pin.text, pinned_by: pin.pinnedBy, now })
  return result.changes > 0
}

/** The session's pins, by tag. */
export function listPins(db: Database, sessionId: string): StoredPin[] {
  return statement(db, "SELECT tag, text, pinned_by FROM pins WHERE session_id = ? ORDER BY tag")
    .all([sessionId])
    .map((row) => ({ tag: Number(row["tag"]), text: String(row["text"]), pinnedBy: String(row["pinned_by"]) as StoredPin["pinnedBy"] }))
}
