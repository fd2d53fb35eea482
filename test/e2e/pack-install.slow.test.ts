import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isTitleRequest, messageText, startMockModelServer, type ChatRequest, type MockModelServer, type MockReply } from "./harness/mock-model-server.js"
import { createOpenCodeSandbox, OPENCODE_BIN, REPO_ROOT, runBinary, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import { createPiSandbox, PI_HOSTS, PI_1, type PiHost, type PiSandbox } from "./harness/pi-harness.js"
import { systemTexts, toolMessages } from "./harness/prompt-inspection.js"
import { queryStore } from "./harness/store-reader.js"
import { startInTmux, tmuxMissing, type TmuxScreen } from "./harness/tmux-screen.js"

const noTmux = tmuxMissing()
// Said once where the suite's output shows it, never a silent skip.
if (noTmux) console.warn(`pack-install.slow.test.ts: the sidebar panel's check is skipped: ${noTmux}`)

/**
 * The README's install from a tarball, step by step: `npm pack` the package, `npm install --omit=dev` the tarball
 * into a folder of its own (production dependencies only: no devDependency is there to lean on), run that copy's
 * `magic-context setup` for OpenCode and `setup --pi` for Pi, `doctor`, then start the real OpenCode and the real Pi
 * in the project and check that the model's requests carry the context tools and the `§N§` tags.
 */
describe("the packed package, installed with production dependencies only as the README says", () => {
  let scratch: string
  /** The folder the tarball is installed into (the README's `~/.local/magic-context`). */
  let installDir: string
  let installed: string
  let installMs: number
  let opencodeMock: MockModelServer
  let sandbox: OpenCodeSandbox
  let setupOpenCode: CliRun
  let setupPi: CliRun
  /** `setup` and `setup --pi` run a second time. */
  let setupAgain: CliRun[]
  /** The files setup writes, before and after running it a second time. */
  let written: { before: (string | null)[]; after: (string | null)[] }
  let doctor: CliRun
  let doctorUntrusted: CliRun
  let opencodeRun: RunResult
  /** What the mock got during `opencode run` (the TUI's turn comes after it). */
  let runRequests: ChatRequest[]

  /** `npx magic-context <args>` in the install folder, with the sandbox's HOME and XDG dirs. */
  const npx = (args: string[], env: Record<string, string>): CliRun => cli("npx", ["magic-context", ...args], installDir, env)

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "magic-context-pack-"))
    // `npm pack` runs the `prepare` script (the build); `npm run test:slow-e2e` has just built dist/, so the test
    // packs it as it is instead of building it a second time.
    const packed = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], { cwd: REPO_ROOT, encoding: "utf8" })) as { filename: string }[]
    const tarball = join(scratch, packed[0]!.filename)
    installDir = join(scratch, "magic-context")
    mkdirSync(installDir)
    const started = performance.now()
    execFileSync("npm", ["install", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund", tarball], { cwd: installDir, stdio: "ignore" })
    installMs = performance.now() - started
    process.stdout.write(`pack-install: npm install --omit=dev of ${packed[0]!.filename} took ${(installMs / 1000).toFixed(1)} s\n`)
    installed = join(installDir, "node_modules", "magic-context")

    opencodeMock = await startMockModelServer(readThenAnswer("OPENCODE-INSTALLED-DONE", (path) => ({ filePath: path })))
    sandbox = createOpenCodeSandbox({ mockUrl: opencodeMock.url, pluginEntry: null, files: { "notes.md": "INSTALLED-NOTES\n" } })
    const env = { ...sandbox.env, npm_config_update_notifier: "false" }
    setupOpenCode = npx(["setup", "--directory", sandbox.project], env)
    setupPi = npx(["setup", "--pi", "--directory", sandbox.project], env)
    const files = ["opencode.json", "tui.json", ".opencode/magic-context.jsonc", ".pi/settings.json"].map((name) => join(sandbox.project, name))
    const before = files.map(readIfThere)
    setupAgain = [npx(["setup", "--directory", sandbox.project], env), npx(["setup", "--pi", "--directory", sandbox.project], env)]
    written = { before, after: files.map(readIfThere) }
    doctorUntrusted = npx(["doctor", "--directory", sandbox.project], env)
    // What Pi 1.x's `/trust` saves: the project's canonical path, trusted (its settings load magic-context).
    const agentDir = join(sandbox.root, "home", ".pi", "agent")
    mkdirSync(agentDir, { recursive: true })
    writeFileSync(join(agentDir, "trust.json"), `${JSON.stringify({ [realpathSync(sandbox.project)]: true }, null, 2)}\n`)
    doctor = npx(["doctor", "--directory", sandbox.project], env)
    opencodeRun = await sandbox.run(["run", "--print-logs", "--log-level", "INFO", "read", join(sandbox.project, "notes.md")], { timeoutMs: 240_000 })
    runRequests = opencodeMock.requests.map((request) => request.body).filter((body) => !isTitleRequest(body))
  }, 900_000)

  afterAll(async () => {
    await opencodeMock?.close()
    sandbox?.cleanup()
    if (scratch && !process.env["MAGIC_CONTEXT_KEEP_E2E"]) rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
  })

  it("installs without any devDependency", () => {
    const modules = join(installDir, "node_modules")
    for (const dev of ["@opencode-ai/plugin", "@opencode-ai/sdk", "@mariozechner/pi-coding-agent", "typescript"]) {
      expect(() => readFileSync(join(modules, dev, "package.json")), dev).toThrow()
    }
    expect(JSON.parse(readFileSync(join(installed, "package.json"), "utf8"))).toMatchObject({ name: "magic-context" })
  })

  it("setup writes the installed copy's entries, and running it again changes nothing", () => {
    expect(setupOpenCode.code, setupOpenCode.output).toBe(0)
    expect(setupPi.code, setupPi.output).toBe(0)
    const opencodeJson = JSON.parse(readFileSync(join(sandbox.project, "opencode.json"), "utf8")) as { plugin?: string[] }
    expect(opencodeJson.plugin).toEqual([`file://${join(installed, "dist", "index.js")}`])
    const piSettings = JSON.parse(readFileSync(join(sandbox.project, ".pi", "settings.json"), "utf8")) as { packages?: string[]; compaction?: unknown }
    expect(piSettings).toEqual({ packages: [installed], compaction: { enabled: false } })
    for (const again of setupAgain) {
      expect(again.code, again.output).toBe(0)
      expect(again.output).toContain("nothing to change: already set up")
    }
    expect(written.before).not.toContain(null)
    expect(written.after).toEqual(written.before)
  })

  it("doctor passes; before Pi 1.x trusts the project it warns of that alone", () => {
    expect(doctorUntrusted.code, doctorUntrusted.output).toBe(0)
    expect(doctorUntrusted.output.match(/^\[(fail|warn)[^\]]*\] .*$/gm)).toEqual(["[warn] Pi project trust"])
    expect(doctor.code, doctor.output).toBe(0)
    expect(doctor.output).toContain("magic-context looks ready.")
    expect(doctor.output).not.toMatch(/^\[(fail|warn)/m)
  })

  it("OpenCode runs the installed copy: the request carries the context tools and §N§ tags on the prompt and the tool output", () => {
    expect(opencodeRun.exitCode, opencodeRun.stderr.slice(-3000)).toBe(0)
    expect(opencodeRun.stdout).toContain("OPENCODE-INSTALLED-DONE")
    expectTaggedRun(runRequests, `§1§ read ${join(sandbox.project, "notes.md")}`)
    expect(queryStore<{ value: string }>(sandbox.databaseFile, "SELECT value FROM meta WHERE key = 'last_opened_by'")[0]?.value).toMatch(/^bun:sqlite on bun /)
  })

  describe.skipIf(noTmux !== null)("in the real OpenCode TUI", () => {
    let screen: TmuxScreen | undefined
    let shown = ""

    beforeAll(async () => {
      screen = startInTmux({ command: OPENCODE_BIN, cwd: sandbox.project, env: { ...sandbox.env, TERM: "xterm-256color" }, width: 200, height: 60, scratch: sandbox.root })
      await screen.waitFor((text) => text.includes("Ask anything"), 60_000, "the TUI's prompt")
      screen.type(`read ${join(sandbox.project, "notes.md")}`)
      screen.press("Enter")
      await screen.waitFor((text) => text.includes("OPENCODE-INSTALLED-DONE"), 120_000, "the turn's reply")
      // The sidebar panel's title, then its usage line.
      shown = await screen.waitFor((text) => /magic-context\s*\n[^\n]*tokens \(\d+%\)/.test(text), 30_000, "the sidebar panel")
    }, 240_000)

    afterAll(async () => {
      await screen?.close()
    })

    it("shows the sidebar panel from the installed copy's tui.json entry", () => {
      expect(shown).toMatch(/magic-context\s*\n[^\n]*\d[\d.,]*k? \/ [\d.,]+k? tokens \(\d+%\)/)
    })
  })

  for (const host of PI_HOSTS) {
    describe(`in the real Pi (${host.label})`, () => {
      let mock: MockModelServer
      let pi: PiSandbox
      let setup: CliRun
      let run: RunResult

      beforeAll(async () => {
        mock = await startMockModelServer(readThenAnswer("PI-INSTALLED-DONE", (path) => ({ path })))
        pi = createPiSandbox({ mockUrl: mock.url, host, files: { "notes.md": "INSTALLED-NOTES\n" } })
        setup = npx(["setup", "--pi", "--directory", pi.project], { ...pi.env, npm_config_update_notifier: "false" })
        run = await runPi(host, pi, `read ${join(pi.project, "notes.md")}`)
      }, 300_000)

      afterAll(async () => {
        await mock?.close()
        pi?.cleanup()
      })

      it("loads the installed copy from the project's settings: the request carries the context tools and §N§ tags", () => {
        expect(setup.code, setup.output).toBe(0)
        expect(run.exitCode, run.stderr.slice(-3000)).toBe(0)
        expect(run.stdout).toContain("PI-INSTALLED-DONE")
        expectTaggedRun(
          mock.requests.map((request) => request.body),
          `§1§ read ${join(pi.project, "notes.md")}`,
        )
        expect(queryStore<{ value: string }>(pi.databaseFile, "SELECT value FROM meta WHERE key = 'last_opened_by'")[0]?.value).toMatch(
          new RegExp(`^${host.storeDriver} on node \\d`),
        )
      })
    })
  }
})

