import { spawn } from "node:child_process"
import { createRequire } from "node:module"

/** A second process holding `BEGIN EXCLUSIVE` on a store file. */
export type StoreLockProcess = {
  /** Resolves when the lock was released and the process exited (after `holdMs`, or `stop()`). */
  released: Promise<void>
  /** When the lock was taken (epoch ms). */
  lockedAt: number
  /** Ends the process now (the lock goes with it). */
  stop(): void
}

/**
 * Starts a `node` child that opens `file` with better-sqlite3 (creating it when missing), takes `BEGIN EXCLUSIVE`,
 * holds it for `holdMs` and then rolls back and exits. Resolves once the lock is held. In WAL mode that blocks every
 * writer (readers go on); on a fresh file in rollback mode it blocks readers too.
 */
export async function lockStoreInChild(file: string, holdMs: number): Promise<StoreLockProcess> {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3")
  const script = [
    "const [driver, file, holdMs] = process.argv.slice(1)",
    "const Driver = require(driver)",
    "const db = new Driver(file)",
    'db.exec("BEGIN EXCLUSIVE")',
    'process.stdout.write("LOCKED\\n")',
    'setTimeout(() => { db.exec("ROLLBACK"); db.close(); process.exit(0) }, Number(holdMs))',
  ].join("\n")
  const child = spawn(process.execPath, ["-e", script, driver, file, String(holdMs)], { stdio: ["ignore", "pipe", "pipe"] })
  const released = new Promise<void>((resolve) => child.on("close", () => resolve()))
  let output = ""
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the lock holder did not start: ${output}`)), 20_000)
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
      if (output.includes("LOCKED")) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    child.on("close", (code) => {
      clearTimeout(timer)
      reject(new Error(`the lock holder exited with ${code}: ${output}`))
    })
  })
  return { released, lockedAt: Date.now(), stop: () => child.kill("SIGKILL") }
}
