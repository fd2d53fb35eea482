import { PluginError } from "../plugin-error.js"

/**
 * What magic-context says when it refuses a store file: which file, what is wrong with it, and what to do. The
 * plugin, `replay --db`, `status` and `doctor` all show these messages as they are.
 */

const MOVE_ASIDE =
  "Move it aside (with its -wal and -shm files, if any) and magic-context starts a fresh store there"
const ELSEWHERE = "or set database.path (replay: --db) to another file"

/** The file is not an intact SQLite store: it must be moved aside, nothing here can repair it. */
export function corruptStore(file: string, problem: string, options: { recoverable: boolean }): PluginError {
  const recover = options.recoverable ? "; sqlite3's .recover may still read some of the moved copy" : ""
  return new PluginError("db_corrupt", `${file}: ${problem}. ${MOVE_ASIDE}${recover}.`, { file })
}

/** A zero-byte file at the store path (magic-context never leaves one: a new store is linked into place whole). */
export function emptyStore(file: string): PluginError {
  return corruptStore(file, "the file is empty (0 bytes), so it holds no store", { recoverable: false })
}

/** A -wal file SQLite would silently throw away on open, with every transaction in it. */
export function unreadableWal(file: string): PluginError {
  const wal = `${file}-wal`
  return new PluginError(
    "db_corrupt",
    `${wal}: the store's write-ahead log is not a SQLite write-ahead log (its header is unreadable); SQLite would ` +
      `discard it, and every transaction in it, without a word. Move ${wal} aside to open the store as it was ` +
      `before those transactions, or move the store ${file} aside with its -wal and -shm files and magic-context ` +
      "starts a fresh store there.",
    { file, wal },
  )
}

/** Something other than a regular file stands at the store path. */
export function notAFile(file: string, what: "a directory" | "a FIFO, socket or device"): PluginError {
  const fix = what === "a directory" ? "Remove or rename the directory" : "Remove it"
  return new PluginError(
    "db_open_failed",
    `${file}: is ${what} (not a regular file), so it cannot hold the store. ${fix}, ${ELSEWHERE}.`,
    { file },
  )
}

/** The store file cannot be read or written by this user. */
export function storeNotWritable(file: string, options: { mode: number; readable: boolean }): PluginError {
  const mode = options.mode.toString(8).padStart(4, "0")
  const state = options.readable ? "is read-only" : "cannot be read"
  return new PluginError(
    "db_open_failed",
    `${file}: ${state} for this user (mode ${mode}); magic-context reads and writes its store. ` +
      `Make it the user's own (chmod u+rw ${file}), ${ELSEWHERE}.`,
    { file, mode },
  )
}

/** The store's folder does not let this user create files (SQLite keeps the -wal and -shm beside the store). */
export function folderNotWritable(file: string, folder: string): PluginError {
  return new PluginError(
    "db_open_failed",
    `${file}: its folder ${folder} is not writable for this user; SQLite keeps the store's write-ahead log ` +
      `(-wal, -shm) beside it. Make the folder writable (chmod u+rwx ${folder}), ${ELSEWHERE} in a writable folder.`,
    { file, folder },
  )
}
