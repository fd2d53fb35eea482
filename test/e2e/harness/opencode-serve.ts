import { spawn, type ChildProcess } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk"
import { OPENCODE_BIN, type OpenCodeSandbox } from "./opencode-harness.js"

/** A running `opencode serve` for one sandbox, with an SDK client scoped to the sandbox's project. */
export type OpenCodeServer = {
  url: string
  client: OpencodeClient
  /** What the server printed so far (stdout and stderr, interleaved as received). */
  output(): string
  /**
   * Stops the server (SIGTERM, then SIGKILL after a grace period) and waits for it to exit. With
   * MAGIC_CONTEXT_KEEP_E2E set (the sandbox is kept), writes what it printed to `<root>/serve.log`.
   */
  stop(): Promise<void>
}

/** The line `opencode serve` prints once it listens. */
const LISTENING = /opencode server listening on (https?:\/\/\S+)/

/**
 * Starts `opencode serve` on a free loopback port in the sandbox's project, with the sandbox's isolated
 * environment. Unlike `opencode run`, the server keeps the instance alive between prompts, so background work
 * (the model historian's child sessions) can finish and be observed (OPENCODE-NOTES §2.5, §2.7 pitfall 8).
 * The first request to a fresh server can hang while the instance boots (§2.5), so readiness is probed with a
 * timeout and retried.
 */
export async function startOpenCodeServer(
  sandbox: OpenCodeSandbox,
  options: { env?: Record<string, string>; startTimeoutMs?: number } = {},
): Promise<OpenCodeServer> {
  const args = ["serve", "--hostname", "127.0.0.1", "--port", "0", "--print-logs", "--log-level", "INFO"]
  const child = spawn(OPENCODE_BIN, args, {
    cwd: sandbox.project,
    env: { ...sandbox.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()))
  try {
    const url = await waitForListening(child, () => output, options.startTimeoutMs ?? 30_000)
    await probe(url, sandbox.project)
    return {
      url,
      client: createOpencodeClient({ baseUrl: url, directory: sandbox.project }),
      output: () => output,
      stop: async () => {
        await stopProcess(child, exited)
        if (process.env["MAGIC_CONTEXT_KEEP_E2E"]) writeFileSync(join(sandbox.root, "serve.log"), output)
      },
    }
  } catch (error) {
    await stopProcess(child, exited)
    throw new Error(`opencode serve did not start: ${String(error)}\n${output.slice(-3000)}`)
  }
}

function waitForListening(child: ChildProcess, output: () => string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no "listening" line within ${timeoutMs} ms`)), timeoutMs)
    const check = (): void => {
      const match = LISTENING.exec(output())
      if (match) finish(null, match[1])
    }
    const onExit = (code: number | null): void => finish(new Error(`the server exited with code ${code}`))
    function finish(error: Error | null, url?: string): void {
      clearTimeout(timer)
      child.stdout?.off("data", check)
      child.stderr?.off("data", check)
      child.off("exit", onExit)
      if (error) reject(error)
      else resolve(url as string)
    }
    child.stdout?.on("data", check)
    child.stderr?.on("data", check)
    child.on("exit", onExit)
    check()
  })
}

/** Waits until the server answers a request for the project (each try bounded: a first request may hang). */
async function probe(url: string, directory: string): Promise<void> {
  let last: unknown = null
  for (let attempt = 0; attempt < 8; attempt += 1) {
    try {
      const response = await fetch(`${url}/config?directory=${encodeURIComponent(directory)}`, {
        signal: AbortSignal.timeout(8_000),
      })
      if (response.ok) {
        await response.arrayBuffer()
        return
      }
      last = new Error(`HTTP ${response.status}`)
    } catch (error) {
      last = error
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`the server did not answer: ${String(last)}`)
}

async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill("SIGTERM")
  const killer = setTimeout(() => child.kill("SIGKILL"), 5_000)
  await exited
  clearTimeout(killer)
}
