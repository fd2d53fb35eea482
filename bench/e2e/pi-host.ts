import { PI_0_73, PI_1, type PiHost } from "../../test/e2e/harness/pi-harness.js"

/**
 * Which Pi `bench:pi` runs: Pi 1.x (`@earendil-works/pi-coding-agent`, installed in test/hosts/pi-1), the Pi users
 * install, unless BENCH_PI_HOST=0.73 picks Pi 0.73 (`@mariozechner/pi-coding-agent`, a root devDependency).
 */
export const PI_HOST_VARIABLE = "BENCH_PI_HOST"

/** The Pi an environment value names: `1` or unset for Pi 1.x, `0.73` for Pi 0.73; any other value is an error. */
export function piHostOf(value: string | undefined): PiHost {
  if (value === undefined || value === "" || value === "1") return PI_1
  if (value === "0.73") return PI_0_73
  throw new Error(`${PI_HOST_VARIABLE}=${JSON.stringify(value)}: expected "1" (Pi 1.x, the default) or "0.73"`)
}

/** The suffix of a results file for the Pi: none for the default (Pi 1.x), `-pi-0.73` for Pi 0.73. */
export function piHostSuffix(host: PiHost): string {
  return host === PI_0_73 ? "-pi-0.73" : ""
}
