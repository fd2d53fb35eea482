import { existsSync } from "node:fs"
import { dirname, isAbsolute, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { isMagicContextEntry, isMagicContextTuiEntry } from "./opencode-install.js"

/**
 * Other OpenCode plugins that rewrite the prompt to manage context: loaded with magic-context, both edit the same
 * messages before every model call (one prunes what the other tags and folds) and neither can keep the cache or its
 * guarantees. By npm name, without a version.
 */
export const CONTEXT_PLUGINS: readonly { name: string; what: string }[] = [
  { name: "@tarquinen/opencode-dcp", what: "Dynamic Context Pruning (DCP)" },
  { name: "opencode-dcp", what: "Dynamic Context Pruning (DCP)" },
  { name: "@cortexkit/opencode-magic-context", what: "CortexKit's Magic Context" },
  { name: "@cortexkit/magic-context", what: "CortexKit's Magic Context" },
]

/** One problem with the plugin list and its fix in one line. */
export type PluginConflict = { file: string; entry: string; problem: string; fix: string }

/** The npm name of an entry (`@scope/name@1.2.3` → `@scope/name`), or null for a path or URL. */
function packageName(entry: string): string | null {
  if (entry.startsWith("file:") || entry.startsWith(".") || entry.startsWith("/")) return null
  const at = entry.indexOf("@", entry.startsWith("@") ? 1 : 0)
  return at === -1 ? entry : entry.slice(0, at)
}

/** The file a path or file: entry loads, or null for a package name. Relative paths are from the config's folder. */
function entryPath(entry: string, configDir: string): string | null {
  if (entry.startsWith("file:")) {
    try {
      return fileURLToPath(entry)
    } catch {
      return entry.slice("file:".length)
    }
  }
  if (entry.startsWith(".") || isAbsolute(entry)) return resolve(configDir, entry)
  return null
}

/**
 * What is wrong with the plugin lists for magic-context: another context plugin loaded beside it, and a magic-context
 * entry (of the server's list or of the TUI's) that points at a build that is not there (OpenCode then loads nothing
 * and says little). The TUI list is only checked for missing builds: a peer's TUI plugin shows panels, it does not
 * rewrite the prompt.
 */
export function pluginConflicts(
  entries: readonly { file: string; entry: string }[],
  tuiEntries: readonly { file: string; entry: string }[] = [],
): PluginConflict[] {
  const conflicts: PluginConflict[] = []
  for (const { file, entry } of tuiEntries) {
    if (isMagicContextTuiEntry(entry)) conflicts.push(...missingBuild(file, entry))
  }
  for (const { file, entry } of entries) {
    const known = CONTEXT_PLUGINS.find((plugin) => plugin.name === packageName(entry))
    if (known) {
      conflicts.push({
        file,
        entry,
        problem: `${known.what} is loaded too: two context plugins rewrite the same prompt before every model call`,
        fix: `remove ${JSON.stringify(entry)} from "plugin" in ${file} (or remove magic-context)`,
      })
      continue
    }
    if (isMagicContextEntry(entry)) conflicts.push(...missingBuild(file, entry))
  }
  return conflicts
}

/** The entry's problem when it is a path to a build that is not there (none for a package name or a present file). */
function missingBuild(file: string, entry: string): PluginConflict[] {
  const path = entryPath(entry, dirname(file))
  if (path === null || existsSync(path)) return []
  return [
    {
      file,
      entry,
      problem: `the magic-context entry points at ${path}, which does not exist`,
      fix: `build the checkout (npm ci) or fix the path in ${file}; \`npx magic-context setup\` writes a working entry`,
    },
  ]
}
