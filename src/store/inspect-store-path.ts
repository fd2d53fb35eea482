import { accessSync, closeSync, constants, openSync, readSync, statSync, type Stats } from "node:fs"
import { dirname } from "node:path"
import { PluginError } from "../plugin-error.js"
import { errorCode, errorMessage } from "./error-details.js"
import { emptyStore, folderNotWritable, notAFile, storeNotWritable, unreadableWal } from "./store-problems.js"

/** The first 32 bytes of a -wal file: magic (either byte order of the checksums), format version, and so on. */
const WAL_HEADER_BYTES = 32
const WAL_MAGICS = new Set([0x377f0682, 0x377f0683])
const WAL_FORMAT_VERSION = 3_007_000

/**
 * Looks at the store path before SQLite touches it, for what SQLite would get wrong or explain badly: a directory or
 * FIFO at the path (a FIFO blocks or fails with "disk I/O error"), an empty file (SQLite would silently make a new
 * store of it), a -wal file with a garbage header (SQLite would silently discard it), and a file or folder this user
 * cannot write. Returns whether a store file is there; throws the refusal otherwise. Reads, never writes.
 */
export function inspectStorePath(file: string): "missing" | "present" {
  const stat = statOf(file)
  if (stat === null) return "missing"
  if (stat.isDirectory()) throw notAFile(file, "a directory")
  if (!stat.isFile()) throw notAFile(file, "a FIFO, socket or device")
  if (stat.size === 0) throw emptyStore(file)
  if (!allowed(file, constants.R_OK | constants.W_OK)) {
    throw storeNotWritable(file, { mode: stat.mode & 0o7777, readable: allowed(file, constants.R_OK) })
  }
  assertFolderWritable(file)
  if (!walReadable(`${file}-wal`)) throw unreadableWal(file)
  return "present"
}

/** Throws when this user cannot create files in the store's folder (the folder must exist). */
export function assertFolderWritable(file: string): void {
  const folder = dirname(file)
  if (!allowed(folder, constants.W_OK | constants.X_OK)) throw folderNotWritable(file, folder)
}

/** True when there is no -wal, an empty one, or one that starts with a SQLite WAL header. */
function walReadable(wal: string): boolean {
  const stat = statOf(wal)
  if (stat === null || (stat.isFile() && stat.size === 0)) return true
  if (!stat.isFile() || stat.size < WAL_HEADER_BYTES) return false
  const header = Buffer.alloc(WAL_HEADER_BYTES)
  try {
    const fd = openSync(wal, "r")
    try {
      readSync(fd, header, 0, WAL_HEADER_BYTES, 0)
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    throw new PluginError("db_open_failed", `${wal}: cannot read the store's write-ahead log: ${errorMessage(error)}`, { file: wal })
  }
  return WAL_MAGICS.has(header.readUInt32BE(0)) && header.readUInt32BE(4) === WAL_FORMAT_VERSION
}

/** The path's stat, or null when nothing is there (also when a folder on the way is a file: creating it will say so). */
function statOf(path: string): Stats | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null
  } catch (error) {
    if (errorCode(error) === "ENOTDIR") return null
    throw new PluginError("db_open_failed", `${path}: cannot look at the store: ${errorMessage(error)}`, { file: path })
  }
}

function allowed(path: string, mode: number): boolean {
  try {
    accessSync(path, mode)
    return true
  } catch {
    return false
  }
}
