import { PluginError } from "../plugin-error.js"
import type { Database } from "./driver.js"
import { errorMessage } from "./error-details.js"
import { MIGRATIONS, SCHEMA_VERSION, assertMonotonic, type Migration } from "./migrations/index.js"

/** Reads `PRAGMA user_version`. */
export function readSchemaVersion(db: Database): number {
  const row = db.prepare("PRAGMA user_version").get()
  return Number(row?.["user_version"] ?? 0)
}

/**
 * Brings the schema up to the newest version, one transaction per migration. A database written by a newer
 * version of magic-context is refused with `db_from_future` rather than read with the wrong schema.
 */
export function migrate(
  db: Database,
  options: { file: string; migrations?: readonly Migration[]; upTo?: number },
): { from: number; to: number } {
  const migrations = options.migrations ?? MIGRATIONS
  assertMonotonic(migrations)
  const newest = migrations[migrations.length - 1]?.version ?? 0
  const target = options.upTo ?? newest
  const from = readSchemaVersion(db)
  assertNotFromFuture(db, options.file, newest)
  for (const migration of migrations) {
    if (migration.version <= from || migration.version > target) continue
    // Foreign keys can only be switched outside a transaction; a rebuilt parent table would otherwise cascade its
    // DROP into every child row.
    const keysWereOn = migration.rebuildsTables === true && foreignKeysOn(db)
    if (keysWereOn) db.exec("PRAGMA foreign_keys = OFF")
    try {
      db.transaction(() => {
        migration.up(db)
        if (migration.rebuildsTables) assertForeignKeysHold(db)
        db.exec(`PRAGMA user_version = ${migration.version}`)
      })
    } catch (error) {
      throw new PluginError(
        "migration_failed",
        `${options.file}: migration to schema version ${migration.version} failed: ${errorMessage(error)}`,
        { file: options.file, version: migration.version },
      )
    } finally {
      if (keysWereOn) db.exec("PRAGMA foreign_keys = ON")
    }
  }
  return { from, to: Math.max(from, Math.min(target, newest)) }
}

function foreignKeysOn(db: Database): boolean {
  return Number(db.prepare("PRAGMA foreign_keys").get()?.["foreign_keys"] ?? 0) === 1
}

/** Throws when a row references a parent that is not there (a rebuild that lost rows). */
function assertForeignKeysHold(db: Database): void {
  const broken = db.prepare("PRAGMA foreign_key_check").all()
  if (broken.length > 0) throw new Error(`${broken.length} rows reference missing parents after the rebuild (first: ${JSON.stringify(broken[0])})`)
}

/** Throws `db_from_future` when the store's schema is newer than the newest version this code knows. */
export function assertNotFromFuture(db: Database, file: string, newest: number = SCHEMA_VERSION): void {
  const version = readSchemaVersion(db)
  if (version <= newest) return
  throw new PluginError(
    "db_from_future",
    `${file} has schema version ${version}, but this magic-context understands versions up to ${newest}. ` +
      `It was written by a newer magic-context: upgrade magic-context, or point database.path at another file.`,
    { file, version, supported: newest },
  )
}
