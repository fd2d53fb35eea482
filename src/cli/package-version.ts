import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** The version in this package's `package.json` (two folders above `dist/cli/` and `src/cli/` alike). */
export function packageVersion(): string {
  const file = fileURLToPath(new URL("../../package.json", import.meta.url))
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown }
  return typeof parsed.version === "string" ? parsed.version : "unknown"
}
