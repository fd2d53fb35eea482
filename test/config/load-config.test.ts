import { describe, expect, it } from "vitest"
import { configLocations, loadConfig, type LoadedConfig, type ReadText } from "../../src/config/load-config.js"
import { MAX_CONFIG_DEPTH, MAX_DIAGNOSTICS_PER_FILE } from "../../src/config/valid-layer.js"
import { defaultConfig } from "../../src/config/schema.js"
import { getPath } from "../../src/config/json-path.js"
import { CONFIG_DEFAULTS, defaultSources } from "../helpers/config-keys.js"

const USER = "/cfg/opencode/magic-context.jsonc"
const WORKTREE_DOT = "/repo/.opencode/magic-context.jsonc"
const WORKTREE = "/repo/magic-context.jsonc"
const DIRECTORY_DOT = "/repo/pkg/.opencode/magic-context.jsonc"
const DIRECTORY = "/repo/pkg/magic-context.jsonc"
const EXPLICIT = "/tmp/extra.jsonc"

/** Lowest precedence first. */
const LAYERS = [USER, WORKTREE_DOT, WORKTREE, DIRECTORY_DOT, DIRECTORY, EXPLICIT]

const LOCATIONS = configLocations({
  userConfigDir: "/cfg/opencode",
  worktree: "/repo",
  directory: "/repo/pkg",
  explicitFile: EXPLICIT,
})

const DEFAULT_SOURCES = defaultSources()

/** Sources of the keys these tests never set (everything but enabled, database and tokenizer). */
const NEW_KEY_SOURCES = Object.fromEntries(
  Object.entries(defaultSources()).filter(([key]) => !/^(enabled|database\.|tokenizer\.)/.test(key)),
)

function load(files: Record<string, string>, readText?: ReadText): LoadedConfig {
  const texts = new Map(Object.entries(files))
  return loadConfig({ locations: LOCATIONS, readText: readText ?? ((file) => texts.get(file) ?? null) })
}

describe("configLocations", () => {
  it("lists the user dir, the worktree, the directory and the explicit file, lowest precedence first", () => {
    expect(LOCATIONS).toEqual([
      [
        { file: "/cfg/opencode/magic-context.jsonc", scope: "user" },
        { file: "/cfg/opencode/magic-context.json", scope: "user" },
      ],
      [
        { file: "/repo/.opencode/magic-context.jsonc", scope: "project" },
        { file: "/repo/.opencode/magic-context.json", scope: "project" },
      ],
      [
        { file: "/repo/magic-context.jsonc", scope: "project" },
        { file: "/repo/magic-context.json", scope: "project" },
      ],
      [
        { file: "/repo/pkg/.opencode/magic-context.jsonc", scope: "project" },
        { file: "/repo/pkg/.opencode/magic-context.json", scope: "project" },
      ],
      [
        { file: "/repo/pkg/magic-context.jsonc", scope: "project" },
        { file: "/repo/pkg/magic-context.json", scope: "project" },
      ],
      [{ file: "/tmp/extra.jsonc", scope: "explicit" }],
    ])
  })

  it("looks in a directory once when it is also the worktree, ignoring trailing slashes", () => {
    const locations = configLocations({ userConfigDir: "/cfg/opencode/", worktree: "/repo", directory: "/repo" })
    expect(locations.flat().map((location) => location.file)).toEqual([
      "/cfg/opencode/magic-context.jsonc",
      "/cfg/opencode/magic-context.json",
      "/repo/.opencode/magic-context.jsonc",
      "/repo/.opencode/magic-context.json",
      "/repo/magic-context.jsonc",
      "/repo/magic-context.json",
    ])
  })
})

