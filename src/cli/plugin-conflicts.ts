import { dirname } from "node:path"
import { entryTarget, loadKey, loadsMagicContext, unloadableReason } from "../install/plugin-entry-target.js"

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

/** One problem with the plugin lists and its fix in one line. */
export type PluginConflict = { file: string; entry: string; problem: string; fix: string }

/** A `plugin` entry and the config file that lists it. */
import type { PluginEntry } from "../install/plugin-entry-target.js"

export type { PluginEntry }

/**
 * What is wrong with OpenCode's plugin lists for magic-context: another context plugin loaded beside it; a
 * magic-context entry OpenCode cannot load (a package name that is neither installed nor resolvable, a path that is
 * not there or has no build); and magic-context loaded more than once (entries OpenCode does not merge: a package
 * folder and a file in it, two copies), in the server's lists or in the TUI's. Reads the disk, never writes.
 */
export function pluginConflicts(options: {
  entries: readonly PluginEntry[]
  tuiEntries?: readonly PluginEntry[]
  /** OpenCode's cache folder (where it installs npm plugins). */
  cacheDir: string
}): PluginConflict[] {
  const conflicts: PluginConflict[] = []
  for (const { file, entry } of options.entries) {
    const known = CONTEXT_PLUGINS.find((plugin) => {
      const target = entryTarget(entry, dirname(file))
      return target.kind === "package" && plugin.name === target.name
    })
    if (!known) continue
    conflicts.push({
      file,
      entry,
      problem: `${known.what} is loaded too: two context plugins rewrite the same prompt before every model call`,
      fix: `remove ${JSON.stringify(entry)} from "plugin" in ${file} (or remove magic-context)`,
    })
  }
  const lists = [
    { entries: options.entries, exportName: "." as const, what: "plugin" },
    { entries: options.tuiEntries ?? [], exportName: "./tui" as const, what: "sidebar panel (TUI plugin)" },
  ]
  for (const list of lists) {
    const ours = list.entries.filter(({ file, entry }) => loadsMagicContext(entryTarget(entry, dirname(file))))
    const loadable: PluginEntry[] = []
    for (const { file, entry } of ours) {
      const reason = unloadableReason({ target: entryTarget(entry, dirname(file)), configDir: dirname(file), exportName: list.exportName, cacheDir: options.cacheDir })
      if (reason) conflicts.push({ file, entry, ...reason })
      else loadable.push({ file, entry })
    }
    // An entry OpenCode cannot load loads nothing: only the others can load the plugin twice.
    conflicts.push(...duplicateLoads(loadable, list.what))
  }
  return conflicts
}

/**
 * magic-context listed by entries OpenCode loads separately: each entry past the first that OpenCode keeps, as a
 * conflict. (A `file://` URL and the plain path of the same file are merged by OpenCode and are no conflict.)
 */
function duplicateLoads(ours: readonly PluginEntry[], what: string): PluginConflict[] {
  const byKey = new Map<string, PluginEntry>()
  for (const entry of ours) {
    const key = loadKey(entryTarget(entry.entry, dirname(entry.file)))
    if (!byKey.has(key)) byKey.set(key, entry)
  }
  const kept = [...byKey.values()]
  if (kept.length < 2) return []
  const first = kept[0] as PluginEntry
  const listed = kept.map((entry) => `${JSON.stringify(entry.entry)} in ${entry.file}`).join(", ")
  return kept.slice(1).map((entry) => ({
    file: entry.file,
    entry: entry.entry,
    problem: `magic-context's ${what} is loaded ${kept.length} times (${listed}): OpenCode loads each of these entries`,
    fix: `keep one: remove ${JSON.stringify(entry.entry)} from "plugin" in ${entry.file} (${JSON.stringify(first.entry)} in ${first.file} stays)`,
  }))
}
