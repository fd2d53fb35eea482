import { execFileSync, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root (the package under test). */
export const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url))

/** The real OpenCode binary from the installed `opencode-ai` package. */
export const OPENCODE_BIN = join(REPO_ROOT, "node_modules", ".bin", "opencode")

/** The version of `@opencode-ai/plugin` OpenCode would otherwise install into each config dir. */
const PLUGIN_PACKAGE_VERSION = "1.18.33"

export type RunResult = { exitCode: number | null; stdout: string; stderr: string; durationMs: number }

export type OpenCodeSandbox = {
  root: string
  project: string
  env: Record<string, string>
  /** Where magic-context keeps its store inside the sandbox. */
  databaseFile: string
  /** Runs `opencode <args>` in the project directory. */
  run(args: string[], options?: { env?: Record<string, string>; timeoutMs?: number }): Promise<RunResult>
  /** `opencode export <sessionID>` parsed. */
  exportSession(sessionId: string): unknown
  cleanup(): void
}

/**
 * An isolated OpenCode install: its own HOME and XDG dirs, a git project with an `opencode.json` that points the
 * model at the mock server and loads the plugin from the working tree (`dist/index.js`), and an unreachable npm
 * registry. The stub package files keep OpenCode from trying to install `@opencode-ai/plugin` (OPENCODE-NOTES §2.6),
 * so runs are fully offline.
 */
export function createOpenCodeSandbox(options: {
  mockUrl: string
  files?: Record<string, string>
  config?: Record<string, unknown>
  contextLimit?: number
  /** The model's output limit (`limit.output`, 4,096 unless set), which OpenCode reserves out of the context. */
  outputLimit?: number
  /** The model's input limit (`limit.input`), which OpenCode's overflow check then uses instead of the context. */
  inputLimit?: number
  pluginEntry?: string | null
}): OpenCodeSandbox {
  const root = mkdtempSync(join(tmpdir(), "magic-context-e2e-"))
  const project = join(root, "project")
  const dirs = {
    HOME: join(root, "home"),
    XDG_CONFIG_HOME: join(root, "xdg", "config"),
    XDG_DATA_HOME: join(root, "xdg", "data"),
    XDG_CACHE_HOME: join(root, "xdg", "cache"),
    XDG_STATE_HOME: join(root, "xdg", "state"),
  }
  for (const dir of [project, ...Object.values(dirs)]) mkdirSync(dir, { recursive: true })
  for (const configDir of [join(project, ".opencode"), join(dirs.XDG_CONFIG_HOME, "opencode")]) stubPluginInstall(configDir)

  const pluginEntry = options.pluginEntry === undefined ? `file://${join(REPO_ROOT, "dist", "index.js")}` : options.pluginEntry
  const opencodeConfig = {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    model: "mock/mock-model",
    small_model: "mock/mock-model",
    enabled_providers: ["mock"],
    compaction: { auto: false, prune: false },
    provider: {
      mock: {
        npm: "@ai-sdk/openai-compatible",
        name: "Mock",
        options: { baseURL: options.mockUrl, apiKey: "sk-mock" },
        models: {
          "mock-model": {
            name: "Mock Model",
            tool_call: true,
            limit: {
              context: options.contextLimit ?? 100_000,
              ...(options.inputLimit === undefined ? {} : { input: options.inputLimit }),
              output: options.outputLimit ?? 4096,
            },
          },
        },
      },
    },
    ...(pluginEntry ? { plugin: [pluginEntry] } : {}),
    ...options.config,
  }
  writeFileSync(join(project, "opencode.json"), JSON.stringify(opencodeConfig, null, 2))
  for (const [name, content] of Object.entries(options.files ?? {})) {
    mkdirSync(join(project, name, ".."), { recursive: true })
    writeFileSync(join(project, name), content)
  }
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: project, stdio: "ignore", env: { ...process.env, ...dirs } })
  }
  git("init", "-q")
  git("add", "-A")
  git("-c", "user.email=e2e@example.invalid", "-c", "user.name=e2e", "commit", "-qm", "fixture")

  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    ...dirs,
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    npm_config_registry: "http://127.0.0.1:9/",
  }
  return {
    root,
    project,
    env,
    databaseFile: join(dirs.XDG_DATA_HOME, "magic-context", "magic-context.db"),
    run: (args, runOptions) => runBinary(OPENCODE_BIN, { args, cwd: project, env: { ...env, ...runOptions?.env }, timeoutMs: runOptions?.timeoutMs }),
    exportSession(sessionId) {
      const out = execFileSync(OPENCODE_BIN, ["export", sessionId], { cwd: project, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
      return JSON.parse(out.slice(out.indexOf("{"))) as unknown
    },
    cleanup() {
      if (process.env["MAGIC_CONTEXT_KEEP_E2E"]) return
      rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
    },
  }
}

function stubPluginInstall(configDir: string): void {
  mkdirSync(join(configDir, "node_modules"), { recursive: true })
  const dependencies = { "@opencode-ai/plugin": PLUGIN_PACKAGE_VERSION }
  writeFileSync(join(configDir, "package.json"), JSON.stringify({ dependencies }))
  writeFileSync(join(configDir, "package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages: { "": { dependencies } } }))
}

/** Runs a host binary to its end (killed after `timeoutMs`, 120 s unless set), stdin closed, output collected. */
export function runBinary(bin: string, options: { args: string[]; cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<RunResult> {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(bin, options.args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000)
    child.on("close", (exitCode) => {
      clearTimeout(timer)
      resolve({ exitCode, stdout, stderr, durationMs: performance.now() - started })
    })
  })
}
