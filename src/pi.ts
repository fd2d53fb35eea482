import type { ExtensionAPI } from "@mariozechner/pi-coding-agent"
import { claimInstance, type InstanceClaim } from "./host/instance-claim.js"
import { registerMagicContext } from "./pi/pi-extension.js"

/**
 * magic-context, the Pi extension (`pi -e magic-context/pi`, or the package in Pi's settings). The module's only
 * export. If setting up fails, the extension registers nothing (Pi runs as if it were not installed) and says why.
 * A second copy loaded into the same Pi (the package in the settings and a `-e` path, two copies at different paths)
 * registers nothing either: the first copy runs, and its `/ctx-status` names the other (host/instance-claim.ts).
 */
export default function magicContext(pi: ExtensionAPI): void {
  let claim: InstanceClaim | null = null
  try {
    const missing = missingApi(pi)
    if (missing.length > 0) {
      process.stderr.write(`magic-context disabled: this Pi's extension API lacks ${missing.join(", ")}; magic-context needs Pi 0.73 or later.\n`)
      return
    }
    claim = claimInstance({ instance: process.cwd(), module: import.meta.url })
    if (claim.kind === "inert") {
      process.stderr.write(`magic-context: ${claim.reason}\n`)
      return
    }
    const active = claim
    registerMagicContext(pi, { setupProblems: active.duplicateNotes })
    // Pi tears the extension down before it loads it again (reload, a new or resumed session): the new one claims.
    pi.on("session_shutdown", () => active.release())
  } catch (error) {
    if (claim?.kind === "active") claim.release()
    process.stderr.write(`magic-context disabled: setup failed: ${error instanceof Error ? error.message : String(error)}\n`)
  }
}

/** The extension API methods magic-context uses that an older (or different) Pi may lack. */
function missingApi(pi: ExtensionAPI): string[] {
  const api = pi as unknown as Record<string, unknown>
  return ["on", "registerTool", "registerCommand", "sendMessage", "getActiveTools", "getAllTools"].filter((name) => typeof api[name] !== "function")
}
