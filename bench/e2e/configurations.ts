import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { REPO_ROOT } from "../../test/e2e/harness/opencode-harness.js"
import { describeBenchList, priceListConfig, type BenchPriceList } from "./bench-price-lists.js"
import type { ReduceStyle } from "./reduce-style.js"
import { KEEP_NEWEST_OUTPUTS } from "./reminder-reply.js"

/** One way of running the session. */
export type BenchConfiguration = {
  id: "opencode" | "magic-context" | "magic-context-cooperative" | "dcp"
  title: string
  /** The price list magic-context's config names for the mock model (the engine decides under it); null without it. */
  priceList: BenchPriceList | null
  /**
   * The mock answers a magic-context reminder with a ctx_reduce of its oldest tool outputs before going on with the
   * script (reminder-reply.ts); otherwise it never calls a plugin's own tools.
   */
  cooperative: boolean
  /** How a cooperative agent calls ctx_reduce: beside its next tool call, or as a response of its own. */
  reduceStyle: ReduceStyle
  /** The `plugin` entry for opencode.json, or null for OpenCode alone. */
  pluginEntry: string | null
  /** Package version of the plugin, when it has one. */
  pluginVersion: string | null
  /** A tool the plugin registers: seeing it offered in the session's requests proves the plugin loaded. */
  pluginTool: string | null
  compaction: { auto: boolean; prune: boolean }
  /** Extra files in the sandbox project (plugin config). */
  files: Record<string, string>
  /** How the configuration is set up, for the report. */
  settings: string
  /** Why the configuration cannot run at all (the plugin is missing), or null. */
  unavailable: string | null
}

const DCP_PACKAGE = "@tarquinen/opencode-dcp"

/**
 * OpenCode alone, magic-context from dist/ with the passive agent under each of `lists`, the same with the
 * cooperative agent (calling ctx_reduce in `reduceStyle`), and DCP from node_modules, in report order.
 */
export function benchConfigurations(reduceStyle: ReduceStyle, lists: readonly BenchPriceList[]): BenchConfiguration[] {
  const configurations = [
    openCodeAlone(),
    ...lists.map((list) => magicContext(list)),
    ...lists.map((list) => cooperativeMagicContext(reduceStyle, list)),
    dynamicContextPruning(),
  ]
  return configurations.map((configuration) => ({ ...configuration, reduceStyle }))
}

function openCodeAlone(): Omit<BenchConfiguration, "reduceStyle"> {
  return {
    id: "opencode",
    title: "OpenCode alone",
    priceList: null,
    cooperative: false,
    pluginEntry: null,
    pluginVersion: null,
    pluginTool: null,
    // OpenCode's defaults: automatic compaction on, pruning off.
    compaction: { auto: true, prune: false },
    files: {},
    settings: "no plugin; compaction.auto true, prune false (OpenCode's defaults)",
    unavailable: null,
  }
}

function magicContext(list: BenchPriceList): Omit<BenchConfiguration, "reduceStyle"> {
  const entry = join(REPO_ROOT, "dist", "index.js")
  const version = packageVersion(join(REPO_ROOT, "package.json"))
  return {
    id: "magic-context",
    title: `${`magic-context ${version ?? ""}`.trim()}, ${list}`,
    priceList: list,
    cooperative: false,
    pluginEntry: `file://${entry}`,
    pluginVersion: version,
    pluginTool: "ctx_reduce",
    // The settings magic-context's README recommends: it replaces both.
    compaction: { auto: false, prune: false },
    files: { "magic-context.jsonc": priceListConfig(list, { historian: { strategy: "canonical" } }) },
    settings:
      "dist/index.js; magic-context.jsonc sets historian.strategy canonical (no model calls for the historian) and " +
      `models["mock/*"].price_list ${list} (${describeBenchList(list)}), everything else default; compaction.auto ` +
      "false, prune false (its README's recommendation)",
    unavailable: existsSync(entry) ? null : `${entry} is missing: run npm run build`,
  }
}

/** The same plugin and settings, with an agent that answers each reminder with a ctx_reduce call. */
function cooperativeMagicContext(reduceStyle: ReduceStyle, list: BenchPriceList): Omit<BenchConfiguration, "reduceStyle"> {
  const passive = magicContext(list)
  const how =
    reduceStyle === "batched"
      ? "in the same response as its next scripted tool call (as the guidance asks)"
      : "as a response of its own, then goes on with the script"
  return {
    ...passive,
    id: "magic-context-cooperative",
    title: `${passive.title}, cooperative (ctx_reduce ${reduceStyle})`,
    cooperative: true,
    settings:
      `as magic-context; the agent answers each reminder once with ctx_reduce of every tagged tool output but the ` +
      `newest ${KEEP_NEWEST_OUTPUTS}, ${how}`,
  }
}

function dynamicContextPruning(): Omit<BenchConfiguration, "reduceStyle"> {
  const packageDirectory = join(REPO_ROOT, "node_modules", ...DCP_PACKAGE.split("/"))
  const version = packageVersion(join(packageDirectory, "package.json"))
  const entry = join(packageDirectory, "dist", "index.js")
  // Loaded as a file path, not an npm spec: OpenCode would install an npm spec with arborist from the registry,
  // which the sandbox cannot reach. Its imports resolve from this repository's node_modules.
  const unavailable =
    version === null
      ? `${DCP_PACKAGE} is not installed in ${packageDirectory} (it is a devDependency: run npm ci)`
      : existsSync(entry)
        ? null
        : `${entry} is missing from the installed package`
  return {
    id: "dcp",
    title: `DCP ${version ?? "(not installed)"}`,
    priceList: null,
    cooperative: false,
    pluginEntry: `file://${entry}`,
    pluginVersion: version,
    pluginTool: "compress",
    // DCP leaves OpenCode's compaction alone, so a DCP user has OpenCode's defaults.
    compaction: { auto: true, prune: false },
    files: {
      // autoUpdate would ask the registry for a newer DCP. The nudge limits are shares of the window: at 200k they
      // are DCP's defaults (50k and 100k tokens), at 32k they scale those down, as DCP's README advises for small
      // models (the defaults exceed the whole window).
      ".opencode/dcp.jsonc":
        '{ "autoUpdate": false, "compress": { "minContextLimit": "25%", "maxContextLimit": "50%" } }\n',
    },
    settings:
      `${DCP_PACKAGE}@${version ?? "?"} from node_modules (file:// entry); .opencode/dcp.jsonc sets autoUpdate ` +
      "false and compress.minContextLimit/maxContextLimit 25%/50%, everything else default; compaction.auto true, " +
      "prune false (OpenCode's defaults)",
    unavailable,
  }
}

function packageVersion(file: string): string | null {
  if (!existsSync(file)) return null
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown }
  return typeof parsed.version === "string" ? parsed.version : null
}
