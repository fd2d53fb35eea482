import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { parseCommandArgs } from "./parse-command-args.js"
import { isConfigError } from "../config/load-config.js"
import { readConfigFiles } from "../config/read-config-files.js"
import { configuredDatabasePath } from "../store/database-path.js"
import { migrate, readSchemaVersion } from "../store/migrate.js"
import { SCHEMA_VERSION } from "../store/migrations/index.js"
import { openDatabase } from "../store/open-database.js"
import { createTokenCounterPool } from "../tokens/tiktoken-counter.js"
import { pluginConflicts } from "./plugin-conflicts.js"
import { openCodeCacheDir } from "../install/plugin-entry-target.js"
import { checkPi } from "./doctor-pi.js"
import type { Config } from "../config/schema.js"
import { resolveWindow } from "../pressure/model-window.js"
import { describePrices, PRICE_LIST_NAMES } from "../session/price-lists.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { inspectOpenCodeInstall, loadsMagicContextTui, type OpenCodeInstall } from "../install/opencode-install.js"
import { checkSqliteDriver } from "./doctor-sqlite-driver.js"
import type { Check, CheckStatus } from "./doctor-check.js"

export const DOCTOR_HELP = `magic-context doctor [--json] [--directory DIR]

Checks an install: the OpenCode plugin entry and the sidebar panel's tui.json entry (each one OpenCode can load:
a package it has installed, or a path with a build), magic-context loaded more than once across opencode.json(c),
.opencode/ and the global config, other context plugins, the magic-context config files, the database, the token
counter, OpenCode's and Pi's own compaction, and Pi's extension entry. Each failure comes with its fix; exits 1
when a check fails.`

export type { Check, CheckStatus } from "./doctor-check.js"

/** `magic-context doctor`. */
export async function commandDoctor(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    options: { json: { type: "boolean" }, directory: { type: "string" }, help: { type: "boolean" } },
  })
  if (parsed.values.help) {
    io.stdout(DOCTOR_HELP)
    return EXIT.ok
  }
  const directory = resolve(io.cwd, parsed.values.directory ?? ".")
  if (!existsSync(directory)) {
    io.stderr(`magic-context doctor: --directory ${directory}: no such directory`)
    return EXIT.problem
  }
  const checks = await runChecks(directory, io.env)
  if (parsed.values.json) io.stdout(JSON.stringify({ checks }, null, 2))
  else printChecks(io, checks)
  return checks.some((check) => check.status === "fail") ? EXIT.problem : EXIT.ok
}

/** Runs every check; a check that throws is reported as failed, never thrown. */
export async function runChecks(directory: string, env: Record<string, string | undefined>): Promise<Check[]> {
  const loaded = readConfigFiles({ directory, env })
  const install = inspectOpenCodeInstall({ directory, env })
  const checks: Check[] = [checkPluginEntry(directory, install), checkTuiPanel(directory, install), checkPluginConflicts(install, env)]
  checks.push({
    name: "magic-context config",
    status: loaded.diagnostics.some(isConfigError) ? "fail" : loaded.diagnostics.length > 0 ? "warn" : "ok",
    detail: [
      loaded.files.length > 0 ? `files: ${loaded.files.map((location) => location.file).join(", ")}` : "no config file (defaults apply)",
      ...loaded.diagnostics.map((diagnostic) => diagnostic.message),
    ],
  })
  checks.push(checkSqliteDriver())
  checks.push(await checkDatabase(configuredDatabasePath(loaded.config.database.path, env)))
  checks.push(checkTokenizer())
  checks.push(checkHostCompaction(install))
  checks.push(checkReasoningRule(install, loaded.config))
  checks.push(checkPriceList(install, loaded.config))
  checks.push(...checkPi({ directory, env }))
  return checks
}

/**
 * The provider's rule on reasoning state for OpenCode's configured model (`session/reasoning-rules.ts`): a warning
 * where the model runs Anthropic's prefix check, since that is where a context plugin can break a session.
 */
