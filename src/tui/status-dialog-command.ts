import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { loadedOpenCodeCompaction } from "../status/opencode-config-compaction.js"
import { STATUS_COMMAND } from "../status/status-command-name.js"
import { errorMessage } from "../store/error-details.js"
import type { PanelSource, ReportDetails } from "./panel-source.js"
import { statusDialogLines, type StatusDialogInput } from "./status-dialog-lines.js"
import { DIALOG_FRAME_COLUMNS, DIALOG_FRAME_ROWS, statusDialogView } from "./status-dialog-view.js"

type DialogSize = "medium" | "large" | "xlarge"

/** OpenCode 1.18's dialog widths by size, and the terminal width from which its own wide dialogs take each. */
const DIALOG_SIZES: readonly { size: DialogSize; width: number; fromTerminal: number }[] = [
  { size: "xlarge", width: 116, fromTerminal: 128 },
  { size: "large", width: 88, fromTerminal: 96 },
  { size: "medium", width: 60, fromTerminal: 0 },
]

/** A command as OpenCode's keymap layer takes it (`api.keymap.registerLayer`). */
type KeymapCommand = {
  namespace: "palette"
  name: string
  title: string
  desc: string
  category: string
  slashName: string
  run: () => void
}
type KeymapWithLayers = { registerLayer?: (layer: { commands: KeymapCommand[] }) => () => void }

const TITLE = "magic-context status"
const DESCRIPTION = "where this session's context goes (no model call)"

/**
 * Registers `/ctx-status` in OpenCode's terminal UI: a slash command (and a palette entry) that opens a dialog with
 * the session's status report, read from the store by the sidebar's source. It runs in the TUI alone: no prompt,
 * no model call. The server plugin's command of the same name serves clients without this TUI plugin.
 */
export function registerStatusDialog(api: TuiPluginApi, source: PanelSource): void {
  const run = (): void => void openStatusDialog(api, source)
  const keymap = api.keymap as unknown as KeymapWithLayers | undefined
  if (keymap?.registerLayer) {
    const command: KeymapCommand = { namespace: "palette", name: "magic-context.status", title: TITLE, desc: DESCRIPTION, category: "magic-context", slashName: STATUS_COMMAND, run }
    api.lifecycle.onDispose(keymap.registerLayer({ commands: [command] }))
    return
  }
  // OpenCode's older command API, for a TUI without keymap layers.
  const legacy = api.command?.register(() => [
    { title: TITLE, value: "magic-context.status", description: DESCRIPTION, category: "magic-context", slash: { name: STATUS_COMMAND }, onSelect: run },
  ])
  if (legacy) api.lifecycle.onDispose(legacy)
}

/** Reads the report of the session on screen and shows it; whatever fails shows in the dialog, never throws. */
export async function openStatusDialog(api: TuiPluginApi, source: PanelSource): Promise<void> {
  try {
    const terminal = api.renderer
    const dialog = DIALOG_SIZES.find((entry) => terminal.width >= entry.fromTerminal) ?? DIALOG_SIZES[DIALOG_SIZES.length - 1]
    const { size, width } = dialog as (typeof DIALOG_SIZES)[number]
    // OpenCode caps a dialog at the terminal's width less two and places it a quarter of the height down.
    const columns = Math.min(width, terminal.width - 2) - DIALOG_FRAME_COLUMNS
    const rows = Math.max(3, terminal.height - Math.ceil(terminal.height / 4) - DIALOG_FRAME_ROWS - 2)
    const input = await dialogInput(api, source)
    const { title, lines } = statusDialogLines(input, { now: Date.now(), width: columns })
    api.ui.dialog.replace(() => statusDialogView({ title, lines, height: rows, theme: api.theme.current }))
    // After replace, which resets the size.
    api.ui.dialog.setSize(size)
  } catch (error) {
    api.ui.toast({ variant: "error", title: TITLE, message: `cannot show the report: ${errorMessage(error)}` })
  }
}

async function dialogInput(api: TuiPluginApi, source: PanelSource): Promise<StatusDialogInput> {
  const route = api.route.current
  const sessionId = route.name === "session" && typeof route.params?.["sessionID"] === "string" ? route.params["sessionID"] : null
  if (!sessionId) return { kind: "no-session-open" }
  return source.read(sessionId, reportDetails(api))
}

/** What the running OpenCode knows that the report shows: its compaction settings and each model's API. */
function reportDetails(api: TuiPluginApi): ReportDetails {
  return {
    hostCompaction: loadedOpenCodeCompaction(api.state.config),
    hostApi: (providerID, modelID) => api.state.provider.find((provider) => provider.id === providerID)?.models[modelID]?.api?.npm ?? null,
  }
}
