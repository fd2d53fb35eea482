import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { packageRoot } from "../../src/cli/command-config.js"
import { defaultConfig } from "../../src/config/schema.js"
import { formatTable } from "../../src/report/format-table.js"
import { CONFIG_DEFAULTS, defaultSources } from "../helpers/config-keys.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))

const dirs = createTempDirs()
let home: TempHome
let project: string

beforeEach(() => {
  home = createTempHome(dirs)
  project = dirs.make("project")
})

afterEach(() => {
  dirs.cleanup()
})

const config = (...args: string[]) => runCliCaptured(["config", ...args], { env: home.env, cwd: project })

function write(file: string, text: string): string {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, text)
  return file
}

/** The table's data rows as [key, value, source], split on the two-space column gap. */
function tableRows(lines: string[]): string[][] {
  const header = lines.findIndex((line) => /^key\s+value\s+source$/.test(line))
  expect(header, "no table header").toBeGreaterThanOrEqual(0)
  expect(lines[header + 1]).toMatch(/^-+ {2}-+ {2}-+$/)
  return lines.slice(header + 2).map((line) => line.split(/ {2,}/))
}

describe("commandConfig", () => {
  it("prints every key with its default value and source", async () => {
    const { code, io } = await config()
    expect(code).toBe(0)
    expect(io.err).toEqual([])
    expect(io.out.slice(0, 2)).toEqual(["no config file found; every key has its default", ""])
    const table = formatTable(
      ["key", "value", "source"],
      CONFIG_DEFAULTS.map(([key, value]) => [key, JSON.stringify(value), "default"]),
    )
    expect(io.out.slice(2)).toEqual(table)
    // The table starts as a person reads it: header, rule, the first key.
    expect(io.out.slice(2, 5)).toEqual([
      "key                       value        source",
      "------------------------  -----------  -------",
      "enabled                   true         default",
    ])
  })

  it("names the project file a value came from (the working directory by default)", async () => {
    const text = '{ "tokenizer": { "encoding": "cl100k_base" } } // project'
    const file = write(join(project, "magic-context.jsonc"), text)
    const { code, io } = await config()
    expect(code).toBe(0)
    expect(io.out[0]).toBe(`config files (lowest precedence first): ${file}`)
    expect(tableRows(io.out).slice(0, 5)).toEqual([
      ["enabled", "true", "default"],
      ["database.path", "null", "default"],
      ["database.busy_timeout_ms", "300", "default"],
      ["tokenizer.encoding", '"cl100k_base"', file],
      ["tokenizer.models", "{}", "default"],
    ])
    expect(tableRows(io.out).slice(5).every((row) => row[2] === "default")).toBe(true)
  })

  it("reads the project given with --directory and the user file under XDG_CONFIG_HOME", async () => {
    const other = dirs.make("other")
    const projectFile = write(
      join(other, ".opencode", "magic-context.jsonc"),
      '{ "database": { "path": "/tmp/p.db" } }',
    )
    const userFile = write(join(home.configHome, "opencode", "magic-context.json"), '{ "enabled": false }')
    const { code, io } = await config("--directory", other)
    expect(code).toBe(0)
    expect(io.out[0]).toBe(`config files (lowest precedence first): ${userFile}, ${projectFile}`)
    expect(tableRows(io.out).slice(0, 5)).toEqual([
      ["enabled", "false", userFile],
      ["database.path", '"/tmp/p.db"', projectFile],
      ["database.busy_timeout_ms", "300", "default"],
      ["tokenizer.encoding", '"auto"', "default"],
      ["tokenizer.models", "{}", "default"],
    ])
  })

  it("shows the value of a model pattern that contains a dot", async () => {
    const file = write(
      join(project, "magic-context.jsonc"),
      '{ "tokenizer": { "models": { "openai/gpt-4.1": "cl100k_base", "anthropic/*": "o200k_base" } } }',
    )
    const { io } = await config()
    expect(tableRows(io.out).slice(4, 6)).toEqual([
      ["tokenizer.models.openai/gpt-4.1", '"cl100k_base"', file],
      ["tokenizer.models.anthropic/*", '"o200k_base"', file],
    ])
  })

  it("prints config, sources and diagnostics as JSON with --json", async () => {
    const file = write(join(project, "magic-context.json"), '{ "enabled": false }')
    const { code, io } = await config("--json")
    expect(code).toBe(0)
    expect(JSON.parse(io.stdoutText())).toEqual({
      config: { ...defaultConfig(), enabled: false },
      sources: { ...defaultSources(), enabled: file },
      diagnostics: [],
    })
  })

  it("exits 1 and prints the diagnostic on stderr for a bad value, keeping the default", async () => {
    const file = write(join(project, "magic-context.jsonc"), '{ "tokenizer": { "encoding": "gpt2" } }')
    const { code, io } = await config()
    expect(code).toBe(1)
    expect(tableRows(io.out)[3]).toEqual(["tokenizer.encoding", '"auto"', "default"])
    expect(io.err).toEqual([
      "",
      `${file}: key "tokenizer.encoding" has value "gpt2", expected one of "auto", "o200k_base", "cl100k_base"; ` +
        "this value is ignored (a lower-precedence file or the default applies)",
    ])
  })

  it("exits 1 with the diagnostics in the JSON for a bad value with --json", async () => {
    const file = write(join(project, "magic-context.jsonc"), '{ "enabled": "sometimes" }')
    const { code, io } = await config("--json")
    expect(code).toBe(1)
    const output = JSON.parse(io.stdoutText()) as { diagnostics: { file: string; key: string }[] }
    expect(output.diagnostics).toMatchObject([{ file, key: "enabled", value: '"sometimes"' }])
  })

  it("exits 1 when the --config file does not exist", async () => {
    const missing = join(project, "missing.jsonc")
    const { code, io } = await config("--config", missing)
    expect(code).toBe(1)
    expect(io.stderrText()).toContain(`${missing}: the config file given does not exist`)
  })

  it("applies the --config file over the project file", async () => {
    write(join(project, "magic-context.jsonc"), '{ "enabled": false }')
    const explicit = write(join(dirs.make("explicit"), "x.jsonc"), '{ "enabled": true }')
    const { code, io } = await config("--config", explicit)
    expect(code).toBe(0)
    expect(tableRows(io.out)[0]).toEqual(["enabled", "true", explicit])
  })

  it("prints the JSON Schema that is checked in with --schema", async () => {
    const { code, io } = await config("--schema")
    expect(code).toBe(0)
    const checkedIn = readFileSync(join(REPO_ROOT, "schema", "magic-context.schema.json"), "utf8")
    expect(io.out).toHaveLength(1)
    expect(`${io.out[0]}\n`).toBe(checkedIn)
    expect(JSON.parse(io.out[0] ?? "")).toEqual(JSON.parse(checkedIn))
  })
})

describe("packageRoot", () => {
  it("is the repository root when running from src/", () => {
    expect(join(packageRoot(), "/")).toBe(REPO_ROOT)
  })
})