function checkReasoningRule(install: OpenCodeInstall, config: Config): Check {
  const name = "Reasoning rule"
  if (!install.model) return { name, status: "ok", detail: ["no model set in OpenCode's config: the rule is chosen per session from the model in use"] }
  const { providerID, modelID, source, npm } = install.model
  const window = resolveWindow({ providerID, modelID, hostLimits: null, config, hostApi: npm })
  const rule = window.reasoning
  const detail = [
    `${providerID}/${modelID} (${source}): ${rule.id}, ${window.reasoningSource === "config" ? "set in magic-context's config" : "from the provider table"}`,
    rule.summary,
  ]
  if (!rule.prefixCheck) return { name, status: "ok", detail }
  detail.push(
    "this model runs Anthropic's preserved-thinking prefix check: a request whose thinking blocks' prefix changed is",
    "rejected (400) or loses that thinking. magic-context withholds the blocks its execute passes invalidate and holds",
    "those passes for the turn boundary; keep OpenCode's default thinking block binding (drop_block) as the safety net.",
    `source: ${rule.source}`,
  )
  return { name, status: "warn", detail }
}

/**
 * The price list OpenCode's configured model runs under (`session/price-lists.ts`): what the cost rule and every cost
 * estimate use. Where the provider is not in the table (the most conservative list applies) it says how to name the
 * provider's list; a warning only where a price override of the config was set aside.
 */
function checkPriceList(install: OpenCodeInstall, config: Config): Check {
  const name = "Price list"
  if (!install.model) return { name, status: "ok", detail: ["no model set in OpenCode's config: the list is chosen per session from the model in use"] }
  const { providerID, modelID, source, npm } = install.model
  const window = resolveWindow({ providerID, modelID, hostLimits: null, config, hostApi: npm })
  const { priceList } = window
  const detail = [`${providerID}/${modelID} (${source}): ${describePrices({ ...priceList, prices: window.prices })}`]
  if (priceList.problem !== null) detail.push(priceList.problem)
  if (priceList.origin === "unknown-provider") {
    detail.push(`name the provider's list in magic-context's config, e.g. "models": { "${providerID}/*": { "price_list": "openai" } } (lists: ${PRICE_LIST_NAMES.join(", ")})`)
  }
  return { name, status: priceList.problem !== null ? "warn" : "ok", detail }
}

function checkPluginEntry(directory: string, install: OpenCodeInstall): Check {
  const unreadable = install.unreadable.map((entry) => `${entry.problem}; OpenCode cannot read it either: fix it first`)
  if (install.pluginReferences.length > 0) {
    return {
      name: "OpenCode plugin entry",
      status: unreadable.length > 0 ? "fail" : "ok",
      detail: [...install.pluginReferences.map((ref) => `${ref.file}: ${ref.entry}`), ...unreadable],
    }
  }
  return {
    name: "OpenCode plugin entry",
    status: "fail",
    detail: [
      `no OpenCode config for ${directory} loads magic-context`,
      "fix: run `magic-context setup` from a checkout or an installed tarball (it writes the entry)",
      ...unreadable,
    ],
  }
}

/** Whether a `tui.json` loads the sidebar panel (a warning when none does: the plugin works without it). */
function checkTuiPanel(directory: string, install: OpenCodeInstall): Check {
  const references = install.tuiEntries.filter(loadsMagicContextTui)
  if (references.length > 0) return { name: "OpenCode sidebar panel", status: "ok", detail: references.map((ref) => `${ref.file}: ${ref.entry}`) }
  return {
    name: "OpenCode sidebar panel",
    status: "warn",
    detail: [
      `no tui.json for ${directory} loads the sidebar panel (the plugin works without it)`,
      "fix: run `magic-context setup` from a checkout or an installed tarball (it adds the panel to tui.json)",
    ],
  }
}

