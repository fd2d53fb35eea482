/**
 * `npx tsx bench/tool-arguments.ts`: what hostile ctx_reduce / ctx_pin / ctx_expand arguments cost. A seeded fuzz run
 * (random strings over the tag grammar's characters and their lookalikes, plus a few huge arguments) against the real
 * tools on a file store; prints, per tool, the longest answer and the slowest call, and the store's growth: the bytes
 * the plugin itself wrote (reduce_calls, pins) and the file size. The host's own tool parts are not in this store
 * here (no transform pass runs between the calls), so every byte counted is the plugin's.
 *
 *   npx tsx bench/tool-arguments.ts            300 random calls per tool
 *   FUZZ_CALLS=1000 npx tsx bench/tool-arguments.ts
 */
import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultConfig } from "../src/config/schema.js"
import { createHistoryPlanner } from "../src/pass/history-planner.js"
import { runPass } from "../src/pass/run-pass.js"
import { createErrorLog } from "../src/host/error-log.js"
import { createHostRuntime, type HostRuntime } from "../src/host/host-runtime.js"
import { usagePercent } from "../src/pressure/bands.js"
import { fixedWindow } from "../src/pressure/model-window.js"
import type { Database } from "../src/store/driver.js"
import { statement } from "../src/store/statements.js"
import type { TokenCounter } from "../src/tokens/token-counter.js"
import type { HostMessage } from "../src/transcript/host-message.js"
import { createExpandTool, createPinTool, createReduceTool } from "../src/plugin/context-tools.js"

const CALLS = Number(process.env["FUZZ_CALLS"] ?? 300)
const MB = 1024 * 1024
const SESSION = "ses_bench_tool_arguments"
const counter: TokenCounter = { encoding: "words", count: (body) => body.split(/\s+/).filter(Boolean).length }
const WINDOW = fixedWindow({ usableTokens: 1_000_000, config: { ...defaultConfig(), protected_tokens: 300 } })

/** Arguments no agent should send but a broken one might: sizes and shapes that once made answers or parsing blow up. */
const HUGE: Record<string, string> = {
  "10 MB of '1,'": "1,".repeat(5 * MB),
  "10 MB of '§1§'": "§1§".repeat(Math.floor((10 * MB) / 3)),
  "10 MB of letters": "a".repeat(10 * MB),
  "1 + 100k '§'": `1${"§".repeat(100_000)}`,
  "333 unknown tags": Array.from({ length: 333 }, (_, index) => 1_000 + index * 2).join(","),
}

