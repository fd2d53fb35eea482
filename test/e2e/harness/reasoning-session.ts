import type { OpenCodeSandbox, RunResult } from "./opencode-harness.js"
import { startOpenCodeServer, type OpenCodeServer } from "./opencode-serve.js"
import type { PiSandbox } from "./pi-harness.js"
import { queryStore } from "./store-reader.js"

/**
 * The session every provider's reasoning-state test runs (`test/e2e/reasoning-state*.test.ts`): user turns of file
 * reads in a 32k window, so that execute passes fold history and drop old output while reasoning is in the prompt; or
 * one long turn, past the force band. The scripted model of each provider mock reads `fileToRead(turn, step)`.
 */

export const TURNS = 4
export const READS_PER_TURN = 5
/** Reads of the one long turn: more than the window holds, so the force band comes inside its tool loop. */
export const LONG_TURN_READS = 30

/** A file of about 900 tokens whose lines name it. */
function fileText(index: number): string {
  return Array.from({ length: 60 }, (_, line) => `file ${index} line ${line}: value-${index}-${line} keeps the settings of module ${index}.`).join("\n")
}

/** The project's files: `data/file-<k>.txt`, enough for the long turn. */
export const READ_FILES: Readonly<Record<string, string>> = Object.fromEntries(
  Array.from({ length: LONG_TURN_READS }, (_, index) => [`data/file-${index + 1}.txt`, fileText(index + 1)]),
)

/** The file step `step` of turn `turn` reads, when each turn reads `reads` files (turns read files one after another). */
export function fileToRead(directory: string, turn: number, step: number, reads: number): string {
  return `${directory}/data/file-${(turn - 1) * reads + step + 1}.txt`
}

/** The text of turn `turn`'s user message: the scripted model finds the turn by its marker. */
export function turnPrompt(turn: number): string {
  return `TURN-${turn}: read this turn's files`
}

/** The text the scripted model ends turn `turn` with. */
export function turnDone(turn: number): string {
  return `TURN-${turn} DONE`
}

/** Runs turns 1 to `turns` with `opencode run`, each after the first continuing the session. */
export async function runTurns(sandbox: OpenCodeSandbox, turns: number): Promise<RunResult[]> {
  const results: RunResult[] = []
  for (let turn = 1; turn <= turns; turn += 1) {
    results.push(await sandbox.run(["run", ...(turn > 1 ? ["--continue"] : []), turnPrompt(turn)]))
  }
  return results
}

/**
 * Runs turns 1 to `turns` in one session of one `opencode serve` (one OpenCode start instead of one per turn), then,
 * with `status`, `/ctx-status` and one more turn past the scripted ones (answered at once): the status exchange leaves
 * the prompt, and the request after it must still be valid. Each turn's result reads as `opencode run`'s would: exit
 * code 0 when the reply ended without an error, its text on stdout, the error on stderr. The server is stopped (the
 * plugin disposed, what it owed stored) before this returns. `runTurns` runs each turn in its own `opencode run`.
 */
export async function serveTurns(sandbox: OpenCodeSandbox, turns: number, options: { status?: boolean } = {}): Promise<RunResult[]> {
  const server = await startOpenCodeServer(sandbox)
  try {
    const created = await server.client.session.create({ body: { title: "reasoning" } })
    if (!created.data) throw new Error(`session.create failed: ${JSON.stringify(created.error)}`)
    const sessionId = created.data.id
    const results: RunResult[] = []
    for (let turn = 1; turn <= turns; turn += 1) results.push(await servedTurn(server, sessionId, { text: turnPrompt(turn) }))
    if (options.status) {
      results.push(await servedTurn(server, sessionId, { command: "ctx-status" }))
      results.push(await servedTurn(server, sessionId, { text: `TURN-${turns + 1}: answer` }))
    }
    return results
  } finally {
    await server.stop()
  }
}

type ServedReply = { info: { error?: unknown }; parts: readonly { type: string; text?: string }[] }

async function servedTurn(server: OpenCodeServer, sessionId: string, input: { text: string } | { command: string }): Promise<RunResult> {
  const started = performance.now()
  const response =
    "text" in input
      ? await server.client.session.prompt({ path: { id: sessionId }, body: { parts: [{ type: "text", text: input.text }] } })
      : await server.client.session.command({ path: { id: sessionId }, body: { command: input.command, arguments: "" } })
  const durationMs = performance.now() - started
  const reply = response.data as ServedReply | undefined
  if (!reply) return { exitCode: 1, stdout: "", stderr: JSON.stringify(response.error), durationMs }
  const stdout = reply.parts.flatMap((part) => (part.type === "text" ? [part.text ?? ""] : [])).join("")
  const failed = reply.info.error !== undefined && reply.info.error !== null
  return { exitCode: failed ? 1 : 0, stdout, stderr: failed ? JSON.stringify(reply.info.error) : "", durationMs }
}

/** Runs turns 1 to `turns` with `pi -p`, each after the first continuing the session. */
export async function runPiTurns(sandbox: PiSandbox, turns: number): Promise<RunResult[]> {
  const results: RunResult[] = []
  for (let turn = 1; turn <= turns; turn += 1) results.push(await sandbox.run(turnPrompt(turn), { continueSession: turn > 1 }))
  return results
}

/** A model of a mock provider in OpenCode's config: reasoning, a 32k window, the given extra fields. */
export function mockModel(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, tool_call: true, reasoning: true, limit: { context: 32_000, output: 4_096 }, ...extra }
}

/** OpenCode's config for one of its bundled providers pointed at a mock: its models, the first the session's. */
export function providerConfig(options: { provider: string; npm: string; url: string; apiKey: string; models: Record<string, Record<string, unknown>> }): Record<string, unknown> {
  const [first] = Object.keys(options.models)
  return {
    model: `${options.provider}/${first}`,
    small_model: `${options.provider}/${first}`,
    enabled_providers: [options.provider],
    provider: { [options.provider]: { npm: options.npm, options: { baseURL: options.url, apiKey: options.apiKey }, models: options.models } },
  }
}

export type PassRow = { seq: number; decision: string; band: string; detail_json: string }

/** What a pass recorded about its decision and the reasoning it withheld. */
export type PassDetail = { reason: string; reasoning?: { withheld: number; tokens: number; runningLoop: boolean } }

/** The session's passes, oldest first. */
export function readPasses(databaseFile: string): (PassRow & { detail: PassDetail })[] {
  return queryStore<PassRow>(databaseFile, "SELECT seq, decision, band, detail_json FROM passes ORDER BY seq").map((row) => ({
    ...row,
    detail: JSON.parse(row.detail_json) as PassDetail,
  }))
}
