import { fileURLToPath } from "node:url"
import { readProbeFile } from "../../src/lab/read-probe-file.js"
import type { Probe } from "../../src/lab/probe-file.js"

/** The probe set over the real transcripts in `fixtures/traces/raw`. */
export const REAL_TRACE_PROBES = fileURLToPath(new URL("../../fixtures/probes/real-traces.json", import.meta.url))

/** Reads the real-trace probe set; a broken file fails the test that reads it. */
export function realTraceProbes(): Probe[] {
  const result = readProbeFile(REAL_TRACE_PROBES)
  if (!result.ok) throw new Error(result.error)
  return result.value
}
