import { createRequire } from "node:module"
import { dirname, sep } from "node:path"
import type BetterSqlite3 from "better-sqlite3"
import { PluginError } from "../plugin-error.js"
import { chooseNodeDriver, type NodeDriverChoice, type NodeDriverProbe } from "./driver-choice.js"
import type { Database } from "./driver.js"
import { openNodeDatabase } from "./driver-node.js"
import { loadNodeSqlite, openNodeSqliteDatabase } from "./driver-node-sqlite.js"

let probed: NodeDriverProbe | undefined

/** Tries each Node driver on an in-memory database, once per process. */
export function probeNodeDrivers(): NodeDriverProbe {
  probed ??= {
    betterSqlite3: loadError(() => {
      const Driver = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3
      new Driver(":memory:").close()
    }),
    nodeSqlite: loadError(() => {
      const { DatabaseSync } = loadNodeSqlite()
      new DatabaseSync(":memory:").close()
    }),
    node: { version: process.versions.node, execPath: process.execPath },
    betterSqlite3Root: betterSqlite3Root(),
  }
  return probed
}

/** The driver the store uses in this Node process (see chooseNodeDriver). */
export function nodeDriverChoice(): NodeDriverChoice {
  return chooseNodeDriver(probeNodeDrivers())
}

/** Opens `file` with the chosen Node driver; a PluginError (db_driver_unavailable) saying how to rebuild when none loads. */
export function openNodeRuntimeDatabase(file: string, options: { readOnly?: boolean } = {}): Database {
  const choice = nodeDriverChoice()
  if (choice.driver === "better-sqlite3") return openNodeDatabase(file, options)
  if (choice.driver === "node:sqlite") return openNodeSqliteDatabase(file, options)
  throw noDriverError(file, choice.message)
}

/** Throws db_driver_unavailable for the store at `file` when no Node driver loads, before anything touches the file. */
export function assertNodeDriver(file: string): void {
  const choice = nodeDriverChoice()
  if (choice.driver === null) throw noDriverError(file, choice.message)
}

function noDriverError(file: string, message: string): PluginError {
  return new PluginError("db_driver_unavailable", `${file}: cannot open the store: ${message}`, { file })
}

function loadError(load: () => void): string | null {
  try {
    load()
    return null
  } catch (error) {
    // better-sqlite3's messages run over lines ("... was compiled against ... This version of Node.js requires ...",
    // or a list of every path it tried): the first four say what is wrong.
    const message = error instanceof Error ? error.message : String(error)
    return message.split("\n").map((line) => line.trim()).filter((line) => line !== "").slice(0, 4).join(" ")
  }
}

/** The folder whose node_modules holds better-sqlite3, or null when it is not installed. */
function betterSqlite3Root(): string | null {
  try {
    const manifest = createRequire(import.meta.url).resolve("better-sqlite3/package.json")
    const marker = `${sep}node_modules${sep}`
    const packageDir = dirname(manifest)
    const at = packageDir.lastIndexOf(marker)
    return at === -1 ? dirname(packageDir) : packageDir.slice(0, at)
  } catch {
    return null
  }
}
