import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** Why terminal tests cannot run here (no tmux on PATH), or null when they can. */
export function tmuxMissing(): string | null {
  const probe = spawnSync("tmux", ["-V"], { encoding: "utf8" })
  return probe.status === 0 ? null : "tmux is not installed (apt-get install tmux); the TUI test needs a terminal multiplexer"
}

/** A program running in a detached tmux session of its own server: its screen can be read and typed into. */
export type TmuxScreen = {
  /** The screen as text, one line per row, colors dropped. */
  capture(): string
  /** Types `text` literally (no key names). */
  type(text: string): void
  /** Presses one key by tmux's name for it ("Enter", "C-c"). */
  press(key: string): void
  /** Polls the screen until `ready` holds of it; rejects after `timeoutMs` with the last screen in the message. */
  waitFor(ready: (screen: string) => boolean, timeoutMs: number, what: string): Promise<string>
  /** Ends the tmux server and waits until the program and everything it started are gone (killed after 10 s). */
  close(): Promise<void>
}

/**
 * Starts `command` in a `width` × `height` terminal: a tmux server on a socket of its own (so a user's tmux is never
 * touched), no tmux config, the environment given exactly (a launcher script sets it, since a tmux server keeps
 * the environment of whoever started it first).
 */
export function startInTmux(options: {
  command: string
  cwd: string
  env: Record<string, string>
  width: number
  height: number
  /** A folder for the launcher script. */
  scratch: string
}): TmuxScreen {
  const socket = `magic-context-e2e-${process.pid}-${Date.now()}`
  const launcher = join(options.scratch, "tmux-launch.sh")
  const exports = Object.entries(options.env).map(([key, value]) => `export ${key}=${shellQuote(value)}`)
  writeFileSync(launcher, ["#!/bin/sh", ...exports, `cd ${shellQuote(options.cwd)}`, `exec ${options.command}`, ""].join("\n"))
  chmodSync(launcher, 0o755)
  const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" })
  tmux("new-session", "-d", "-s", "main", "-x", String(options.width), "-y", String(options.height), launcher)
  // tmux starts the pane's program as the leader of a process group of its own: the group is the program and its children.
  const group = Number(tmux("display-message", "-p", "-t", "main", "#{pane_pid}").trim())
  const capture = (): string => tmux("capture-pane", "-p", "-t", "main")
  return {
    capture,
    type: (text) => void tmux("send-keys", "-t", "main", "-l", text),
    press: (key) => void tmux("send-keys", "-t", "main", key),
    async waitFor(ready, timeoutMs, what) {
      const until = Date.now() + timeoutMs
      let screen = ""
      while (Date.now() < until) {
        screen = capture()
        if (ready(screen)) return screen
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the screen was:\n${screen}`)
    },
    async close() {
      try {
        tmux("kill-server")
      } catch {
        // Already gone with its program.
      }
      // The program exits on the hang-up in its own time and may still be writing its files: a caller removing them
      // must wait for it.
      if (!(await groupGone(group, CLOSE_GRACE_MS))) {
        signalGroup(group, "SIGKILL")
        await groupGone(group, CLOSE_GRACE_MS)
      }
    },
  }
}

const CLOSE_GRACE_MS = 10_000

/** Polls until no process of `group` is left; false if some still is after `timeoutMs`. */
async function groupGone(group: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (signalGroup(group, 0)) {
    if (Date.now() >= until) return false
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return true
}

/** Sends `signal` to every process of `group`; false when the group has none left. */
function signalGroup(group: number, signal: NodeJS.Signals | 0): boolean {
  if (!Number.isInteger(group) || group <= 1) return false
  try {
    process.kill(-group, signal)
    return true
  } catch {
    return false
  }
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}
