import { existsSync } from "node:fs"
import { openStoreReadOnly } from "../../test/e2e/harness/store-reader.js"

/**
 * magic-context's transform-pass decisions (`execute` or `replay`) in order, read from its store in the sandbox, or
 * null when there is no store (another configuration) or it cannot be read.
 */
export function readPassDecisions(databaseFile: string): string[] | null {
  if (!existsSync(databaseFile)) return null
  try {
    const db = openStoreReadOnly(databaseFile)
    try {
      const rows = db.prepare("SELECT decision FROM passes WHERE trigger = 'transform' ORDER BY seq").all()
      return rows.map((row) => String((row as { decision: unknown }).decision))
    } finally {
      db.close()
    }
  } catch {
    return null
  }
}