describe("loadConfig", () => {
  it("gives the defaults, all from \"default\", when no file exists", () => {
    const loaded = load({})
    expect(loaded).toEqual({ config: defaultConfig(), sources: DEFAULT_SOURCES, files: [], diagnostics: [] })
    expect(Object.entries(loaded.sources).map(([key]) => [key, getPath(loaded.config, key.split("."))])).toEqual(
      CONFIG_DEFAULTS,
    )
  })

  it.each(LAYERS.map((file, index) => [file, index]))("lets %s override every lower file", (winner, index) => {
    const present = LAYERS.slice(0, index + 1)
    const files = present.map((file) => [file, JSON.stringify({ database: { path: `${file}.db` } })])
    const loaded = load(Object.fromEntries(files))
    expect(loaded.config.database.path).toBe(`${winner}.db`)
    expect(loaded.sources["database.path"]).toBe(winner)
    expect(loaded.files.map((location) => location.file)).toEqual(present)
    expect(loaded.diagnostics).toEqual([])
  })

  it("merges key by key: a key set only in a lower file survives a higher file", () => {
    const loaded = load({
      [USER]: JSON.stringify({ enabled: false, tokenizer: { encoding: "cl100k_base" } }),
      [DIRECTORY]: JSON.stringify({ database: { path: "/data/project.db" } }),
      [EXPLICIT]: JSON.stringify({ tokenizer: { models: { "anthropic/*": "o200k_base" } } }),
    })
    expect(loaded.config).toEqual({
      ...defaultConfig(),
      enabled: false,
      database: { path: "/data/project.db", busy_timeout_ms: 300 },
      tokenizer: { encoding: "cl100k_base", models: { "anthropic/*": "o200k_base" } },
    })
    expect(loaded.sources).toEqual({
      ...NEW_KEY_SOURCES,
      enabled: USER,
      "database.path": DIRECTORY,
      "database.busy_timeout_ms": "default",
      "tokenizer.encoding": USER,
      "tokenizer.models.anthropic/*": EXPLICIT,
    })
  })

  it("merges tokenizer.models pattern by pattern across files", () => {
    const loaded = load({
      [USER]: JSON.stringify({ tokenizer: { models: { "anthropic/*": "cl100k_base", "google/*": "cl100k_base" } } }),
      [WORKTREE]: JSON.stringify({ tokenizer: { models: { "google/*": "o200k_base" } } }),
    })
    expect(loaded.config.tokenizer.models).toEqual({ "anthropic/*": "cl100k_base", "google/*": "o200k_base" })
    expect(loaded.sources["tokenizer.models.anthropic/*"]).toBe(USER)
    expect(loaded.sources["tokenizer.models.google/*"]).toBe(WORKTREE)
  })

  it("accepts comments and trailing commas", () => {
    const text = `// user settings
{
  /* the store */
  "database": { "path": "/x.db", },
  "enabled": false, // off for now
}
`
    const loaded = load({ [USER]: text })
    expect(loaded.diagnostics).toEqual([])
    expect(loaded.config).toMatchObject({ enabled: false, database: { path: "/x.db" } })
  })

  it("accepts and ignores $schema", () => {
    const loaded = load({ [WORKTREE]: JSON.stringify({ $schema: "./schema.json", enabled: false }) })
    expect(loaded.diagnostics).toEqual([])
    expect(loaded.sources).toEqual({ ...DEFAULT_SOURCES, enabled: WORKTREE })
  })

  it("reads a file saved with a UTF-8 byte order mark", () => {
    const loaded = load({ [WORKTREE]: '\uFEFF{ "execute_threshold": 70 }' })
    expect(loaded.diagnostics).toEqual([])
    expect(loaded.config.execute_threshold).toBe(70)
    expect(loaded.sources["execute_threshold"]).toBe(WORKTREE)
  })

  it("ignores a whole file that is not valid JSONC and names the file, line and column", () => {
    const broken = '{\n  "enabled": false\n  "database": { "path": "/broken.db" }\n}\n'
    const loaded = load({ [USER]: JSON.stringify({ tokenizer: { encoding: "cl100k_base" } }), [DIRECTORY]: broken })
    expect(loaded.config).toEqual({ ...defaultConfig(), tokenizer: { encoding: "cl100k_base", models: {} } })
    expect(loaded.sources).toEqual({ ...DEFAULT_SOURCES, "tokenizer.encoding": USER })
    expect(loaded.diagnostics).toHaveLength(1)
    expect(loaded.diagnostics[0]).toMatchObject({ severity: "error", file: DIRECTORY, key: null, value: null })
    expect(loaded.diagnostics[0]?.message).toBe(
      `${DIRECTORY}:3:3: not valid JSONC (CommaExpected); the whole file is ignored`,
    )
  })

  it.each([
    ["an unclosed object", '{ "enabled": true', "1:18"],
    ["a stray word", '{\n\n    nope: 1\n}', "3:5"],
  ])("reports %s with its position", (_label, text, position) => {
    const loaded = load({ [WORKTREE]: text })
    expect(loaded.config).toEqual(defaultConfig())
    expect(loaded.diagnostics.map((diagnostic) => diagnostic.message)).toEqual([
      expect.stringMatching(
        new RegExp(`^${WORKTREE}:${position}: not valid JSONC \\(\\w+\\); the whole file is ignored$`),
      ),
    ])
  })

  it.each([
    ["an empty file", ""],
    ["a file of blank lines", "\n  \n"],
    ["a file of comments only", '// { "enabled": false }\n/* nothing yet */\n'],
  ])("reads %s as setting nothing, without a diagnostic", (_label, text) => {
    const loaded = load({ [USER]: JSON.stringify({ enabled: false }), [WORKTREE]: text })
    expect(loaded.config.enabled).toBe(false)
    expect(loaded.diagnostics).toEqual([])
    expect(loaded.files.map((location) => location.file)).toEqual([USER, WORKTREE])
  })

  it.each([["[1, 2]"], ['"enabled"'], ["42"], ["null"], ["true"]])("refuses the top-level value %s", (text) => {
    const loaded = load({ [USER]: JSON.stringify({ enabled: false }), [WORKTREE]: text })
    expect(loaded.config.enabled).toBe(false)
    expect(loaded.diagnostics).toEqual([
      {
        severity: "error",
        file: WORKTREE,
        key: null,
        value: null,
        expected: "an object",
        message: `${WORKTREE}: expected an object at the top level; the whole file is ignored`,
      },
    ])
  })

  it.each([
    ["a wrong type", { enabled: "yes" }, "enabled", '"yes"', "a value of type boolean"],
    [
      "a bad enum value",
      { tokenizer: { encoding: "p50k_base" } },
      "tokenizer.encoding",
      '"p50k_base"',
      'one of "auto", "o200k_base", "cl100k_base"',
    ],
    ["an empty database path", { database: { path: "" } }, "database.path", '""', "string to have >=1 characters"],
    ["a number for the database path", { database: { path: 5 } }, "database.path", "5", "a value of type string"],
    ["a section that is not an object", { database: "x.db" }, "database", '"x.db"', "a value of type object"],
    ["a negative busy timeout", { database: { busy_timeout_ms: -1 } }, "database.busy_timeout_ms", "-1", "number to be >=0"],
    ["a busy timeout over 5 s", { database: { busy_timeout_ms: 60_000 } }, "database.busy_timeout_ms", "60000", "number to be <=5000"],
    ["a fractional busy timeout", { database: { busy_timeout_ms: 2.5 } }, "database.busy_timeout_ms", "2.5", "a value of type int"],
    ["a busy timeout as text", { database: { busy_timeout_ms: "300ms" } }, "database.busy_timeout_ms", '"300ms"', "a value of type number"],
    [
      "a bad encoding in tokenizer.models",
      { tokenizer: { models: { "anthropic/*": "p50k_base" } } },
      "tokenizer.models.anthropic/*",
      '"p50k_base"',
      'one of "o200k_base", "cl100k_base"',
    ],
  ])("drops %s alone and says what was expected", (_label, content, key, shown, expected) => {
    const loaded = load({ [DIRECTORY]: JSON.stringify({ ...content, $schema: "x" }) })
    expect(loaded.config).toEqual({ ...defaultConfig(), $schema: "x" })
    expect(loaded.sources).toEqual(DEFAULT_SOURCES)
    expect(loaded.diagnostics).toHaveLength(1)
    const diagnostic = loaded.diagnostics[0]
    expect(diagnostic).toMatchObject({ severity: "error", file: DIRECTORY, key, value: shown, expected })
    expect(diagnostic?.message).toBe(
      `${DIRECTORY}: key "${key}" has value ${shown}, expected ${expected}; ` +
        "this value is ignored (a lower-precedence file or the default applies)",
    )
    expect(diagnostic?.message).not.toContain("expected expected")
  })

  it("keeps a file's valid values when another of its values is refused", () => {
    const loaded = load({
      [DIRECTORY]: JSON.stringify({
        enabled: false,
        tokenizer: { encoding: "bogus", models: { "openai/*": "cl100k_base" } },
      }),
    })
    expect(loaded.config).toEqual({
      ...defaultConfig(),
      enabled: false,
      database: { path: null, busy_timeout_ms: 300 },
      tokenizer: { encoding: "auto", models: { "openai/*": "cl100k_base" } },
    })
    expect(loaded.sources).toEqual({
      ...NEW_KEY_SOURCES,
      enabled: DIRECTORY,
      "database.path": "default",
      "database.busy_timeout_ms": "default",
      "tokenizer.encoding": "default",
      "tokenizer.models.openai/*": DIRECTORY,
    })
    expect(loaded.diagnostics.map((diagnostic) => diagnostic.key)).toEqual(["tokenizer.encoding"])
  })

  it("falls back to the lower file's value when a higher file's value is refused", () => {
    const loaded = load({
      [USER]: JSON.stringify({ tokenizer: { encoding: "cl100k_base" }, database: { path: "/user.db" } }),
      [DIRECTORY]: JSON.stringify({ tokenizer: { encoding: 7 }, database: { path: "" } }),
    })
    expect(loaded.config.tokenizer.encoding).toBe("cl100k_base")
    expect(loaded.config.database.path).toBe("/user.db")
    expect(loaded.sources["tokenizer.encoding"]).toBe(USER)
    expect(loaded.sources["database.path"]).toBe(USER)
    const keys = loaded.diagnostics.map((diagnostic) => diagnostic.key).sort()
    expect(keys).toEqual(["database.path", "tokenizer.encoding"])
  })

  it("warns about the deprecated protected_tags and keeps its other values", () => {
    const loaded = load({ [WORKTREE]: JSON.stringify({ protected_tags: 8, smart_drops: true }) })
    expect(loaded.config.smart_drops).toBe(true)
    expect(loaded.diagnostics).toEqual([
      {
        severity: "warning",
        file: WORKTREE,
        key: "protected_tags",
        value: "8",
        expected: "nothing",
        message: `${WORKTREE}: key "protected_tags" is deprecated and has no effect: the protected window is measured in tokens (set protected_tokens, or leave it null to derive it from the model's window)`,
      },
    ])
  })

  it("reports and ignores an unknown key, at the top level and in a section", () => {
    const loaded = load({
      [WORKTREE]: JSON.stringify({
        tokens_counter: { encoding: "cl100k_base" },
        database: { file: "/x.db" },
        enabled: false,
      }),
    })
    expect(loaded.config).toEqual({ ...defaultConfig(), enabled: false })
    expect(loaded.sources).toEqual({ ...DEFAULT_SOURCES, enabled: WORKTREE })
    const byKey = Object.fromEntries(loaded.diagnostics.map((diagnostic) => [diagnostic.key, diagnostic]))
    expect(Object.keys(byKey).sort()).toEqual(["database.file", "tokens_counter"])
    expect(byKey["tokens_counter"]).toMatchObject({
      file: WORKTREE,
      value: '{"encoding":"cl100k_base"}',
      expected: "a known key (check the spelling against docs/configuration.md)",
      message: `${WORKTREE}: unknown key "tokens_counter" (check the spelling against docs/configuration.md); its value {"encoding":"cl100k_base"} is ignored`,
    })
    expect(byKey["database.file"]?.message).toBe(
      `${WORKTREE}: unknown key "database.file" (check the spelling against docs/configuration.md); its value "/x.db" is ignored`,
    )
  })

  it.each([
    [{ execute_treshold: 70 }, "execute_treshold", "execute_threshold", "70"],
    [{ tokeniser: { encoding: "cl100k_base" } }, "tokeniser", "tokenizer", '{"encoding":"cl100k_base"}'],
    [{ tokenizer: { encodng: "cl100k_base" } }, "tokenizer.encodng", "tokenizer.encoding", '"cl100k_base"'],
    [{ historian: { strategi: "off" } }, "historian.strategi", "historian.strategy", '"off"'],
    [{ models: { "anthropic/*": { contxt: 200000 } } }, "models.anthropic/*.contxt", "models.anthropic/*.context", "200000"],
    [{ models: { "a/*": { prices: { cached_reed: 0.1 } } } }, "models.a/*.prices.cached_reed", "models.a/*.prices.cached_read", "0.1"],
  ])("suggests the known key a slip away from %j", (layer, key, meant, shown) => {
    const loaded = load({ [DIRECTORY]: JSON.stringify(layer) })
    expect(loaded.config).toEqual(defaultConfig())
    expect(loaded.diagnostics).toEqual([
      {
        severity: "error",
        file: DIRECTORY,
        key,
        value: shown,
        expected: `a known key (did you mean "${meant}"?)`,
        message: `${DIRECTORY}: unknown key "${key}" (did you mean "${meant}"?); its value ${shown} is ignored`,
      },
    ])
  })

  it("refuses a price that is negative or not a number, keeping the rest of the model's override", () => {
    const loaded = load({
      [DIRECTORY]: JSON.stringify({
        models: { "anthropic/*": { execute_threshold: 70, prices: { cached_read: -0.1, cache_write: "1.25" } } },
      }),
    })
    expect(loaded.config.models).toEqual({ "anthropic/*": { execute_threshold: 70 } })
    expect(loaded.diagnostics.map((diagnostic) => diagnostic.message)).toEqual([
      `${DIRECTORY}: key "models.anthropic/*.prices.cached_read" has value -0.1, expected number to be >=0; ` +
        "this value is ignored (a lower-precedence file or the default applies)",
      `${DIRECTORY}: key "models.anthropic/*.prices.cache_write" has value "1.25", expected a value of type number; ` +
        "this value is ignored (a lower-precedence file or the default applies)",
    ])
  })

  it("refuses prices whose cache write is below the cached read, and an unknown price list, naming file, key and value", () => {
    const loaded = load({
      [DIRECTORY]: JSON.stringify({
        models: { "anthropic/*": { execute_threshold: 70, prices: { cached_read: 0.5, cache_write: 0.2 } }, "x/*": { price_list: "azure" } },
      }),
    })
    // The family's list and prices apply: the model's override keeps only what was valid (an emptied one goes).
    expect(loaded.config.models).toEqual({ "anthropic/*": { execute_threshold: 70 } })
    expect(loaded.diagnostics.map((diagnostic) => [diagnostic.file, diagnostic.key, diagnostic.value])).toEqual([
      [DIRECTORY, "models.anthropic/*.prices", '{"cached_read":0.5,"cache_write":0.2}'],
      [DIRECTORY, "models.x/*.price_list", '"azure"'],
    ])
    expect(loaded.diagnostics[0]?.message).toBe(
      `${DIRECTORY}: key "models.anthropic/*.prices" has value {"cached_read":0.5,"cache_write":0.2}, expected cache_write ` +
        "at least cached_read (a cache write is never cheaper than a cached read); this value is ignored (a " +
        "lower-precedence file or the default applies)",
    )
    expect(loaded.diagnostics[1]?.expected).toBe('one of "anthropic-5m", "anthropic-1h", "openai", "google"')
  })

  it("clips a long refused value in the message", () => {
    const loaded = load({ [USER]: JSON.stringify({ enabled: "y".repeat(200) }) })
    const value = loaded.diagnostics[0]?.value ?? ""
    expect(value).toHaveLength(80)
    expect(value.endsWith("...")).toBe(true)
    expect(value.startsWith(`"yyy`)).toBe(true)
  })

  it("refuses a pin pattern that is not a valid regular expression, naming the file, key, pattern and error", () => {
    const loaded = load({ [WORKTREE]: '{ "pins": ["/(/", "port", "/v+/zz"] }' })
    expect(loaded.config.pins).toEqual(["port"])
    const problem = (pattern: string, flags: string): string => {
      try {
        new RegExp(pattern, flags)
      } catch (error) {
        return (error as Error).message
      }
      throw new Error(`${pattern} compiles`)
    }
    expect(loaded.diagnostics).toEqual([
      {
        severity: "error",
        file: WORKTREE,
        key: "pins.0",
        value: '"/(/"',
        expected: `a valid "/regex/flags" pattern (${problem("(", "")})`,
        message:
          `${WORKTREE}: key "pins.0" has value "/(/", expected a valid "/regex/flags" pattern (${problem("(", "")}); ` +
          "this value is ignored (the list keeps its other entries)",
      },
      expect.objectContaining({ key: "pins.2", value: '"/v+/zz"', expected: `a valid "/regex/flags" pattern (${problem("v+", "zz")})` }),
    ])
  })

  it("lets the lower file's pins apply when every pin of a file is refused", () => {
    const loaded = load({ [USER]: '{ "pins": ["deploy"] }', [WORKTREE]: '{ "pins": ["/[/"] }' })
    expect(loaded.config.pins).toEqual(["deploy"])
    expect(loaded.sources["pins"]).toBe(USER)
  })

  it.each<[string, string, string, string]>([
    ["1e400", '{ "execute_threshold": 1e400 }', "execute_threshold", "1e400"],
    ["-1e400", '{ "history_budget": -1e400 }', "history_budget", "-1e400"],
    ["an integer key", '{ "protected_tokens": 2E+999 }', "protected_tokens", "2E+999"],
    ["a nested key", '{ "models": { "openai/*": { "context": 1e400 } } }', "models.openai/*.context", "1e400"],
    ["an array element", '{ "pins": ["port", 1e999] }', "pins.1", "1e999"],
  ])("reports a number beyond a double (%s) as not a finite number, with its key, as written", (_label, text, key, shown) => {
    const loaded = load({ [USER]: '{ "execute_threshold": 70, "history_budget": 20 }', [DIRECTORY]: text })
    expect(loaded.config.execute_threshold).toBe(70)
    expect(loaded.config.history_budget).toBe(20)
    expect(loaded.diagnostics).toEqual([
      {
        severity: "error",
        file: DIRECTORY,
        key,
        value: shown,
        expected: "a finite number",
        message:
          `${DIRECTORY}: key "${key}" has value ${shown}, which is not a finite number (beyond ±1.8e308); this value ` +
          `is ignored (${key === "pins.1" ? "the list keeps its other entries" : "a lower-precedence file or the default applies"})`,
      },
    ])
  })

  it.each<[string, string]>([
    ["arrays", `{ "pins": ${"[".repeat(100_000)}${"]".repeat(100_000)} }`],
    ["objects", `{ "models": ${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)} }`],
    ["unclosed arrays", `{ "pins": ${"[".repeat(100_000)}`],
    ["arrays in a comment-laden file", `// deep\n{ /* x */ "enabled": false, "x": ${"[".repeat(100_000)}${"]".repeat(100_000)} }`],
  ])("ignores a file of 100,000 nested %s with one error naming the file, without crashing", (_label, text) => {
    const started = performance.now()
    const loaded = load({ [USER]: '{ "smart_drops": true }', [WORKTREE]: text })
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(loaded.config).toEqual({ ...defaultConfig(), smart_drops: true })
    expect(loaded.diagnostics).toEqual([
      {
        severity: "error",
        file: WORKTREE,
        key: null,
        value: null,
        expected: `JSONC nested at most ${MAX_CONFIG_DEPTH} levels deep`,
        message: expect.stringMatching(
          new RegExp(`^${WORKTREE}:\\d+:\\d+: nested more than ${MAX_CONFIG_DEPTH} levels deep; the whole file is ignored$`),
        ),
      },
    ])
  })

  it("reads a file nested exactly MAX_CONFIG_DEPTH levels deep as usual", () => {
    const inner = `${"[".repeat(MAX_CONFIG_DEPTH - 1)}${"]".repeat(MAX_CONFIG_DEPTH - 1)}`
    const loaded = load({ [WORKTREE]: `{ "enabled": false, "extra": ${inner} }` })
    expect(loaded.config.enabled).toBe(false)
    expect(loaded.diagnostics.map((diagnostic) => diagnostic.key)).toEqual(["extra"])
  })

  it("names the first problems of a file with thousands of them and counts the rest, in linear time", () => {
    const keys = Object.fromEntries(Array.from({ length: 20_000 }, (_, index) => [`unknown_${index}`, index]))
    const started = performance.now()
    const loaded = load({ [WORKTREE]: JSON.stringify({ ...keys, enabled: false }) })
    expect(performance.now() - started).toBeLessThan(3_000)
    expect(loaded.config).toEqual({ ...defaultConfig(), enabled: false })
    expect(loaded.diagnostics).toHaveLength(MAX_DIAGNOSTICS_PER_FILE + 1)
    expect(loaded.diagnostics.slice(0, MAX_DIAGNOSTICS_PER_FILE).map((diagnostic) => diagnostic.key)).toEqual(
      Array.from({ length: MAX_DIAGNOSTICS_PER_FILE }, (_, index) => `unknown_${index}`),
    )
    expect(loaded.diagnostics.at(-1)).toEqual({
      severity: "error",
      file: WORKTREE,
      key: null,
      value: null,
      expected: "fewer problems",
      message: `${WORKTREE}: 19,980 more values are refused (the first ${MAX_DIAGNOSTICS_PER_FILE} are named above)`,
    })
  })

  it("prefers magic-context.jsonc over magic-context.json in the same directory", () => {
    const loaded = load({
      "/repo/magic-context.jsonc": JSON.stringify({ enabled: false }),
      "/repo/magic-context.json": JSON.stringify({ database: { path: "/from-json.db" } }),
    })
    expect(loaded.files).toEqual([{ file: "/repo/magic-context.jsonc", scope: "project" }])
    expect(loaded.config).toEqual({ ...defaultConfig(), enabled: false })
  })

  it("reads magic-context.json when there is no .jsonc", () => {
    const loaded = load({ "/repo/pkg/.opencode/magic-context.json": JSON.stringify({ enabled: false }) })
    expect(loaded.files).toEqual([{ file: "/repo/pkg/.opencode/magic-context.json", scope: "project" }])
    expect(loaded.sources["enabled"]).toBe("/repo/pkg/.opencode/magic-context.json")
  })

  it("reports a read error other than not-found and goes on with the defaults", () => {
    const loaded = load({}, (file) => {
      if (file === WORKTREE) throw new Error("EACCES: permission denied, open '/repo/magic-context.jsonc'")
      return null
    })
    expect(loaded.config).toEqual(defaultConfig())
    expect(loaded.files).toEqual([])
    expect(loaded.diagnostics).toEqual([
      {
        severity: "error",
        file: WORKTREE,
        key: null,
        value: null,
        expected: "a readable file (EACCES: permission denied, open '/repo/magic-context.jsonc')",
        message: `${WORKTREE}: cannot read: EACCES: permission denied, open '/repo/magic-context.jsonc'`,
      },
    ])
  })

  it("reads each location only until a file is found", () => {
    const asked: string[] = []
    loadConfig({
      locations: configLocations({ userConfigDir: "/u", directory: "/d" }),
      readText: (file) => {
        asked.push(file)
        return file === "/u/magic-context.jsonc" ? "{}" : null
      },
    })
    expect(asked).toEqual([
      "/u/magic-context.jsonc",
      "/d/.opencode/magic-context.jsonc",
      "/d/.opencode/magic-context.json",
      "/d/magic-context.jsonc",
      "/d/magic-context.json",
    ])
  })
})
