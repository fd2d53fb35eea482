import { homedir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { configuredDatabasePath, defaultDatabasePath } from "../../src/store/database-path.js"

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

describe("configuredDatabasePath", () => {
  it.each([
    [null, { HOME: "/home/me", XDG_DATA_HOME: "/x/data" }, "/x/data/magic-context/magic-context.db"],
    ["~/stores/mc.db", { HOME: "/home/me" }, "/home/me/stores/mc.db"],
    ["~", { HOME: "/home/me" }, "/home/me"],
    ["/srv/mc.db", { HOME: "/home/me" }, "/srv/mc.db"],
    ["relative/~/mc.db", { HOME: "/home/me" }, "relative/~/mc.db"],
    ["~other/mc.db", { HOME: "/home/me" }, "~other/mc.db"],
  ])("reads %j as %s", (configured, env, expected) => {
    expect(configuredDatabasePath(configured, env)).toBe(expected)
  })
})
