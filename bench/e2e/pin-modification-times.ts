import { utimesSync } from "node:fs"
import { join } from "node:path"

/** 2025-01-01T00:00:00Z, in seconds: an arbitrary fixed start for the scratch files' modification times. */
const BASE_SECONDS = 1_735_689_600

/**
 * Gives the scratch files fixed, distinct modification times, one minute apart in path order. OpenCode's grep and
 * glob list matches newest first; files written within the same instant would otherwise come back in a different
 * order from run to run, and the requests (and every plugin's token counts) with them.
 */
export function pinModificationTimes(options: { directory: string; paths: readonly string[] }): void {
  const sorted = [...options.paths].sort()
  sorted.forEach((path, index) => {
    const seconds = BASE_SECONDS + index * 60
    utimesSync(join(options.directory, path), seconds, seconds)
  })
}
