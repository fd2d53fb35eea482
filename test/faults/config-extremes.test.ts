import type { PluginInput } from "@opencode-ai/plugin"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it, vi } from "vitest"
import { EXIT } from "../../src/cli/cli-io.js"
import type { ConfigDiagnostic } from "../../src/config/load-config.js"
import { MAX_DIAGNOSTICS_PER_FILE } from "../../src/config/valid-layer.js"
import { createPlugin } from "../../src/plugin/create-plugin.js"
import type { HostPart as Part } from "../../src/transcript/host-message.js"
import { text, userMessage, visibleText } from "../helpers/host-messages.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome } from "../helpers/temp-dirs.js"
import { recordFaultTally } from "./fault-table.js"

/**
 * Malformed and extreme config, through the paths a user meets it on: `magic-context config`, `magic-context replay`
 * and the plugin's own start-up. Each must answer with a clear message naming the file (and the key where there is
 * one), never crash, never hang, and never leave the plugin off.
 */

const dirs = createTempDirs()
const home = createTempHome(dirs)
const tallies = new Map<string, { tried: number; survived: number }>()
const FIXTURES = new URL("../../fixtures/synthetic/", import.meta.url).pathname

afterEach(() => vi.unstubAllEnvs())
afterAll(() => {
  for (const [probe, { tried, survived }] of tallies) recordFaultTally({ probe, tried, survived, lost: tried - survived })
  dirs.cleanup()
})

const NESTED = 100_000
/** Extreme files and what their diagnostics must say (every one names the file). */
const EXTREMES: { name: string; text: string; keys: (string | null)[]; says: RegExp }[] = [
  { name: "100,000 nested arrays", text: `{ "pins": ${"[".repeat(NESTED)}${"]".repeat(NESTED)} }`, keys: [null], says: /nested more than 64 levels deep/ },
  { name: "100,000 nested objects", text: `{ "models": ${'{"m":'.repeat(NESTED)}1${"}".repeat(NESTED)} }`, keys: [null], says: /nested more than 64 levels deep/ },
  { name: "deep nesting after a byte order mark", text: `\uFEFF{ "x": ${"[".repeat(NESTED)}`, keys: [null], says: /nested more than 64 levels deep/ },
  { name: "1e400", text: '{ "execute_threshold": 1e400 }', keys: ["execute_threshold"], says: /has value 1e400, which is not a finite number/ },
  { name: "-1e400 in a model override", text: '{ "models": { "a/*": { "context": -1e400 } } }', keys: ["models.a/*.context"], says: /has value -1e400, which is not a finite number/ },
  { name: "an invalid pin regex", text: '{ "pins": ["/(unclosed/"] }', keys: ["pins.0"], says: /key "pins.0" has value "\/\(unclosed\/", expected a valid "\/regex\/flags" pattern \(.+\)/ },
  { name: "an unknown pin regex flag", text: '{ "pins": ["/x/q"] }', keys: ["pins.0"], says: /expected a valid "\/regex\/flags" pattern \(.+\)/ },
  {
    name: "20,000 unknown keys",
    text: JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, index) => [`k${index}`, index]))),
    keys: [...Array.from({ length: MAX_DIAGNOSTICS_PER_FILE }, (_, index) => `k${index}`), null],
    says: /19,980 more values are refused/,
  },
  { name: "a 10 MB value", text: `{ "database": { "file": "${"x".repeat(10 * 1024 * 1024)}" } }`, keys: ["database.file"], says: /unknown key "database.file" \(check the spelling against docs\/configuration.md\); its value "xxx/ },
  { name: "a file that is not JSONC", text: '{ "enabled": tru }', keys: [null], says: /not valid JSONC/ },
]

