import { randomBytes } from "node:crypto"
import { existsSync, linkSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { PluginError } from "../plugin-error.js"
import { errorCode, errorMessage } from "./error-details.js"

/**
 * Creates a new store at `file` so that the path never holds a half-made one: `initialize` builds it (schema and
 * all) under a hidden temporary name beside it, which is then hard-linked into place. A kill -9 before the link
 * leaves only the temporary file; a zero-byte or schema-less file at the store path is therefore never ours, and is
 * refused rather than taken for a new store. If another process created the store in the meantime the link fails
 * and theirs is used. The temporary file is owner-only from its first byte.
 */
export async function createStoreFile(file: string, initialize: (temp: string) => Promise<void>): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.creating-${process.pid}-${randomBytes(4).toString("hex")}`)
  try {
    writeFileSync(temp, "", { mode: 0o600, flag: "wx" })
    await initialize(temp)
    linkIntoPlace(temp, file)
  } catch (error) {
    if (error instanceof PluginError) throw error
    throw new PluginError("db_open_failed", `${file}: cannot create the store: ${errorMessage(error)}`, { file })
  } finally {
    for (const path of [temp, `${temp}-wal`, `${temp}-shm`]) rmSync(path, { force: true })
  }
}

/** Error codes of a file system without hard links (FAT, some network shares). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"])

/**
 * Puts the finished store at `file` unless one is already there. Without hard links a rename is used, only when no
 * store is there (a store another process creates between that check and the rename would be replaced).
 */
export function linkIntoPlace(temp: string, file: string, link: (from: string, to: string) => void = linkSync): void {
  try {
    link(temp, file)
  } catch (error) {
    const code = errorCode(error)
    if (code === "EEXIST") return
    if (!NO_HARD_LINKS.has(code)) throw error
    if (!existsSync(file)) renameSync(temp, file)
  }
}
