import { z } from "zod"
import { ConfigSchema, DEPRECATED_KEYS, defaultConfig } from "./schema.js"
import { getPath, isJsonObject, type JsonObject } from "./json-path.js"

/** Paths of the generated files, relative to the package root. */
export const GENERATED_FILES = {
  jsonSchema: "schema/magic-context.schema.json",
  reference: "docs/configuration.md",
  example: "magic-context.jsonc.example",
} as const

type SchemaNode = JsonObject & { properties?: Record<string, JsonObject>; description?: string }

type Entry = { path: string[]; node: SchemaNode; isGroup: boolean }

/** The JSON Schema of the config file (input side: every key optional). */
export function configJsonSchema(): string {
  const schema = z.toJSONSchema(ConfigSchema, { io: "input" }) as JsonObject
  return `${JSON.stringify({ ...schema, title: "magic-context configuration" }, null, 2)}\n`
}

/** The configuration reference, `docs/configuration.md`. */
export function configReferenceMarkdown(): string {
  const lines = [
    "# Configuration reference",
    "",
    "<!-- Generated from src/config/schema.ts by `npm run generate`; a test fails when this file is stale. -->",
    "",
    "magic-context reads `magic-context.jsonc` (or `.json`) from these places, lowest precedence first; a later",
    "file overrides an earlier one key by key:",
    "",
    "1. the user's OpenCode config dir: `$XDG_CONFIG_HOME/opencode/` (default `~/.config/opencode/`);",
    "2. the project: `<worktree>/.opencode/`, `<worktree>/`, then `<directory>/.opencode/`, `<directory>/`",
    "   (the directory OpenCode runs in, when it differs from the git worktree root);",
    "3. the CLI's `--config FILE`.",
    "",
    "A file that is not valid JSONC is ignored whole. A value that does not fit is ignored on its own: the",
    "message names the file, the key, the value and what was expected, and the key falls back to a",
    "lower-precedence file or its default. Run `magic-context config` to see the effective values and where",
    "each came from, and `magic-context doctor` to check an install.",
    "",
    "| key | type | default | description |",
    "| --- | --- | --- | --- |",
  ]
  for (const entry of entries()) {
    if (entry.isGroup) continue
    const key = `\`${entry.path.join(".")}\``
    const defaults = getPath(defaultConfig(), entry.path)
    const shownDefault = defaults === undefined ? "(none)" : `\`${JSON.stringify(defaults)}\``
    const description = (entry.node.description ?? "").replace(/\|/g, "\\|")
    lines.push(`| ${key} | ${typeText(entry.node)} | ${shownDefault} | ${description} |`)
  }
  const groups = entries().filter((entry) => entry.isGroup)
  if (groups.length > 0) {
    lines.push("", "## Sections", "")
    for (const group of groups) lines.push(`- \`${group.path.join(".")}\`: ${group.node.description ?? ""}`)
  }
  return `${lines.join("\n")}\n`
}

/** `magic-context.jsonc.example`: every key with its default and its description as a comment. */
export function configExampleJsonc(): string {
  const lines = [
    "// magic-context configuration: every key, set to its default. Copy to ~/.config/opencode/magic-context.jsonc",
    "// (all projects) or to <project>/.opencode/magic-context.jsonc, and keep only what you change.",
    "// Generated from src/config/schema.ts by `npm run generate`. For completion in an editor, add",
    '// "$schema": "<path to the magic-context package>/schema/magic-context.schema.json".',
    "{",
  ]
  const root = rootNode()
  lines.push(...objectLines(root, [], 1))
  lines.push("}")
  return `${lines.join("\n")}\n`
}

function objectLines(node: SchemaNode, path: string[], depth: number): string[] {
  const indent = "  ".repeat(depth)
  const keys = Object.keys(node.properties ?? {}).filter((key) => key !== "$schema" && !(path.length === 0 && key in DEPRECATED_KEYS))
  const lines: string[] = []
  keys.forEach((key, index) => {
    const child = (node.properties ?? {})[key] as SchemaNode
    const childPath = [...path, key]
    const comma = index < keys.length - 1 ? "," : ""
    for (const line of wrap(child.description ?? "", 110 - indent.length)) lines.push(`${indent}// ${line}`)
    if (isGroup(child)) {
      lines.push(`${indent}${JSON.stringify(key)}: {`, ...objectLines(child, childPath, depth + 1), `${indent}}${comma}`)
      return
    }
    lines.push(`${indent}${JSON.stringify(key)}: ${JSON.stringify(getPath(defaultConfig(), childPath))}${comma}`)
  })
  return lines
}

function entries(): Entry[] {
  const collected: Entry[] = []
  const visit = (node: SchemaNode, path: string[]): void => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      if (key === "$schema") continue
      const childNode = child as SchemaNode
      const childPath = [...path, key]
      const group = isGroup(childNode)
      collected.push({ path: childPath, node: childNode, isGroup: group })
      if (group) visit(childNode, childPath)
    }
  }
  visit(rootNode(), [])
  return collected
}

function rootNode(): SchemaNode {
  return z.toJSONSchema(ConfigSchema, { io: "input" }) as SchemaNode
}

/** A section (an object with fixed properties), as opposed to a leaf or a free-form map. */
function isGroup(node: SchemaNode): boolean {
  return node["type"] === "object" && isJsonObject(node.properties)
}

function typeText(node: SchemaNode): string {
  if (Array.isArray(node["enum"])) return (node["enum"] as unknown[]).map((value) => `\`${JSON.stringify(value)}\``).join(" \\| ")
  if (Array.isArray(node["anyOf"])) return (node["anyOf"] as SchemaNode[]).map(typeText).join(" \\| ")
  if (node["type"] === "object" && isJsonObject(node["additionalProperties"])) {
    const value = node["additionalProperties"] as SchemaNode
    if (isGroup(value)) return `map of { ${Object.keys(value.properties ?? {}).join(", ")} }`
    return `map of ${typeText(value)}`
  }
  // zod writes the safe-integer range on every integer; only bounds the schema chose are worth showing.
  const chosen = (value: unknown): value is number => typeof value === "number" && Math.abs(value) !== Number.MAX_SAFE_INTEGER
  const bounds = [
    chosen(node["minimum"]) ? `>= ${node["minimum"]}` : null,
    chosen(node["exclusiveMinimum"]) ? `> ${node["exclusiveMinimum"]}` : null,
    chosen(node["maximum"]) ? `<= ${node["maximum"]}` : null,
  ].filter(Boolean)
  const base = String(node["type"] ?? "any")
  return bounds.length > 0 ? `${base} (${bounds.join(", ")})` : base
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let current = ""
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (current.length > 0 && current.length + 1 + word.length > width) {
      lines.push(current)
      current = word
    } else {
      current = current.length > 0 ? `${current} ${word}` : word
    }
  }
  if (current.length > 0) lines.push(current)
  return lines
}