describe("magic-context config", () => {
  it.each(EXTREMES.map((extreme) => [extreme.name, extreme] as const))("answers %s with a diagnostic naming the file", async (_name, extreme) => {
    await tally("config file extremes (magic-context config)", async () => {
      const file = join(dirs.make("config"), "magic-context.jsonc")
      writeFileSync(file, extreme.text)
      const started = performance.now()
      const { code, io } = await runCliCaptured(["config", "--json", "--config", file], { env: home.env, cwd: home.root })
      expect(performance.now() - started).toBeLessThan(5_000)
      expect(code).toBe(EXIT.problem)
      const { diagnostics } = JSON.parse(io.stdoutText()) as { diagnostics: ConfigDiagnostic[] }
      expect(diagnostics.map((diagnostic) => diagnostic.key)).toEqual(extreme.keys)
      for (const diagnostic of diagnostics) {
        expect(diagnostic.file).toBe(file)
        expect(diagnostic.message.startsWith(file)).toBe(true)
        expect(diagnostic.message.length).toBeLessThan(file.length + 400)
      }
      expect(diagnostics.some((diagnostic) => extreme.says.test(diagnostic.message))).toBe(true)
    })
  })
})

describe("the plugin starting on an extreme config", () => {
  it.each(EXTREMES.map((extreme) => [extreme.name, extreme] as const))("stays on with %s and says what it refused", async (_name, extreme) => {
    await tally("config file extremes (plugin start-up)", async () => {
      const project = dirs.make("project")
      mkdirSync(join(project, ".opencode"))
      writeFileSync(join(project, ".opencode", "magic-context.jsonc"), extreme.text)
      for (const [key, value] of Object.entries(home.env)) vi.stubEnv(key, value)
      const toasts: string[] = []
      const input = {
        client: {
          app: { log: async () => ({}) },
          tui: { showToast: async (options: { body: { message: string } }) => void toasts.push(options.body.message) },
          config: { providers: async () => ({ data: { providers: [] } }) },
        },
        directory: project,
        worktree: project,
        project: { id: "project" },
      } as unknown as PluginInput
      const hooks = await createPlugin(input)
      // On: a transform tags the session's first message.
      const messages = [
        userMessage({ id: "u1", sessionID: "ses_extreme", created: 1, parts: [text("p1", "Fix the build, keep the API.")] }),
      ]
      await hooks["experimental.chat.messages.transform"]?.({} as never, { messages } as never)
      expect(visibleText(messages[0]?.parts[0] as Part)).toBe("§1§ Fix the build, keep the API.")
      await vi.waitFor(() => expect(toasts.some((message) => extreme.says.test(message))).toBe(true))
      expect(toasts.every((message) => message.startsWith(join(project, ".opencode", "magic-context.jsonc")))).toBe(true)
    })
  })
})

describe("protected_tokens larger than the window", () => {
  it.each([["opencode-quayside-berths.json"], ["pi-ledger-webhooks.jsonl"]])(
    "replays %s at 32k under the window and says it clamped the protected window",
    async (fixture) => {
      await tally("protected_tokens over the window (replay)", async () => {
        const file = join(dirs.make("protected"), "magic-context.jsonc")
        writeFileSync(file, JSON.stringify({ protected_tokens: 1_000_000_000 }))
        const { code, io } = await runCliCaptured(["replay", join(FIXTURES, fixture), "--window", "32000", "--json", "--config", file], {
          env: home.env,
          cwd: home.root,
        })
        expect(code).toBe(EXIT.ok)
        const peak = Math.max(...io.out.map((line) => (JSON.parse(line) as { usageBefore: number }).usageBefore))
        // Without the clamp these peaked at 102.0% and 113.7%.
        expect(peak).toBeLessThan(100)
        expect(io.err).toContain(
          `${file}: protected_tokens 1,000,000,000 is more than a quarter of the usable window (32,000 tokens); the ` +
            "protected window is clamped to 8,000 tokens, so an execute pass can still bring the prompt under the threshold",
        )
      })
    },
  )
})

async function tally(probe: string, check: () => Promise<void>): Promise<void> {
  const counts = tallies.get(probe) ?? { tried: 0, survived: 0 }
  tallies.set(probe, counts)
  counts.tried += 1
  await check()
  counts.survived += 1
}
