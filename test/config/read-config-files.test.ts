import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { readConfigFiles, readTextIfExists, userConfigDir } from "../../src/config/read-config-files.js"
import { createTempDirs, createTempHome } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()

afterEach(() => {
  dirs.cleanup()
})

function write(file: string, text: string): string {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, text)
  return file
}

describe("userConfigDir", () => {
  it.each([
    [{ XDG_CONFIG_HOME: "/xdg", HOME: "/home/me" }, "/xdg/opencode"],
    [{ XDG_CONFIG_HOME: "", HOME: "/home/me" }, "/home/me/.config/opencode"],
    [{ HOME: "/home/me" }, "/home/me/.config/opencode"],
  ])("resolves %j to %s", (env, expected) => {
    expect(userConfigDir(env)).toBe(expected)
  })
})

describe("readTextIfExists", () => {
  it("reads a file, and returns null for a missing file or a path through a file", () => {
    const root = dirs.make("read")
    const file = write(join(root, "a.txt"), "hello")
    expect(readTextIfExists(file)).toBe("hello")
    expect(readTextIfExists(join(root, "missing.txt"))).toBeNull()
    expect(readTextIfExists(join(file, "below-a-file.txt"))).toBeNull()
  })

  it("throws for other errors, such as reading a directory", () => {
    expect(() => readTextIfExists(dirs.make("read"))).toThrow(/EISDIR/)
  })
})

describe("readConfigFiles", () => {
  it("layers the user, worktree and directory files found on disk", () => {
    const { env, configHome } = createTempHome(dirs)
    const worktree = dirs.make("worktree")
    const directory = join(worktree, "packages", "app")
    const userFile = write(join(configHome, "opencode", "magic-context.jsonc"), '{ "enabled": false, // user\n}')
    const worktreeFile = write(
      join(worktree, ".opencode", "magic-context.json"),
      '{ "tokenizer": { "encoding": "cl100k_base" } }',
    )
    const directoryFile = write(join(directory, "magic-context.jsonc"), '{ "database": { "path": "/tmp/app.db" } }')

    const loaded = readConfigFiles({ directory, worktree, env })

    expect(loaded.diagnostics).toEqual([])
    expect(loaded.files).toEqual([
      { file: userFile, scope: "user" },
      { file: worktreeFile, scope: "project" },
      { file: directoryFile, scope: "project" },
    ])
    expect(loaded.config).toEqual({
      ...defaultConfig(),
      enabled: false,
      database: { path: "/tmp/app.db", busy_timeout_ms: 300 },
      tokenizer: { encoding: "cl100k_base", models: {} },
    })
    expect(loaded.sources).toMatchObject({
      enabled: userFile,
      "database.path": directoryFile,
      "tokenizer.encoding": worktreeFile,
      "tokenizer.models": "default",
    })
  })

  it("applies an explicit file last", () => {
    const { env } = createTempHome(dirs)
    const directory = dirs.make("project")
    write(join(directory, "magic-context.jsonc"), '{ "enabled": false }')
    const explicit = write(join(dirs.make("explicit"), "override.jsonc"), '{ "enabled": true }')
    const loaded = readConfigFiles({ directory, explicitFile: explicit, env })
    expect(loaded.config.enabled).toBe(true)
    expect(loaded.sources["enabled"]).toBe(explicit)
    expect(loaded.files.at(-1)).toEqual({ file: explicit, scope: "explicit" })
  })

  it("reports an explicit file that does not exist and goes on with the other files", () => {
    const { env, configHome } = createTempHome(dirs)
    write(join(configHome, "opencode", "magic-context.json"), '{ "enabled": false }')
    const missing = join(dirs.make("explicit"), "nope.jsonc")
    const loaded = readConfigFiles({ directory: dirs.make("project"), explicitFile: missing, env })
    expect(loaded.config.enabled).toBe(false)
    expect(loaded.diagnostics).toEqual([
      {
        severity: "error",
        file: missing,
        key: null,
        value: null,
        expected: "an existing file",
        message: `${missing}: the config file given does not exist`,
      },
    ])
  })

  it("reports a config path that cannot be read as a file", () => {
    const { env } = createTempHome(dirs)
    const directory = dirs.make("project")
    mkdirSync(join(directory, "magic-context.jsonc"))
    const loaded = readConfigFiles({ directory, env })
    expect(loaded.diagnostics).toHaveLength(1)
    const file = join(directory, "magic-context.jsonc")
    expect(loaded.diagnostics[0]?.message).toMatch(new RegExp(`^${file}: cannot read: .*EISDIR`))
  })
})
