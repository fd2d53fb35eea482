import type { ExtensionAPI } from "@mariozechner/pi-coding-agent"
import { registerMagicContext } from "./pi/pi-extension.js"

/**
 * magic-context, the Pi extension (`pi -e magic-context/pi`, or the package in Pi's settings). The module's only
 * export. If setting up fails, the extension registers nothing (Pi runs as if it were not installed) and says why.
 */
export default function magicContext(pi: ExtensionAPI): void {
  try {
    registerMagicContext(pi)
  } catch (error) {
    process.stderr.write(`magic-context disabled: setup failed: ${error instanceof Error ? error.message : String(error)}\n`)
  }
}
