import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { parse as parseJsonc, type ParseError } from "jsonc-parser"
import { SCHEMA_TOP_LEVEL_KEYS } from "../helpers/config-keys.js"
import { describe, expect, it } from "vitest"
import {
  configExampleJsonc,
  configJsonSchema,
  configReferenceMarkdown,
  GENERATED_FILES,
} from "../../src/config/generate-config-docs.js"
import { getPath, leafPaths } from "../../src/config/json-path.js"
import { ConfigSchema, defaultConfig } from "../../src/config/schema.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))

function checkedIn(relative: string): string {
  try {
    return readFileSync(join(REPO_ROOT, relative), "utf8")
  } catch {
    return `<${relative} is missing>`
  }
}

const GENERATORS: [keyof typeof GENERATED_FILES, () => string][] = [
  ["jsonSchema", configJsonSchema],
  ["reference", configReferenceMarkdown],
  ["example", configExampleJsonc],
]

const DEFAULT_LEAVES = leafPaths(defaultConfig()).map((path) => path.join("."))

describe("generated config files", () => {
  it.each(GENERATORS.map(([name, generate]) => [GENERATED_FILES[name], generate] as const))(
    "%s matches its generator byte for byte",
    (relative, generate) => {
      const expected = generate()
      const actual = checkedIn(relative)
      // A plain equality check with a message: a diff of the whole file is noise when the fix is one command.
      expect(actual === expected, `${relative} is stale: run npm run generate and commit the result`).toBe(true)
    },
  )

  it("lists the files the CLI writes", () => {
    expect(GENERATED_FILES).toEqual({
      jsonSchema: "schema/magic-context.schema.json",
      reference: "docs/configuration.md",
      example: "magic-context.jsonc.example",
    })
  })
})

describe("configJsonSchema", () => {
  it("is JSON titled for editors, with every key optional", () => {
    const schema = JSON.parse(configJsonSchema()) as Record<string, unknown>
    expect(schema).toMatchObject({ title: "magic-context configuration", type: "object", additionalProperties: false })
    expect(schema["required"]).toBeUndefined()
    expect(Object.keys(schema["properties"] as object)).toEqual(SCHEMA_TOP_LEVEL_KEYS)
  })

  it("ends with one newline", () => {
    expect(configJsonSchema().endsWith("}\n")).toBe(true)
  })
})

describe("configReferenceMarkdown", () => {
  it.each(DEFAULT_LEAVES)("documents %s with its default", (key) => {
    const reference = checkedIn(GENERATED_FILES.reference)
    const row = reference.split("\n").find((line) => line.startsWith(`| \`${key}\` |`))
    expect(row, `no table row for ${key}`).toBeDefined()
    expect(row).toContain(`\`${JSON.stringify(getPath(defaultConfig(), key.split(".")))}\``)
  })

  it("does not document $schema as a setting", () => {
    expect(checkedIn(GENERATED_FILES.reference)).not.toContain("| `$schema` |")
  })
})

describe("configExampleJsonc", () => {
  const text = checkedIn(GENERATED_FILES.example)

  function parsedExample(): unknown {
    const errors: ParseError[] = []
    const value: unknown = parseJsonc(text, errors, { allowTrailingComma: false })
    expect(errors).toEqual([])
    return value
  }

  it.each(DEFAULT_LEAVES)("sets %s", (key) => {
    const path = key.split(".")
    expect(text).toContain(`"${path.at(-1)}":`)
    expect(getPath(parsedExample(), path)).toEqual(getPath(defaultConfig(), path))
  })

  it("parses as JSONC, validates against the schema and equals the defaults", () => {
    const parsed = ConfigSchema.safeParse(parsedExample())
    expect(parsed.success).toBe(true)
    if (!parsed.success) return
    // No $schema key: a relative path would break once the file is copied to ~/.config/opencode.
    expect(parsed.data).toEqual(defaultConfig())
  })

  it("explains every key with a comment line before it", () => {
    const lines = text.split("\n")
    lines.forEach((line, index) => {
      if (!/^\s+"(?!\$schema)[^"]+":/.test(line)) return
      expect(lines[index - 1], `no comment before ${line.trim()}`).toMatch(/^\s+\/\/ \S/)
    })
  })
})
