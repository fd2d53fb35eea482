import BetterSqlite3 from "better-sqlite3"

/** Another connection holding the write lock on a store file (as a second process would), until `release()`. */
export type StoreLock = { release(): void }

/**
 * Takes `BEGIN EXCLUSIVE` on `file` with a connection of its own (creating the file when missing). In WAL mode that
 * blocks every writer and leaves readers alone; in rollback mode (a fresh file) it blocks readers too.
 */
export function holdStoreLock(file: string): StoreLock {
  const db = new BetterSqlite3(file)
  db.exec("BEGIN EXCLUSIVE")
  return {
    release() {
      db.exec("ROLLBACK")
      db.close()
    },
  }
}
