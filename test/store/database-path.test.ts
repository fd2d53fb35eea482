import { homedir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { defaultDatabasePath } from "../../src/store/database-path.js"

describe("defaultDatabasePath", () => {
  it.each([
    [{ XDG_DATA_HOME: "/x/data", HOME: "/home/me" }, "/x/data/magic-context/magic-context.db"],
    [{ XDG_DATA_HOME: "", HOME: "/home/me" }, "/home/me/.local/share/magic-context/magic-context.db"],
    [{ HOME: "/home/me" }, "/home/me/.local/share/magic-context/magic-context.db"],
    [{}, join(homedir(), ".local", "share", "magic-context", "magic-context.db")],
  ])("resolves %j to %s", (env, expected) => {
    expect(defaultDatabasePath(env)).toBe(expected)
  })
})
