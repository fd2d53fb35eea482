import { statSync } from "node:fs"
import { PluginError } from "../plugin-error.js"
import { setBusyTimeout } from "./busy-timeout.js"
import type { Database } from "./driver.js"
import { errorMessage } from "./error-details.js"
import { assertNotFromFuture, readSchemaVersion } from "./migrate.js"
import { SCHEMA_VERSION } from "./migrations/index.js"
import { openWithRuntimeDriver } from "./open-database.js"
import { notAFile } from "./store-problems.js"

/** How long a read waits for a writer's lock: a viewer never holds up its host for long. */
const READER_BUSY_TIMEOUT_MS = 250

/**
 * A read-only connection to an existing store, for viewers that must never change it (the TUI panel): no
 * migration, no opener note, no integrity check (a viewer opens often; the plugin checks the file when it opens it).
 * A store from a newer magic-context is refused with `db_from_future`; one the plugin has not migrated yet with
 * `db_open_failed` saying so; a path that is not a regular file (a FIFO would block the open forever) is refused
 * before SQLite touches it. The caller checks that the file exists.
 */
export async function openStoreReader(file: string): Promise<Database> {
  const stat = statSync(file)
  if (stat.isDirectory()) throw notAFile(file, "a directory")
  if (!stat.isFile()) throw notAFile(file, "a FIFO, socket or device")
  const db = await openWithRuntimeDriver(file, { readOnly: true })
  try {
    setBusyTimeout(db, READER_BUSY_TIMEOUT_MS)
    assertNotFromFuture(db, file)
    const version = readSchemaVersion(db)
    if (version < SCHEMA_VERSION) {
      throw new PluginError(
        "db_open_failed",
        `${file} has schema version ${version}; the plugin migrates it to ${SCHEMA_VERSION} when it next opens it`,
        { file, version },
      )
    }
    return db
  } catch (error) {
    db.close()
    if (error instanceof PluginError) throw error
    throw new PluginError("db_open_failed", `${file}: cannot read the store: ${errorMessage(error)}`, { file })
  }
}
