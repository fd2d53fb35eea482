import type { TuiPlugin, TuiPluginModule } from "@opencode-ai/plugin/tui"
import { createPanelSource } from "./tui/panel-source.js"
import { registerSidebarPanel } from "./tui/sidebar-plugin.js"
import { registerStatusDialog } from "./tui/status-dialog-command.js"

/**
 * magic-context's OpenCode TUI plugin: the sidebar panel and the `/ctx-status` dialog, both read from the store by
 * one source, neither making a model call. Listed in OpenCode's `tui.json` (`magic-context setup` writes the entry);
 * OpenCode loads it into its terminal UI, beside the server plugin of `index.ts`.
 */
const tui: TuiPlugin = async (api) => {
  const source = createPanelSource({ directory: api.state.path.directory, env: process.env })
  api.lifecycle.onDispose(() => source.close())
  registerSidebarPanel(api, source)
  registerStatusDialog(api, source)
}

export default {
  id: "magic-context",
  tui,
} satisfies TuiPluginModule
