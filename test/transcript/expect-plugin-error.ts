import { expect } from "vitest"
import { isPluginError, type PluginError, type PluginErrorCode } from "../../src/plugin-error.js"

/** Runs `action`, asserts it throws a PluginError with `code` whose message contains every fragment, and returns it. */
export function expectPluginError(action: () => unknown, code: PluginErrorCode, fragments: string[]): PluginError {
  let caught: unknown = undefined
  try {
    action()
  } catch (error) {
    caught = error
  }
  if (!isPluginError(caught)) throw new Error(`expected a PluginError, got ${String(caught)}`)
  expect(caught.code).toBe(code)
  for (const fragment of fragments) expect(caught.message).toContain(fragment)
  return caught
}
