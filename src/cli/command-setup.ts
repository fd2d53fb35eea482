import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, resolve, sep } from "node:path"
import { parseCommandArgs } from "./parse-command-args.js"
import { FILE_NAMES } from "../config/load-config.js"
import { userConfigDir } from "../config/read-config-files.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { lineDiff } from "./line-diff.js"
import { inspectOpenCodeInstall, isMagicContextEntry, loadsMagicContextTui } from "../install/opencode-install.js"
import { OWN_BUILD_ENTRY, OWN_PACKAGE_ROOT, OWN_SCHEMA_FILE, OWN_TUI_ENTRY } from "../install/own-package.js"
import { inspectPiInstall, piSettingsFile } from "../install/pi-install.js"
import { entryTarget, loadsMagicContext, PACKAGE_NAME } from "../install/plugin-entry-target.js"
import { starterConfig } from "./setup-config-file.js"
import { editOpenCodeConfig, editPiSettings, editTuiConfig, type ConfigEdit } from "./setup-edits.js"
import type { Result } from "../result.js"

export const SETUP_HELP = `magic-context setup [--global] [--directory DIR] [--pi] [--entry ENTRY] [--compaction] [--no-tui] [--dry-run]

Sets OpenCode up to load this copy of magic-context (a checkout or an installed tarball): adds the plugin entry to
the project's opencode.json (or opencode.jsonc, whichever exists; --global: ~/.config/opencode/), the sidebar panel
to tui.json beside it, the recommended compaction settings ("auto": false, "prune": false) where no config file
that applies sets them, and a magic-context.jsonc holding only "$schema" and commented guidance when no
magic-context config applies yet. Nothing is added where another applying config file already loads magic-context
(two entries would load it twice). Comments and formatting are kept; running it again changes nothing.

With --pi it sets Pi up instead: adds this package to "packages" in the project's .pi/settings.json (--global:
~/.pi/agent/settings.json), as \`pi install <path>\` does, and turns Pi's own compaction off where no settings set it.

  --global         the user's config instead of the project's
  --directory DIR  the project (default: the current directory)
  --pi             set Pi up instead of OpenCode
  --entry ENTRY    the entry to add (default: this copy: the file:// URL of its dist/index.js for OpenCode, its
                   folder for Pi)
  --compaction     also set the compaction settings where a file sets them otherwise
  --no-tui         leave tui.json alone (no sidebar panel)
  --dry-run        print the changes as a diff and write nothing`

type Write = { file: string; before: string | null; after: string }
type Plan = { writes: Write[]; notes: string[] }

/** `magic-context setup`. */
export async function commandSetup(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    options: {
      global: { type: "boolean" },
      directory: { type: "string" },
      pi: { type: "boolean" },
      entry: { type: "string" },
      compaction: { type: "boolean" },
      "no-tui": { type: "boolean" },
      "dry-run": { type: "boolean" },
      help: { type: "boolean" },
    },
  })
  if (parsed.values.help) {
    io.stdout(SETUP_HELP)
    return EXIT.ok
  }
  const projectDir = resolve(io.cwd, parsed.values.directory ?? ".")
  if (!existsSync(projectDir) || !statSync(projectDir).isDirectory()) {
    io.stderr(`magic-context setup: --directory ${projectDir}: no such directory; nothing was written`)
    return EXIT.problem
  }
  const options = {
    projectDir,
    global: parsed.values.global === true,
    entry: parsed.values.entry ?? null,
    forceCompaction: parsed.values.compaction === true,
    tui: parsed.values["no-tui"] !== true,
    env: io.env,
  }
  const plan = parsed.values.pi ? planPi(options) : planOpenCode(options)
  if (!plan.ok) {
    io.stderr(plan.error)
    return EXIT.problem
  }
  const { writes, notes } = plan.value
  for (const note of notes) io.stdout(note)
  if (parsed.values["dry-run"]) {
    for (const write of writes) {
      io.stdout("")
      for (const line of lineDiff(write)) io.stdout(line)
    }
    io.stdout("")
    io.stdout(writes.length === 0 ? "dry run: nothing to change" : "dry run: nothing was written")
    return EXIT.ok
  }
  for (const write of writes) {
    mkdirSync(dirname(write.file), { recursive: true })
    writeFileSync(write.file, write.after)
  }
  io.stdout(writes.length === 0 ? "nothing to change: already set up" : `wrote ${writes.map((write) => write.file).join(", ")}`)
  // The command as this copy runs it: `magic-context` is on no PATH in a checkout or a tarball's install folder.
  if (writes.length > 0) io.stdout(`check it with: node ${join(OWN_PACKAGE_ROOT, "dist", "cli", "bin.js")} doctor --directory ${projectDir}`)
  return EXIT.ok
}

