import { fileURLToPath } from "node:url"

/** Absolute path of a real trace in the shared `traces/raw` folder next to the repository. */
export function tracePath(name: string): string {
  return fileURLToPath(new URL(`../../../shared/traces/raw/${name}`, import.meta.url))
}

/** Absolute path of a sample checked in under `test/transcript/samples`. */
export function samplePath(name: string): string {
  return fileURLToPath(new URL(`./samples/${name}`, import.meta.url))
}
