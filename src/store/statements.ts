import type { Database, Statement } from "./driver.js"

const cache = new WeakMap<Database, Map<string, Statement>>()

/** The prepared statement for `sql` on this connection, prepared once and reused. */
export function statement(db: Database, sql: string): Statement {
  let perConnection = cache.get(db)
  if (!perConnection) {
    perConnection = new Map()
    cache.set(db, perConnection)
  }
  const existing = perConnection.get(sql)
  if (existing) return existing
  const prepared = db.prepare(sql)
  perConnection.set(sql, prepared)
  return prepared
}