type SetupOptions = {
  projectDir: string
  global: boolean
  entry: string | null
  forceCompaction: boolean
  tui: boolean
  env: Record<string, string | undefined>
}

/** The OpenCode files to write: the plugin and panel entries, compaction, the starter magic-context.jsonc. */
function planOpenCode(options: SetupOptions): Result<Plan> {
  const { projectDir, global, env } = options
  const configDir = global ? userConfigDir(env) : projectDir
  const install = inspectOpenCodeInstall({ directory: projectDir, env })
  const unreadable = install.unreadable[0]
  if (unreadable) return { ok: false, error: `${unreadable.problem}; fix it first, nothing was written` }
  const ours = (entry: string, file: string): boolean => isMagicContextEntry(entry) || loadsMagicContext(entryTarget(entry, dirname(file)))
  // For --global only the user's files count; a project's entry does not load it in other projects.
  const applying = (file: string): boolean => !global || dirname(file) === configDir
  const loadedElsewhere = install.pluginEntries.find(({ file, entry }) => applying(file) && ours(entry, file)) ?? null
  const panelElsewhere =
    install.tuiEntries.find((ref) => applying(ref.file) && loadsMagicContextTui(ref)) ?? null
  const compactionSetElsewhere = {
    ...(install.compaction.autoSource.includes(sep) && applying(install.compaction.autoSource) ? { auto: install.compaction.autoSource } : {}),
    ...(install.compaction.pruneSource.includes(sep) && applying(install.compaction.pruneSource) ? { prune: install.compaction.pruneSource } : {}),
  }

  const openCodeFile = existingOrFirst(configDir, ["opencode.jsonc", "opencode.json"], "opencode.json")
  const before = readIfExists(openCodeFile)
  const entry = options.entry ?? defaultEntry()
  const edit = editOpenCodeConfig({
    file: openCodeFile,
    text: before,
    entry,
    forceCompaction: options.forceCompaction,
    loadedElsewhere,
    compactionSetElsewhere,
    isOurs: (name) => ours(name, openCodeFile),
  })
  if (!edit.ok) return edit
  const edits: { file: string; before: string | null; edit: ConfigEdit; what: string }[] = [{ file: openCodeFile, before, edit: edit.value, what: "" }]
  if (options.tui) {
    const tuiFile = existingOrFirst(configDir, ["tui.jsonc", "tui.json"], "tui.json")
    const tuiBefore = readIfExists(tuiFile)
    const tuiEdit = editTuiConfig({
      file: tuiFile,
      text: tuiBefore,
      entry: tuiEntryFor(entry),
      loadedElsewhere: panelElsewhere,
      isOurs: (entry) => loadsMagicContextTui({ file: tuiFile, entry }),
    })
    if (!tuiEdit.ok) return tuiEdit
    // With the panel loaded elsewhere, a missing tui.json stays missing.
    const unchanged = panelElsewhere !== null && tuiBefore === null
    edits.push({ file: tuiFile, before: tuiBefore, edit: unchanged ? { after: "", notes: tuiEdit.value.notes } : tuiEdit.value, what: " (the sidebar panel)" })
  }
  const writes: Write[] = edits.filter(({ before, edit }) => edit.after !== before && !(before === null && edit.after === "")).map(({ file, before, edit }) => ({ file, before, after: edit.after }))
  const notes = edits.flatMap(({ file, edit, what }) => edit.notes.map((note) => `${file}: ${note}${what}`))

  // The plugin's own config: any file that applies (the user's or the project's) means there is nothing to write.
  const pluginConfigDirs = global ? [configDir] : [join(projectDir, ".opencode"), projectDir, userConfigDir(env)]
  const existing = pluginConfigDirs.flatMap((dir) => FILE_NAMES.map((name) => join(dir, name))).find((file) => existsSync(file))
  const pluginConfigFile = join(global ? configDir : join(projectDir, ".opencode"), "magic-context.jsonc")
  if (existing) notes.push(`${existing}: magic-context config already there, nothing written beside it`)
  else {
    writes.push({ file: pluginConfigFile, before: null, after: starterConfig({ schema: OWN_SCHEMA_FILE, scope: global ? "user" : "project" }) })
    notes.push(`${pluginConfigFile}: a starter config ("$schema" and comments only: it sets no value)`)
  }
  return { ok: true, value: { writes, notes } }
}

