import { PluginError } from "../plugin-error.js"

/**
 * Test-only fault injection: `MAGIC_CONTEXT_FAULT=transform,text` makes the named hook bodies throw after they
 * did their work and before they touch OpenCode's data. The end-to-end test uses it to prove that an internal
 * error never aborts the user's turn.
 */
export function injectedFaults(env: Record<string, string | undefined>): ReadonlySet<string> {
  const raw = env["MAGIC_CONTEXT_FAULT"] ?? ""
  return new Set(
    raw
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean),
  )
}

/** Throws a `fault_injected` error when `point` is in `faults`. */
export function maybeFail(faults: ReadonlySet<string>, point: string): void {
  if (faults.has(point)) throw new PluginError("fault_injected", `injected fault at ${point} (MAGIC_CONTEXT_FAULT)`)
}