type CliRun = { code: number; output: string }

/** A file's text, or null when it is not there (a failed setup is reported by the test that checks it). */
function readIfThere(file: string): string | null {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return null
  }
}

/** Runs a command to its end and keeps its exit code and both streams (a non-zero exit is a result, not a throw). */
function cli(command: string, args: string[], cwd: string, env: Record<string, string>): CliRun {
  try {
    const output = execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
    return { code: 0, output }
  } catch (error) {
    const failed = error as { status?: number | null; stdout?: string; stderr?: string }
    return { code: failed.status ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` }
  }
}

/**
 * `pi -p <prompt>` in the project with no `-e`: the extension comes only from the project's `.pi/settings.json`, as
 * `setup --pi` wrote it. Pi 1.x loads a project's settings once the project is trusted: `--approve` is the one-time
 * yes that its start-up prompt asks for in the terminal.
 */
function runPi(host: PiHost, pi: PiSandbox, prompt: string): Promise<RunResult> {
  const trust = host === PI_1 ? ["--approve"] : []
  const args = ["-p", prompt, "--provider", "mock", "--model", "mock-model", "--offline", "--session-dir", join(pi.root, "sessions"), ...trust]
  return runBinary(host.node, { args: [host.bin, ...args], cwd: pi.project, env: pi.env, timeoutMs: 240_000 })
}

/** The mock's script: read the file the prompt names, then answer `marker`. */
function readThenAnswer(marker: string, readArgs: (path: string) => Record<string, unknown>): (request: ChatRequest) => MockReply {
  return (request) => {
    if (isTitleRequest(request)) return { kind: "text", text: "Title" }
    if (toolMessages(request).length > 0) return { kind: "text", text: marker }
    const prompt = request.messages.filter((message) => message.role === "user").map(messageText).at(-1) ?? ""
    return { kind: "tool", name: "read", args: readArgs(prompt.replace(/^.*read /, "")) }
  }
}

/** Two requests (the read, then the answer): the context tools and the guidance in both, the prompt and the output tagged once. */
function expectTaggedRun(requests: ChatRequest[], taggedPrompt: string): void {
  expect(requests).toHaveLength(2)
  for (const request of requests) {
    expect((request.tools ?? []).map((tool) => tool.function.name)).toEqual(expect.arrayContaining(["ctx_reduce", "ctx_expand", "ctx_pin"]))
    expect(systemTexts(request).join("\n").split("<context-management>").length - 1).toBe(1)
    expect(request.messages.filter((message) => message.role === "user").map(messageText)).toEqual([taggedPrompt])
  }
  const [output] = toolMessages(requests[1]!).map(messageText)
  expect(output).toMatch(/^§2§ [\s\S]*INSTALLED-NOTES/)
}
