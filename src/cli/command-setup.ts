import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { parseCommandArgs } from "./parse-command-args.js"
import { configExampleJsonc } from "../config/generate-config-docs.js"
import { FILE_NAMES } from "../config/load-config.js"
import { userConfigDir } from "../config/read-config-files.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { lineDiff } from "./line-diff.js"
import { OWN_BUILD_ENTRY } from "./opencode-install.js"
import { editOpenCodeConfig, editTuiConfig } from "./setup-edits.js"

export const SETUP_HELP = `magic-context setup [--global] [--directory DIR] [--entry ENTRY] [--compaction] [--no-tui] [--dry-run]

Sets OpenCode up to load magic-context: adds the plugin entry to the project's opencode.json (or opencode.jsonc,
whichever exists; --global: ~/.config/opencode/), adds the recommended compaction settings ("auto": false,
"prune": false) where the file sets none, adds the sidebar panel (the TUI plugin) to tui.json beside it, and
writes a commented magic-context.jsonc (every key at its default) when there is none at that level. Comments and
formatting of existing files are kept; running it again changes nothing. An explicit compaction setting is left
as it is unless --compaction is given.

  --global         the user's OpenCode config (~/.config/opencode/) instead of the project's
  --directory DIR  the project (default: the current directory)
  --entry ENTRY    the plugin entry to add (default: "magic-context" when installed as a package, else the
                   file:// URL of this checkout's dist/index.js)
  --compaction     also set compaction.auto and compaction.prune where the file sets them otherwise
  --no-tui         leave tui.json alone (no sidebar panel)
  --dry-run        print the changes as a diff and write nothing`

/** `magic-context setup`. */
export async function commandSetup(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    options: {
      global: { type: "boolean" },
      directory: { type: "string" },
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
  const global = parsed.values.global === true
  const dryRun = parsed.values["dry-run"] === true
  const projectDir = resolve(io.cwd, parsed.values.directory ?? ".")
  const configDir = global ? userConfigDir(io.env) : projectDir
  const openCodeFile = existingOrFirst(configDir, ["opencode.jsonc", "opencode.json"], "opencode.json")
  const before = readIfExists(openCodeFile)
  const entry = parsed.values.entry ?? defaultEntry()
  const edit = editOpenCodeConfig({ file: openCodeFile, text: before, entry, forceCompaction: parsed.values.compaction === true })
  if (!edit.ok) {
    io.stderr(edit.error)
    return EXIT.problem
  }
  const tuiFile = existingOrFirst(configDir, ["tui.jsonc", "tui.json"], "tui.json")
  const tuiBefore = readIfExists(tuiFile)
  const tuiEdit = parsed.values["no-tui"] ? null : editTuiConfig({ file: tuiFile, text: tuiBefore, entry: tuiEntryFor(entry) })
  if (tuiEdit && !tuiEdit.ok) {
    io.stderr(tuiEdit.error)
    return EXIT.problem
  }

  // The plugin's own config at the same level: ~/.config/opencode/ for --global, the project's .opencode/ otherwise.
  const pluginConfigDirs = global ? [configDir] : [join(projectDir, ".opencode"), projectDir]
  const existingPluginConfig = pluginConfigDirs.flatMap((dir) => FILE_NAMES.map((name) => join(dir, name))).find((file) => existsSync(file))
  const pluginConfigFile = join(pluginConfigDirs[0] as string, "magic-context.jsonc")
  const writes: { file: string; before: string | null; after: string }[] = []
  if (edit.value.after !== before) writes.push({ file: openCodeFile, before, after: edit.value.after })
  if (tuiEdit && tuiEdit.value.after !== tuiBefore) writes.push({ file: tuiFile, before: tuiBefore, after: tuiEdit.value.after })
  if (!existingPluginConfig) writes.push({ file: pluginConfigFile, before: null, after: configExampleJsonc() })

  for (const note of edit.value.notes) io.stdout(`${openCodeFile}: ${note}`)
  for (const note of tuiEdit?.value.notes ?? []) io.stdout(`${tuiFile}: ${note} (the sidebar panel)`)
  io.stdout(
    existingPluginConfig
      ? `${existingPluginConfig}: magic-context config already there, left as it is`
      : `${pluginConfigFile}: ${dryRun ? "would write" : "writing"} the commented default config`,
  )
  if (dryRun) {
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
  if (writes.length > 0) io.stdout("check it with: npx magic-context doctor")
  return EXIT.ok
}

function readIfExists(file: string): string | null {
  return existsSync(file) ? readFileSync(file, "utf8") : null
}

/**
 * The TUI plugin entry that goes with the server plugin's: the same package (OpenCode loads its `./tui` export), or
 * the `tui.js` beside a path's `index.js`.
 */
function tuiEntryFor(entry: string): string {
  return entry.endsWith("/index.js") ? `${entry.slice(0, -"/index.js".length)}/tui.js` : entry
}

function existingOrFirst(dir: string, names: readonly string[], fallback: string): string {
  return names.map((name) => join(dir, name)).find((file) => existsSync(file)) ?? join(dir, fallback)
}

/** "magic-context" when this CLI runs from an installed package, else the file:// URL of this checkout's build. */
function defaultEntry(): string {
  return fileURLToPath(OWN_BUILD_ENTRY).split(sep).includes("node_modules") ? "magic-context" : OWN_BUILD_ENTRY
}
