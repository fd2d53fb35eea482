/**
 * Every leaf key of the configuration with its default, in schema order: the one place tests pin the config
 * surface. Adding a key to the schema means adding it here (and the tests that print the whole table follow).
 */
export const CONFIG_DEFAULTS: readonly (readonly [key: string, value: unknown])[] = [
  ["enabled", true],
  ["database.path", null],
  ["database.busy_timeout_ms", 300],
  ["tokenizer.encoding", "auto"],
  ["tokenizer.models", {}],
  ["execute_threshold", 65],
  ["protected_tokens", null],
  ["cache_ttl", "5m"],
  ["smart_drops", false],
  ["history_budget", 15],
  ["history_landing", 50],
  ["lasting_landing", false],
  ["pin_budget", 5],
  ["pins", []],
  ["historian.strategy", "canonical"],
  ["historian.model", null],
  ["historian.timeout", "90s"],
  ["historian.batch", 4],
  ["history_policy", "default"],
  ["models", {}],
]

/** The top-level keys of the JSON Schema, in order ($schema and the deprecated protected_tags included). */
export const SCHEMA_TOP_LEVEL_KEYS = [
  "$schema",
  "enabled",
  "database",
  "tokenizer",
  "execute_threshold",
  "protected_tokens",
  "protected_tags",
  "cache_ttl",
  "smart_drops",
  "history_budget",
  "history_landing",
  "lasting_landing",
  "pin_budget",
  "pins",
  "historian",
  "history_policy",
  "models",
]

/** Every leaf sourced from "default" (what `loadConfig` reports when no file sets anything). */
export function defaultSources(): Record<string, string> {
  return Object.fromEntries(CONFIG_DEFAULTS.map(([key]) => [key, "default"]))
}
