import { fileURLToPath } from "node:url"

/** Absolute path of a real trace bundled in `fixtures/traces/raw`. */
export function tracePath(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/traces/raw/${name}`, import.meta.url))
}

/** Absolute path of a sample checked in under `test/transcript/samples`. */
export function samplePath(name: string): string {
  return fileURLToPath(new URL(`./samples/${name}`, import.meta.url))
}