const ALPHABET = [..."0123456789", "§", ",", "-", " ", "\t", "\n", "c", "C", "٣", "３", "–", "−", "，", "\u00a0", "\u3000", "x"]

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "mc-bench-tools-"))
  const file = join(dir, "store.db")
  const errors = createErrorLog({ now: () => Date.now(), hostLog: () => undefined })
  const config = { ...defaultConfig(), database: { ...defaultConfig().database, path: file } }
  const runtime = createHostRuntime({ config, configDiagnostics: [], errors, faults: new Set(), env: {}, now: () => Date.now() })
  try {
    const db = await runtime.database()
    await prepareSession(runtime, db)
    const before = storeBytes(db, file)
    const tools: Record<string, { tool: ToolDefinition; argument: string }> = {
      ctx_reduce: { tool: createReduceTool(runtime), argument: "drop" },
      ctx_pin: { tool: createPinTool(runtime), argument: "tags" },
      ctx_expand: { tool: createExpandTool(runtime), argument: "target" },
    }
    const random = seeded(20_260_101)
    console.log("tool        input                 chars  answer chars     ms")
    const summary: Record<string, { longest: number; slowestMs: number; calls: number }> = {}
    for (const [name, { tool, argument }] of Object.entries(tools)) {
      const stats = { longest: 0, slowestMs: 0, calls: 0 }
      const inputs: [string, string][] = [
        ...Object.entries(HUGE),
        ...Array.from({ length: CALLS }, (_, index): [string, string] => [`random #${index}`, randomArgument(random)]),
      ]
      for (const [label, value] of inputs) {
        // Every call its own turn, so the per-turn cap never hides what an argument costs.
        const last = runtime.lastPass.get(SESSION)
        if (last) runtime.lastPass.set(SESSION, { ...last, turnMessageId: `turn-${name}-${stats.calls}` })
        const started = performance.now()
        const answer = await tool.execute({ [argument]: value } as never, context())
        const ms = performance.now() - started
        const text = typeof answer === "string" ? answer : JSON.stringify(answer)
        stats.calls += 1
        stats.longest = Math.max(stats.longest, text.length)
        stats.slowestMs = Math.max(stats.slowestMs, ms)
        if (!label.startsWith("random")) {
          console.log(`${name.padEnd(11)} ${label.padEnd(20)} ${String(value.length).padStart(9)} ${String(text.length).padStart(12)} ${ms.toFixed(0).padStart(6)}`)
        }
      }
      summary[name] = stats
    }
    const after = storeBytes(db, file)
    console.log("")
    for (const [name, stats] of Object.entries(summary)) {
      console.log(`${name}: ${stats.calls} calls, longest answer ${stats.longest.toLocaleString("en-US")} chars, slowest call ${stats.slowestMs.toFixed(0)} ms`)
    }
    console.log(
      `plugin rows: reduce_calls ${before.reduceCalls.toLocaleString("en-US")} -> ${after.reduceCalls.toLocaleString("en-US")} bytes, ` +
        `pins ${before.pins.toLocaleString("en-US")} -> ${after.pins.toLocaleString("en-US")} bytes; ` +
        `store file ${before.file.toLocaleString("en-US")} -> ${after.file.toLocaleString("en-US")} bytes`,
    )
  } finally {
    runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A session of 20 turns (user request, assistant text, a read), folded into episodes by one pass. */
async function prepareSession(runtime: HostRuntime, db: Database): Promise<void> {
  const messages: HostMessage[] = []
  for (let turn = 1; turn <= 20; turn += 1) {
    messages.push(
      {
        info: { id: `u${turn}`, sessionID: SESSION, role: "user", time: { created: turn * 100 }, agent: "build", model: { providerID: "p", modelID: "m" } },
        parts: [{ id: `pu${turn}`, sessionID: SESSION, messageID: `u${turn}`, type: "text", text: `Update src/mod${turn}.ts next.` }],
      } as unknown as HostMessage,
      {
        info: { id: `a${turn}`, sessionID: SESSION, role: "assistant", parentID: `u${turn}`, time: { created: turn * 100 + 1 } },
        parts: [
          { id: `pa${turn}`, sessionID: SESSION, messageID: `a${turn}`, type: "text", text: `Reading src/mod${turn}.ts.` },
          {
            id: `pr${turn}`,
            sessionID: SESSION,
            messageID: `a${turn}`,
            type: "tool",
            callID: `call${turn}`,
            tool: "read",
            state: { status: "completed", input: { filePath: `src/mod${turn}.ts` }, output: "word ".repeat(600), title: "", metadata: {}, time: { start: 1, end: 2 } },
          },
        ],
      } as unknown as HostMessage,
    )
  }
  const registry = await runtime.sessions()
  const info = { id: SESSION, source: "opencode" as const, projectId: null, directory: null, title: null }
  const state = registry.stateFor(info, counter)
  const caches = registry.sessionFor(info, counter).caches
  const history = createHistoryPlanner({ db, sessionId: SESSION, counter, policy: "default", expanded: runtime.expanded })
  registry.held(SESSION)?.usePlanner(history)
  const result = runPass({
    db,
    state,
    caches,
    messages,
    counter,
    clock: { now: () => 0, mark: () => 0, elapsedMs: () => 0 },
    trigger: "transform",
    tagsVisible: true,
    window: WINDOW,
    fixedTokens: 0,
    now: 10_000,
    smartDrops: false,
    history,
  })
  runtime.lastPass.set(SESSION, {
    view: result.view,
    window: WINDOW,
    usagePercent: usagePercent(result.usageAfter, WINDOW.usableTokens),
    tagsVisible: true,
    turnMessageId: "u20",
    passSeq: result.seq,
  })
}

function storeBytes(db: Database, file: string): { reduceCalls: number; pins: number; file: number } {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
  const sum = (sql: string): number => Number(statement(db, sql).get([])?.["n"] ?? 0)
  return {
    reduceCalls: sum("SELECT COALESCE(SUM(LENGTH(drop_argument) + COALESCE(LENGTH(refused_reason), 0)), 0) AS n FROM reduce_calls"),
    pins: sum("SELECT COALESCE(SUM(LENGTH(text)), 0) AS n FROM pins"),
    file: statSync(file).size,
  }
}

function randomArgument(random: () => number): string {
  const length = Math.floor(random() * 60)
  let text = ""
  for (let index = 0; index < length; index += 1) text += ALPHABET[Math.floor(random() * ALPHABET.length)]
  return text
}

/** A small deterministic generator (mulberry32), so two runs fuzz the same arguments. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

function context(): ToolContext {
  return { sessionID: SESSION, messageID: "m", agent: "build", directory: "/", worktree: "/" } as ToolContext
}

await main()
