import { describe, expect, it } from "vitest"
import { chooseNodeDriver, type NodeDriverProbe } from "../../src/store/driver-choice.js"

const ABI = "The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 127."

function probe(overrides: Partial<NodeDriverProbe>): NodeDriverProbe {
  return {
    betterSqlite3: null,
    nodeSqlite: null,
    node: { version: "22.23.5", execPath: "/opt/node22/bin/node" },
    betterSqlite3Root: "/app",
    ...overrides,
  }
}

describe("chooseNodeDriver", () => {
  it("takes better-sqlite3 whenever its native module loads, even where node:sqlite exists too", () => {
    expect(chooseNodeDriver(probe({}))).toEqual({ driver: "better-sqlite3" })
    expect(chooseNodeDriver(probe({ nodeSqlite: "No such built-in module: node:sqlite" }))).toEqual({ driver: "better-sqlite3" })
  })

  it("falls back to node:sqlite when better-sqlite3 was built for another Node, saying why", () => {
    expect(chooseNodeDriver(probe({ betterSqlite3: ABI }))).toEqual({ driver: "node:sqlite", reason: `better-sqlite3 does not load: ${ABI}` })
  })

  it("says, when neither loads, both reasons and the command that rebuilds better-sqlite3 for the running Node", () => {
    const choice = chooseNodeDriver(
      probe({ betterSqlite3: ABI, nodeSqlite: "No such built-in module: node:sqlite", node: { version: "20.20.2", execPath: "/usr/local/bin/node" } }),
    )
    expect(choice.driver).toBeNull()
    const message = choice.driver === null ? choice.message : ""
    expect(message).toContain("no SQLite driver loads in Node 20.20.2")
    expect(message).toContain(`better-sqlite3 does not load (${ABI})`)
    expect(message).toContain("node:sqlite is not available (No such built-in module: node:sqlite; it needs Node >= 22.13)")
    expect(message).toContain('Fix: rebuild it for Node 20.20.2 (/usr/local/bin/node): cd "/app" && PATH="/usr/local/bin:$PATH" npm rebuild better-sqlite3')
    expect(message).toMatch(/; or run the host on Node >= 22\.13, whose built-in node:sqlite magic-context uses instead$/)
  })

  it("says node:sqlite is switched off, not missing, in a Node that has it, and offers no other Node", () => {
    const choice = chooseNodeDriver(probe({ betterSqlite3: ABI, nodeSqlite: "No such built-in module: node:sqlite" }))
    const message = choice.driver === null ? choice.message : ""
    expect(message).toContain("(No such built-in module: node:sqlite; this Node has it unless it is switched off, e.g. by --no-experimental-sqlite in NODE_OPTIONS)")
    expect(message).toMatch(/npm rebuild better-sqlite3$/)
  })

  it("asks for an install where better-sqlite3 is not installed at all", () => {
    const choice = chooseNodeDriver(probe({ betterSqlite3: "Cannot find module 'better-sqlite3'", nodeSqlite: "No such built-in module: node:sqlite", betterSqlite3Root: null }))
    expect(choice.driver === null ? choice.message : "").toContain("Fix: install magic-context's dependencies with Node 22.23.5 (/opt/node22/bin/node)")
  })
})