/** Pi's settings file to write: this package in `packages`, Pi's compaction off. */
function planPi(options: SetupOptions): Result<Plan> {
  const { projectDir, global, env } = options
  const file = piSettingsFile({ global, directory: projectDir, env })
  const install = inspectPiInstall({ directory: projectDir, env })
  const unreadable = install.unreadable[0]
  if (unreadable) return { ok: false, error: `${unreadable}; fix it first, nothing was written` }
  const ours = (entry: string, settings: string): boolean => loadsMagicContext(entryTarget(entry, dirname(settings)))
  const applying = (settings: string): boolean => !global || settings === file
  const loadedElsewhere = install.entries.find(({ file: settings, entry }) => applying(settings) && ours(entry, settings)) ?? null
  const compactionSource = install.compaction.source
  const before = readIfExists(file)
  const edit = editPiSettings({
    file,
    text: before,
    source: options.entry ?? OWN_PACKAGE_ROOT,
    forceCompaction: options.forceCompaction,
    loadedElsewhere,
    compactionSetElsewhere: compactionSource !== file && compactionSource.includes(sep) && applying(compactionSource) ? compactionSource : null,
    isOurs: (entry) => ours(entry, file),
  })
  if (!edit.ok) return edit
  return {
    ok: true,
    value: {
      writes: edit.value.after === before ? [] : [{ file, before, after: edit.value.after }],
      notes: edit.value.notes.map((note) => `${file}: ${note}`),
    },
  }
}

function readIfExists(file: string): string | null {
  return existsSync(file) ? readFileSync(file, "utf8") : null
}

/**
 * The TUI plugin entry that goes with the server plugin's: the same package (OpenCode loads its `./tui` export), or
 * the `tui.js` beside a path's `index.js`.
 */
function tuiEntryFor(entry: string): string {
  if (entry === OWN_BUILD_ENTRY) return OWN_TUI_ENTRY
  return entry.endsWith("/index.js") ? `${entry.slice(0, -"/index.js".length)}/tui.js` : entry
}

function existingOrFirst(dir: string, names: readonly string[], fallback: string): string {
  return names.map((name) => join(dir, name)).find((file) => existsSync(file)) ?? join(dir, fallback)
}

/**
 * This copy's build (`file://…/dist/index.js`), a checkout's or an installed tarball's alike; the package name only
 * when the CLI runs from npx's cache (a copy that does not stay), which works once the package is published.
 */
function defaultEntry(): string {
  return OWN_PACKAGE_ROOT.split(sep).includes("_npx") ? PACKAGE_NAME : OWN_BUILD_ENTRY
}
