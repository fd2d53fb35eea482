/**
 * The driver seam: the six things the store needs from SQLite. Inside OpenCode (Bun) it is backed by
 * `bun:sqlite`; under Node (Pi, tests, CLI, lab) by `better-sqlite3`, or by the built-in `node:sqlite` when
 * better-sqlite3's native module does not load in the running Node (driver-choice.ts). Nothing outside `store/` sees
 * a driver.
 */

export type SqlValue = string | number | bigint | null | Uint8Array
export type SqlParams = Record<string, SqlValue> | SqlValue[]
export type Row = Record<string, SqlValue>

export type RunResult = { changes: number; lastInsertRowid: number }

export interface Statement {
  get(params?: SqlParams): Row | undefined
  all(params?: SqlParams): Row[]
  run(params?: SqlParams): RunResult
}

export interface Database {
  /** Which driver backs this connection. */
  readonly driver: "bun:sqlite" | "better-sqlite3" | "node:sqlite"
  exec(sql: string): void
  /**
   * A new statement. The Bun driver keeps each one until the connection closes (to finalize it there): a statement
   * run again and again comes from `statement()` (statements.ts), prepared once per connection.
   */
  prepare(sql: string): Statement
  /** Runs `fn` inside one transaction (BEGIN IMMEDIATE ... COMMIT, ROLLBACK on throw). Not reentrant. */
  transaction<T>(fn: () => T): T
  close(): void
}

/** Adds the explicit BEGIN IMMEDIATE / COMMIT transaction every driver shares. */
export function wrapTransactions(base: Omit<Database, "transaction">): Database {
  let depth = 0
  return {
    ...base,
    transaction<T>(fn: () => T): T {
      if (depth > 0) throw new Error("store transactions are not reentrant")
      // BEGIN may fail (another process holds the lock): nothing is open then, and the next call must be able to begin.
      base.exec("BEGIN IMMEDIATE")
      depth += 1
      try {
        const value = fn()
        base.exec("COMMIT")
        return value
      } catch (error) {
        base.exec("ROLLBACK")
        throw error
      } finally {
        depth -= 1
      }
    },
  }
}
