import type { Plugin } from "@opencode-ai/plugin"
import { createPlugin } from "./plugin/create-plugin.js"

/**
 * magic-context, the OpenCode plugin. The module's only export: OpenCode treats every export of a plugin
 * module as a plugin, so helpers live in other modules. If setting up fails, the plugin registers no hooks
 * (OpenCode runs as if it were not installed) and says why in the host log.
 */
const MagicContext: Plugin = async (input) => {
  try {
    return await createPlugin(input)
  } catch (error) {
    const message = `magic-context disabled: setup failed: ${error instanceof Error ? error.message : String(error)}`
    void Promise.resolve()
      .then(() => input.client.app.log({ body: { service: "magic-context", level: "error", message } }))
      .catch(() => undefined)
    return {}
  }
}

export default MagicContext