/** Another context plugin loaded beside magic-context, or a magic-context entry whose build is missing, with the fix. */
function checkPluginConflicts(install: OpenCodeInstall, env: Record<string, string | undefined>): Check {
  const conflicts = pluginConflicts({ entries: install.pluginEntries, tuiEntries: install.tuiEntries, cacheDir: openCodeCacheDir(env) })
  if (conflicts.length === 0) {
    return { name: "plugin conflicts", status: "ok", detail: ["no other context plugin; magic-context loads once and every entry of it has a build"] }
  }
  return {
    name: "plugin conflicts",
    status: "fail",
    detail: conflicts.flatMap((conflict) => [`${conflict.file}: ${conflict.entry}: ${conflict.problem}`, `  fix: ${conflict.fix}`]),
  }
}

/** Opens an existing store (which refuses a broken one); a missing one is only reported: the plugin creates it. */
async function checkDatabase(file: string): Promise<Check> {
  if (!existsSync(file)) {
    return { name: "database", status: "ok", detail: [`${file}: no store yet; the plugin creates it on first use`] }
  }
  try {
    const db = await openDatabase(file)
    try {
      db.transaction(() => {
        db.exec("CREATE TEMP TABLE IF NOT EXISTS doctor_probe (x INTEGER)")
        db.exec("INSERT INTO doctor_probe VALUES (1)")
        db.exec("DROP TABLE doctor_probe")
      })
      migrate(db, { file })
      const sessions = Number(db.prepare("SELECT COUNT(*) AS n FROM sessions").get()?.["n"] ?? 0)
      return {
        name: "database",
        status: "ok",
        detail: [`${file} (${db.driver}), schema version ${readSchemaVersion(db)} of ${SCHEMA_VERSION}, ${sessions} sessions`],
      }
    } finally {
      db.close()
    }
  } catch (error) {
    return { name: "database", status: "fail", detail: [error instanceof Error ? error.message : String(error)] }
  }
}

function checkTokenizer(): Check {
  const pool = createTokenCounterPool()
  try {
    const detail = (["o200k_base", "cl100k_base"] as const).map((encoding) => {
      const started = performance.now()
      const tokens = pool.counterFor(encoding).count("hello world")
      return `${encoding}: loads, "hello world" = ${tokens} tokens (${Math.round(performance.now() - started)} ms to load)`
    })
    return { name: "token counter", status: "ok", detail }
  } catch (error) {
    return { name: "token counter", status: "fail", detail: [error instanceof Error ? error.message : String(error)] }
  } finally {
    pool.dispose()
  }
}

function checkHostCompaction(install: OpenCodeInstall): Check {
  const { compaction } = install
  const detail = [
    `compaction.auto = ${compaction.auto} (${compaction.autoSource})`,
    `compaction.prune = ${compaction.prune} (${compaction.pruneSource})`,
  ]
  if (compaction.prune) {
    detail.push(
      "prune permanently clears old tool outputs in OpenCode's own database; magic-context reclaims them",
      'reversibly instead. Recommended: "compaction": { "auto": false, "prune": false }',
    )
    return { name: "OpenCode compaction", status: "warn", detail }
  }
  if (compaction.auto) {
    detail.push(
      "OpenCode's own summary still runs when the window fills. That works as a safety net, but it replaces",
      'the history magic-context keeps. Recommended: "compaction": { "auto": false, "prune": false }',
    )
    return { name: "OpenCode compaction", status: "warn", detail }
  }
  return { name: "OpenCode compaction", status: "ok", detail }
}

function printChecks(io: CliIo, checks: Check[]): void {
  const mark: Record<CheckStatus, string> = { ok: "ok  ", warn: "warn", fail: "FAIL" }
  for (const check of checks) {
    io.stdout(`[${mark[check.status]}] ${check.name}`)
    for (const line of check.detail) io.stdout(`       ${line}`)
  }
  const failed = checks.filter((check) => check.status === "fail").length
  io.stdout("")
  io.stdout(failed === 0 ? "magic-context looks ready." : `${failed} check(s) failed.`)
}
