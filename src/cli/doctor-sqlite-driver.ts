import type { NodeDriverChoice } from "../store/driver-choice.js"
import { nodeDriverChoice } from "../store/driver-probe.js"
import type { Check } from "./doctor-check.js"

/**
 * Which SQLite driver the store opens with in this Node (the one running doctor; a host on another Node may differ):
 * better-sqlite3, Node's built-in node:sqlite where better-sqlite3's native module does not load (a warning, with
 * why), or none, a failure with the command that rebuilds better-sqlite3 for this Node.
 */
export function checkSqliteDriver(choice: NodeDriverChoice = nodeDriverChoice()): Check {
  const name = "SQLite driver"
  const node = `Node ${process.versions.node} (${process.execPath})`
  if (choice.driver === "better-sqlite3") return { name, status: "ok", detail: [`better-sqlite3 loads in ${node}`] }
  if (choice.driver === "node:sqlite") {
    return {
      name,
      status: "warn",
      detail: [
        `the store uses Node's built-in node:sqlite in ${node}: ${choice.reason}`,
        "  fix (optional, better-sqlite3 is the driver the store is measured with): npm rebuild better-sqlite3 with this Node, in the folder holding magic-context's node_modules",
      ],
    }
  }
  return { name, status: "fail", detail: [choice.message] }
}
