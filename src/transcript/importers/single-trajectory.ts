import { PluginError } from "../../plugin-error.js"
import type { TranscriptFormat } from "../turn-model.js"

/** Rejects a `#N` trajectory selector for a format whose files hold exactly one session. */
export function assertSingleTrajectory(format: TranscriptFormat, options: { file: string; trajectory?: number }): void {
  if (options.trajectory === undefined) return
  const suffix = `#${options.trajectory}`
  const problem = `a ${format} transcript holds a single session and takes no #N suffix; drop "${suffix}"`
  const message = `${options.file}${suffix}: ${problem}`
  throw new PluginError("invalid_argument", message, { file: options.file, format, trajectory: options.trajectory })
}
