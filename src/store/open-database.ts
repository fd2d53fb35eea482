import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs"
import { dirname } from "node:path"
import { PluginError } from "../plugin-error.js"
import { setBusyTimeout } from "./busy-timeout.js"
import type { Database } from "./driver.js"
import { assertNotFromFuture, migrate } from "./migrate.js"

export const MEMORY_DATABASE = ":memory:"

/** How long a statement waits for another connection's lock unless the caller says otherwise (the CLI). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000

/**
 * Opens (creating if needed) the store at `file` with the driver of the running runtime (`bun:sqlite` inside
 * OpenCode, `better-sqlite3` under Node), applies the connection settings and migrates the schema.
 * A new file and its folder are created readable by the owner only; an existing file others can read is tightened.
 * `busyTimeoutMs` is how long a statement waits for another process's lock before failing with SQLITE_BUSY.
 */
export async function openDatabase(file: string, options: { busyTimeoutMs?: number } = {}): Promise<Database> {
  const isFile = file !== MEMORY_DATABASE
  const isNew = isFile && !existsSync(file)
  if (isFile) createFolder(file)
  const db = await openWithRuntimeDriver(file)
  try {
    if (isNew) chmodSync(file, 0o600)
    else if (isFile) tightenMode(file)
    setBusyTimeout(db, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS)
    // Refuse a store from a newer version before anything (such as the journal mode) touches its file.
    assertNotFromFuture(db, file)
    applyConnectionSettings(db, isFile)
    migrate(db, { file })
    recordOpener(db)
    return db
  } catch (error) {
    db.close()
    if (error instanceof PluginError) throw error
    throw new PluginError("db_open_failed", `${file}: cannot use this file as the magic-context store: ${message(error)}`, {
      file,
    })
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
    throw new PluginError("db_open_failed", `${file}: cannot create the folder of the store: ${message(error)}`, {
      file,
    })
  }
}

/** True when running inside Bun (OpenCode's plugin runtime). */
export function isBunRuntime(): boolean {
  return typeof process !== "undefined" && typeof process.versions?.["bun"] === "string"
}

async function openWithRuntimeDriver(file: string): Promise<Database> {
  try {
    if (isBunRuntime()) {
      const { openBunDatabase } = await import("./driver-bun.js")
      return openBunDatabase(file)
    }
    const { openNodeDatabase } = await import("./driver-node.js")
    return openNodeDatabase(file)
  } catch (error) {
    throw new PluginError("db_open_failed", `${file}: cannot open the database: ${message(error)}`, { file })
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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
