import { getPath } from "../config/json-path.js"
import { defaultConfig } from "../config/schema.js"

/** The keys the starter file shows as commented examples (with their defaults, read from the schema). */
const EXAMPLE_KEYS: readonly string[][] = [["execute_threshold"], ["protected_tokens"], ["historian", "strategy"]]

/**
 * The `magic-context.jsonc` that `setup` writes: `$schema` and commented guidance only. No key is set, so the file
 * changes nothing: every value still comes from the user-level file (`~/.config/opencode/magic-context.jsonc`) or
 * the defaults, and a later version's defaults still apply. Pure.
 */
export function starterConfig(options: { schema: string; scope: "project" | "user" }): string {
  const defaults = defaultConfig()
  const examples = EXAMPLE_KEYS.map((path) => `//   ${JSON.stringify(path.join("."))}: ${JSON.stringify(getPath(defaults, path))}`)
  const lines = [
    options.scope === "project"
      ? "// magic-context settings for this project. Set only what this project needs differently: every key left out"
      : "// magic-context settings for all your projects. Set only what you change: every key left out keeps its",
    options.scope === "project"
      ? "// keeps the value of ~/.config/opencode/magic-context.jsonc, or the default."
      : "// default; a project's .opencode/magic-context.jsonc can override a key again.",
    "// Every key, its default and what it does: docs/configuration.md in the package, or `magic-context config`.",
    "// For example (defaults shown; nested keys go in their object, e.g. \"historian\": { \"strategy\": … }):",
    ...examples,
    "{",
    `  "$schema": ${JSON.stringify(options.schema)}`,
    "}",
  ]
  return `${lines.join("\n")}\n`
}
