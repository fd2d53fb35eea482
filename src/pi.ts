import type { ExtensionAPI } from "@mariozechner/pi-coding-agent"
import { registerMagicContext } from "./pi/pi-extension.js"

/**
 * magic-context, the Pi extension (`pi -e magic-context/pi`, or the package in Pi's settings). The module's only
 * export. If setting up fails, the extension registers nothing (Pi runs as if it were not installed) and says why.
 */
export default function magicContext(pi: ExtensionAPI): void {
  try {
    const missing = missingApi(pi)
    if (missing.length > 0) {
      process.stderr.write(`magic-context disabled: this Pi's extension API lacks ${missing.join(", ")}; magic-context needs Pi 0.73 or later.\n`)
      return
    }
    registerMagicContext(pi)
  } catch (error) {
    process.stderr.write(`magic-context disabled: setup failed: ${error instanceof Error ? error.message : String(error)}\n`)
  }
}

/** The extension API methods magic-context uses that an older (or different) Pi may lack. */
function missingApi(pi: ExtensionAPI): string[] {
  const api = pi as unknown as Record<string, unknown>
  return ["on", "registerTool", "registerCommand", "sendMessage", "getActiveTools", "getAllTools"].filter((name) => typeof api[name] !== "function")
}
