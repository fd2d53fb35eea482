#!/usr/bin/env node
import { runCli } from "./main.js"

// A reader that stops early (`magic-context replay ... | head`) is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  throw error
})

// The status line (progress bars) only on a terminal: "\r" rewrites it, ESC[K clears what is left of the old one.
const terminal = process.stderr.isTTY
  ? {
      columns: process.stderr.columns || 80,
      show: (line: string) => process.stderr.write(`\r${line}\u001b[K`),
      clear: () => process.stderr.write("\r\u001b[K"),
    }
  : undefined

runCli({
  args: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  ...(terminal ? { terminal } : {}),
}).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`magic-context: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exitCode = 1
  },
)
