/** Which SQLite driver the store uses under Node, from what loads in the running Node. Pure. */

export type NodeDriverName = "better-sqlite3" | "node:sqlite"

/** What loading each driver in the running Node gave: null when it loads, else why not (the error's first line). */
export type NodeDriverProbe = {
  betterSqlite3: string | null
  nodeSqlite: string | null
  /** The running Node: its version ("22.23.5") and binary. */
  node: { version: string; execPath: string }
  /** The directory whose `node_modules` holds better-sqlite3 (where `npm rebuild` runs), when it is installed. */
  betterSqlite3Root: string | null
}

export type NodeDriverChoice =
  | { driver: "better-sqlite3" }
  /** better-sqlite3 does not load (`reason`); Node's built-in module serves instead. */
  | { driver: "node:sqlite"; reason: string }
  /** Neither loads: `message` says why and how to rebuild. */
  | { driver: null; message: string }

/**
 * better-sqlite3 when its native module loads (the driver the store is measured with), else Node's built-in
 * `node:sqlite` (Node >= 22.13), else none, with the exact command that rebuilds better-sqlite3 for the running Node.
 */
export function chooseNodeDriver(probe: NodeDriverProbe): NodeDriverChoice {
  if (probe.betterSqlite3 === null) return { driver: "better-sqlite3" }
  if (probe.nodeSqlite === null) return { driver: "node:sqlite", reason: `better-sqlite3 does not load: ${probe.betterSqlite3}` }
  return { driver: null, message: noDriverMessage(probe) }
}

/** The fix when neither driver loads, as one line (the store's error, `/ctx-status` and `doctor` show it). */
export function rebuildAdvice(probe: Pick<NodeDriverProbe, "node" | "betterSqlite3Root">): string {
  const node = `Node ${probe.node.version} (${probe.node.execPath})`
  const instead = hasNodeSqlite(probe.node.version) ? "" : "; or run the host on Node >= 22.13, whose built-in node:sqlite magic-context uses instead"
  if (probe.betterSqlite3Root === null) {
    return `install magic-context's dependencies with ${node} (npm install in the folder holding magic-context)${instead}`
  }
  const path = `${dirnameOf(probe.node.execPath)}:$PATH`
  return `rebuild it for ${node}: cd ${JSON.stringify(probe.betterSqlite3Root)} && PATH="${path}" npm rebuild better-sqlite3${instead}`
}

function noDriverMessage(probe: NodeDriverProbe): string {
  const why = hasNodeSqlite(probe.node.version)
    ? "this Node has it unless it is switched off, e.g. by --no-experimental-sqlite in NODE_OPTIONS"
    : "it needs Node >= 22.13"
  return (
    `no SQLite driver loads in Node ${probe.node.version}: better-sqlite3 does not load (${probe.betterSqlite3}) and ` +
    `Node's built-in node:sqlite is not available (${probe.nodeSqlite}; ${why}). Fix: ${rebuildAdvice(probe)}`
  )
}

/** True for a Node whose node:sqlite loads without a flag (22.13 and later). */
function hasNodeSqlite(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  return major > 22 || (major === 22 && minor >= 13)
}

function dirnameOf(file: string): string {
  const at = file.lastIndexOf("/")
  return at <= 0 ? "/" : file.slice(0, at)
}
