import type { Database } from "../driver.js"

/**
 * `errors.instance_id` and `errors.directory`: the host instance (one plugin runtime in one process) that recorded an
 * error and its project directory. An error with no session (one at `dispose`, say) is shown only in that instance's
 * `/ctx-status` and in `magic-context status` of that directory; NULL on a row that names neither, which no listing of
 * sessionless errors then shows.
 */
export function migrateTo0006(db: Database): void {
  db.exec("ALTER TABLE errors ADD COLUMN instance_id TEXT")
  db.exec("ALTER TABLE errors ADD COLUMN directory TEXT")
}
