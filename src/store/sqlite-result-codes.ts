/**
 * SQLite's result codes by number, named as better-sqlite3 and bun:sqlite name them in an error's `code`
 * ("SQLITE_BUSY", "SQLITE_READONLY_RECOVERY", ...). `node:sqlite` reports only the number (`errcode`, the extended
 * code); the store's error handling reads the name. An extended code missing here is named by its primary code.
 */
const PRIMARY: readonly string[] = [
  "OK", "ERROR", "INTERNAL", "PERM", "ABORT", "BUSY", "LOCKED", "NOMEM", "READONLY", "INTERRUPT", "IOERR", "CORRUPT",
  "NOTFOUND", "FULL", "CANTOPEN", "PROTOCOL", "EMPTY", "SCHEMA", "TOOBIG", "CONSTRAINT", "MISMATCH", "MISUSE", "NOLFS",
  "AUTH", "FORMAT", "RANGE", "NOTADB", "NOTICE", "WARNING",
]

const EXTENDED: ReadonlyMap<number, string> = new Map([
  [261, "BUSY_RECOVERY"], [517, "BUSY_SNAPSHOT"], [773, "BUSY_TIMEOUT"],
  [262, "LOCKED_SHAREDCACHE"], [518, "LOCKED_VTAB"],
  [264, "READONLY_RECOVERY"], [520, "READONLY_CANTLOCK"], [776, "READONLY_ROLLBACK"], [1032, "READONLY_DBMOVED"],
  [1288, "READONLY_CANTINIT"], [1544, "READONLY_DIRECTORY"],
  [267, "CORRUPT_VTAB"], [523, "CORRUPT_SEQUENCE"], [779, "CORRUPT_INDEX"],
  [270, "CANTOPEN_NOTEMPDIR"], [526, "CANTOPEN_ISDIR"], [782, "CANTOPEN_FULLPATH"], [1038, "CANTOPEN_CONVPATH"],
  [275, "CONSTRAINT_CHECK"], [531, "CONSTRAINT_COMMITHOOK"], [787, "CONSTRAINT_FOREIGNKEY"],
  [1043, "CONSTRAINT_FUNCTION"], [1299, "CONSTRAINT_NOTNULL"], [1555, "CONSTRAINT_PRIMARYKEY"],
  [1811, "CONSTRAINT_TRIGGER"], [2067, "CONSTRAINT_UNIQUE"], [2323, "CONSTRAINT_VTAB"], [2579, "CONSTRAINT_ROWID"],
  [3091, "CONSTRAINT_DATATYPE"],
])

/** The name of SQLite result code `code` (extended or primary), e.g. 2067 -> "SQLITE_CONSTRAINT_UNIQUE". */
export function sqliteCodeName(code: number): string {
  const extended = EXTENDED.get(code)
  if (extended !== undefined) return `SQLITE_${extended}`
  const primary = PRIMARY[code & 0xff]
  return primary === undefined ? `SQLITE_UNKNOWN_${code}` : `SQLITE_${primary}`
}
