import { spawnSync } from "node:child_process"
import { OPENCODE_BIN } from "../../test/e2e/harness/opencode-harness.js"

/**
 * Imports a plugin module the way OpenCode would (its own Bun runtime, `BUN_BE_BUN=1`) and applies OpenCode's rule
 * that every export must be a plugin function or `{ server }`. Returns what is wrong, or null when the module loads.
 * OpenCode itself reports a plugin that fails to load only as a session error event, which `opencode run` does not
 * print, so this is how the benchmark can say why a plugin is missing.
 */
export function pluginPreflight(entry: string): string | null {
  const check = [
    "const module = await import(process.argv.at(-1))",
    "const isPlugin = (value) => typeof value === 'function' || typeof value?.server === 'function'",
    "const bad = Object.keys(module).filter((name) => !isPlugin(module[name]))",
    "if (bad.length > 0) {",
    "  console.error('exports that are not plugin functions: ' + bad.join(', '))",
    "  process.exit(2)",
    "}",
  ].join("\n")
  const result = spawnSync(OPENCODE_BIN, ["-e", check, entry], {
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", BUN_BE_BUN: "1" },
    encoding: "utf8",
    timeout: 60_000,
  })
  if (result.error) return `the import check could not run: ${String(result.error)}`
  if (result.status === 0) return null
  const message = `${result.stderr}${result.stdout}`
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
  return message.filter((line) => !line.startsWith("Bun v")).join(" ") || `the import exited with ${result.status}`
}
