import { chmodSync, mkdirSync, statSync } from "node:fs"
import { dirname } from "node:path"
import { PluginError } from "../plugin-error.js"
import { assertIntact, storeReadError } from "./check-integrity.js"
import { createStoreFile } from "./create-store-file.js"
import { setBusyTimeout } from "./busy-timeout.js"
import type { Database } from "./driver.js"
import { errorCode, errorMessage } from "./error-details.js"
import { assertFolderWritable, inspectStorePath } from "./inspect-store-path.js"
import { assertNotFromFuture, migrate, readSchemaVersion } from "./migrate.js"

export const MEMORY_DATABASE = ":memory:"

/** How long a statement waits for another connection's lock unless the caller says otherwise (the CLI). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000

/**
 * Opens (creating if needed) the store at `file` with the driver of the running runtime (`bun:sqlite` inside
 * OpenCode; under Node `better-sqlite3`, or `node:sqlite` where better-sqlite3's native module does not load), applies the connection settings and migrates the schema.
 * An existing file is looked at before anything writes to it: a path that holds no usable store (see
 * `inspectStorePath`), a store from a newer version, or one that fails SQLite's quick check is refused with a
 * PluginError saying which file, what is wrong and what to do, and is left exactly as it was.
 * A new store is created whole (`createStoreFile`); it and its folder are readable by the owner only, and an existing
 * file others can read is tightened.
 * `busyTimeoutMs` is how long a statement waits for another process's lock before failing with SQLITE_BUSY.
 */
export async function openDatabase(file: string, options: { busyTimeoutMs?: number } = {}): Promise<Database> {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS
  if (!isBunRuntime()) (await import("./driver-probe.js")).assertNodeDriver(file)
  if (file === MEMORY_DATABASE) return connect(file, { isFile: false, busyTimeoutMs })
  if (inspectStorePath(file) === "missing") {
    createFolder(file)
    assertFolderWritable(file)
    await createStoreFile(file, async (temp) => (await connect(temp, { isFile: true, busyTimeoutMs })).close())
  }
  await checkStore(file, busyTimeoutMs)
  tightenMode(file)
  return connect(file, { isFile: true, busyTimeoutMs })
}

/** Opens a connection for use: busy timeout, journal mode and other settings, migrations, the opener's note. */
async function connect(file: string, options: { isFile: boolean; busyTimeoutMs: number }): Promise<Database> {
  const db = await openWithRuntimeDriver(file)
  try {
    setBusyTimeout(db, options.busyTimeoutMs)
    applyConnectionSettings(db, options.isFile)
    migrate(db, { file })
    recordOpener(db)
    return db
  } catch (error) {
    db.close()
    if (error instanceof PluginError) throw error
    throw new PluginError("db_open_failed", `${file}: cannot use this file as the magic-context store: ${errorMessage(error)}`, {
      file,
    })
  }
}

/**
 * Refuses a store from a newer version or one that fails SQLite's quick check, on a read-only connection: a
 * read-write one would checkpoint the -wal into the file when it closes, changing the very file it refuses. Only
 * when what a killed writer left needs a writer to recover (a rollback journal's hot journal) does a read-write
 * connection run SQLite's own crash recovery first, as any first reader of the file would.
 */
async function checkStore(file: string, busyTimeoutMs: number): Promise<void> {
  try {
    await checkReadOnly(file, busyTimeoutMs)
  } catch (error) {
    if (!errorCode(error).startsWith("SQLITE_READONLY_")) throw storeReadError(error, file)
    await recoverAsWriter(file, busyTimeoutMs)
    await checkReadOnly(file, busyTimeoutMs).catch((again: unknown) => {
      throw storeReadError(again, file)
    })
  }
}

async function checkReadOnly(file: string, busyTimeoutMs: number): Promise<void> {
  const db = await openWithRuntimeDriver(file, { readOnly: true })
  try {
    setBusyTimeout(db, busyTimeoutMs)
    assertNotFromFuture(db, file)
    assertIntact(db, file)
  } finally {
    db.close()
  }
}

/** Lets SQLite recover the file (reading it is enough) on a connection that may write. */
async function recoverAsWriter(file: string, busyTimeoutMs: number): Promise<void> {
  const db = await openWithRuntimeDriver(file)
  try {
    setBusyTimeout(db, busyTimeoutMs)
    readSchemaVersion(db)
  } catch (error) {
    throw storeReadError(error, file)
  } finally {
    db.close()
  }
}

/**
 * An existing store readable by others (a 0644 file from a copy or an older tool) is made the owner's only: it holds
 * whole transcripts. A file the user cannot chmod (not theirs) is left as it is; the store still opens.
 */
function tightenMode(file: string): void {
  try {
    const mode = statSync(file).mode & 0o777
    if ((mode & 0o077) !== 0) chmodSync(file, mode & 0o700)
  } catch {
    // Not ours to change; opening goes on.
  }
}

function createFolder(file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  } catch (error) {
    throw new PluginError("db_open_failed", `${file}: cannot create the folder of the store: ${errorMessage(error)}`, {
      file,
    })
  }
}

/** True when running inside Bun (OpenCode's plugin runtime). */
export function isBunRuntime(): boolean {
  return typeof process !== "undefined" && typeof process.versions?.["bun"] === "string"
}

/** A bare connection with the running runtime's driver: no settings, no migration (openDatabase, openStoreReader). */
export async function openWithRuntimeDriver(file: string, options: { readOnly?: boolean } = {}): Promise<Database> {
  try {
    if (isBunRuntime()) {
      const { openBunDatabase } = await import("./driver-bun.js")
      return openBunDatabase(file, options)
    }
    const { openNodeRuntimeDatabase } = await import("./driver-probe.js")
    return openNodeRuntimeDatabase(file, options)
  } catch (error) {
    if (error instanceof PluginError) throw error
    throw new PluginError("db_open_failed", `${file}: cannot open the database: ${errorMessage(error)}`, { file })
  }
}

/** Notes which runtime and driver last opened the store (doctor and the end-to-end test read it). */
function recordOpener(db: Database): void {
  const runtime = isBunRuntime() ? `bun ${process.versions["bun"]}` : `node ${process.versions.node}`
  db.prepare("INSERT INTO meta (key, value) VALUES ('last_opened_by', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run([
    `${db.driver} on ${runtime}`,
  ])
}

function applyConnectionSettings(db: Database, isFile: boolean): void {
  if (isFile) db.exec("PRAGMA journal_mode = WAL")
  db.exec("PRAGMA foreign_keys = ON")
  db.exec("PRAGMA synchronous = NORMAL")
}
