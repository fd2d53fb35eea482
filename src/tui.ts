import type { TuiPluginModule } from "@opencode-ai/plugin/tui"
import { sidebarPlugin } from "./tui/sidebar-plugin.js"

/**
 * magic-context's OpenCode TUI plugin: the sidebar panel. Listed in OpenCode's `tui.json` (`magic-context setup`
 * writes the entry); OpenCode loads it into its terminal UI, beside the server plugin of `index.ts`.
 */
export default {
  id: "magic-context",
  tui: sidebarPlugin,
} satisfies TuiPluginModule
