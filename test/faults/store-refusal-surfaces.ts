import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Check } from "../../src/cli/command-doctor.js"
import { runCli } from "../../src/cli/main.js"
import { defaultConfig } from "../../src/config/schema.js"
import { createErrorLog } from "../../src/host/error-log.js"
import { createHooks } from "../../src/plugin/hooks.js"
import { createHostRuntime } from "../../src/host/host-runtime.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { fakeCliIo } from "../helpers/fake-cli-io.js"
import { assistantMessage, completed, text, tool, userMessage, asOpenCodeMessages } from "../helpers/host-messages.js"
import { openOutcome, type Surface, type SurfaceOutcome } from "./open-outcome.js"


/** A home and project for the CLI surfaces: doctor finds the plugin entry there and `database.path` = the store. */
export type Scratch = { env: Record<string, string>; project: string }

const FIXTURE = fileURLToPath(new URL("../../fixtures/opencode-session/session.json", import.meta.url))

/** Runs `surface` against the store at `file`. Never throws: a crash is an outcome too. */
export async function surfaceOutcome(surface: Surface, file: string, scratch: Scratch): Promise<SurfaceOutcome> {
  try {
    if (surface === "open") return await openOutcome(file)
    if (surface === "plugin") return await pluginOutcome(file)
    return await cliOutcome(surface, file, scratch)
  } catch (error) {
    return { surface, accepted: false, exit: null, code: "crashed", text: error instanceof Error ? (error.stack ?? error.message) : String(error) }
  }
}

async function cliOutcome(surface: Exclude<Surface, "open" | "plugin">, file: string, scratch: Scratch): Promise<SurfaceOutcome> {
  writeScratchConfig(scratch, file)
  const args =
    surface === "replay --db"
      ? ["replay", FIXTURE, "--db", file]
      : surface === "status --db"
        ? ["status", "--db", file]
        : ["doctor", "--json", "--directory", scratch.project]
  const io = fakeCliIo({ args, env: scratch.env, cwd: scratch.project })
  const exit = await runCli(io)
  if (surface !== "doctor") return { surface, accepted: exit === 0, exit, code: null, text: io.stderrText() }
  const database = (JSON.parse(io.stdoutText()) as { checks: Check[] }).checks.find((check) => check.name === "database")
  return { surface, accepted: database?.status !== "fail", exit, code: null, text: database?.detail.join("\n") ?? "" }
}

function writeScratchConfig(scratch: Scratch, file: string): void {
  mkdirSync(scratch.project, { recursive: true })
  const opencode = { plugin: ["magic-context"], compaction: { auto: false, prune: false } }
  writeFileSync(join(scratch.project, "opencode.json"), JSON.stringify(opencode))
  writeFileSync(join(scratch.project, "magic-context.jsonc"), JSON.stringify({ database: { path: file } }))
}

/** One transform call of the plugin: the messages must pass through untouched and the refusal be recorded. */
async function pluginOutcome(file: string): Promise<SurfaceOutcome> {
  const errors = createErrorLog({ now: () => 1_000, hostLog: () => undefined })
  const runtime = createHostRuntime({
    config: { ...defaultConfig(), database: { ...defaultConfig().database, path: file } },
    configDiagnostics: [],
    errors,
    faults: new Set(),
    env: {},
    now: () => 1_000,
  })
  const hooks = createHooks({
    runtime,
    projectId: "proj",
    directory: "/work",
    loadProviderLimits: () => Promise.resolve(),
    historian: { schedule: () => Promise.resolve(), isHistorianSession: () => false, forget: () => undefined },
    listMessages: () => Promise.resolve([]),
  })
  try {
    const messages = sessionMessages()
    await hooks["experimental.chat.messages.transform"]?.({}, { messages: asOpenCodeMessages(messages) })
    const untouched = JSON.stringify(messages) === JSON.stringify(sessionMessages())
    const recorded = errors.recent()[0]
    return {
      surface: "plugin",
      accepted: recorded === undefined,
      exit: null,
      code: untouched ? (recorded?.code ?? null) : "messages changed",
      text: recorded?.message ?? "",
    }
  } finally {
    await hooks.dispose?.()
  }
}

function sessionMessages(): HostMessage[] {
  return [
    userMessage({ id: "msg_001", sessionID: "ses_broken", parts: [text("u1", "read a.txt")] }),
    assistantMessage({
      id: "msg_002",
      sessionID: "ses_broken",
      parts: [text("a1", "reading"), tool("t1", "read", completed({ path: "a.txt" }, "contents"))],
    }),
  ]
}
