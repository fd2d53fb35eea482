import type { CliIo } from "./cli-io.js"

/** Progress of a long command: one step per unit of work, a bar with the time left on a terminal, nothing elsewhere. */
export type Progress = {
  step(label: string): void
  finish(): void
}

const BAR_WIDTH = 24

/**
 * The status line after `done` of `total` steps: a bar, the count, the time left (elapsed per step × steps left) and
 * the last step's label, cut to the terminal's width. Pure.
 */
export function progressLine(options: { title: string; done: number; total: number; elapsedMs: number; label: string; columns: number }): string {
  const { done, total } = options
  const ratio = total > 0 ? Math.min(1, done / total) : 1
  const filled = Math.round(ratio * BAR_WIDTH)
  const left = done > 0 && total > done ? ` · ${clock((options.elapsedMs / done) * (total - done))} left` : ""
  const line = `${options.title} [${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${done}/${total}${left} · ${options.label}`
  return line.length > options.columns - 1 ? `${line.slice(0, Math.max(0, options.columns - 2))}…` : line
}

/** Minutes and seconds, `m:ss`. */
function clock(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`
}

/** A progress bar on the terminal's status line; a no-op when stderr is not a terminal or `quiet` (`--json`). */
export function createProgress(io: CliIo, options: { title: string; total: number; quiet: boolean; now?: () => number }): Progress {
  const terminal = io.terminal
  if (!terminal || options.quiet) return { step: () => undefined, finish: () => undefined }
  const now = options.now ?? Date.now
  const started = now()
  let done = 0
  return {
    step(label) {
      done += 1
      terminal.show(progressLine({ title: options.title, done, total: options.total, elapsedMs: now() - started, label, columns: terminal.columns }))
    },
    finish() {
      terminal.clear()
    },
  }
}
