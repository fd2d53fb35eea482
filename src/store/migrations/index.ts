import type { Database } from "../driver.js"
import { migrateTo0001 } from "./0001-initial.js"
import { migrateTo0002 } from "./0002-context-reduction.js"
import { migrateTo0003 } from "./0003-pins.js"
import { migrateTo0004 } from "./0004-pi-sessions.js"
import { migrateTo0005 } from "./0005-withheld-reasoning.js"
import { migrateTo0006 } from "./0006-error-origin.js"

export type Migration = {
  version: number
  up: (db: Database) => void
  /** The migration rebuilds a table other tables reference: it runs with foreign keys off, checked before commit. */
  rebuildsTables?: true
}

/** Every schema version, in order. Append only; never edit a migration that has shipped. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, up: migrateTo0001 },
  { version: 2, up: migrateTo0002 },
  { version: 3, up: migrateTo0003 },
  { version: 4, up: migrateTo0004, rebuildsTables: true },
  { version: 5, up: migrateTo0005 },
  { version: 6, up: migrateTo0006 },
]

/** The schema version this code writes. */
export const SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0

/** Throws when the registry is not strictly increasing from 1 (a programming error). */
export function assertMonotonic(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`migration registry out of order at position ${index}: version ${migration.version}`)
    }
  })
}
