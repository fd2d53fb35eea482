import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** The root of the copy of magic-context this CLI runs from (two folders above `dist/cli/` and `src/cli/` alike). */
export const OWN_PACKAGE_ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "")

/** The file:// URL of this copy's built OpenCode plugin (`dist/index.js`). */
export const OWN_BUILD_ENTRY = pathToFileURL(join(OWN_PACKAGE_ROOT, "dist", "index.js")).href

/** The file:// URL of this copy's built TUI plugin (`dist/tui.js`), the sidebar panel. */
export const OWN_TUI_ENTRY = pathToFileURL(join(OWN_PACKAGE_ROOT, "dist", "tui.js")).href

/** This copy's JSON schema of `magic-context.jsonc` (the `schema/` folder ships in the package). */
export const OWN_SCHEMA_FILE = join(OWN_PACKAGE_ROOT, "schema", "magic-context.schema.json")
