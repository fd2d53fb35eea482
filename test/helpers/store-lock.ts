import BetterSqlite3 from "better-sqlite3"

/** Another connection holding the write lock on a store file (as a second process would), until `release()`. */
export type StoreLock = { release(): void }

/**
 * Takes `BEGIN EXCLUSIVE` on the store at `file` with a connection of its own. In WAL mode (every store magic-context
 * makes) that blocks every writer and leaves readers alone. The store must exist: a lock on a missing path would leave
 * an empty file there, which the store refuses (an empty file is never one of ours: stores are created whole).
 */
export function holdStoreLock(file: string): StoreLock {
  const db = new BetterSqlite3(file, { fileMustExist: true })
  db.exec("BEGIN EXCLUSIVE")
  return {
    release() {
      db.exec("ROLLBACK")
      db.close()
    },
  }
}
