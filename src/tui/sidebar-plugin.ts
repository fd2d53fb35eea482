import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { createSignal, onCleanup } from "solid-js"
import { errorMessage } from "../store/error-details.js"
import { sidebarPanel, type PanelLine } from "../status/sidebar-panel.js"
import type { PanelSource } from "./panel-source.js"
import { panelView } from "./panel-view.js"

/** Where the panel sits among the sidebar's sections (OpenCode's own come in their order; this goes after them). */
const PANEL_ORDER = 150

/** A burst of events (a streamed reply) makes one read, this long after the first of them. */
const REFRESH_DELAY_MS = 300

/** The panel also refreshes this often without events (the historian writes in the background; ages move on). */
const POLL_MS = 5_000

/** Host events after which the store may hold a new pass (the plugin records one before every model call). */
const REFRESH_EVENTS = ["message.updated", "session.idle", "session.status", "session.compacted"] as const

/**
 * The sidebar panel: registers a `sidebar_content` slot that shows the session's context as `source` reads it from
 * the store, read-only, refreshed after host events and on a slow poll. It makes no model call and changes no
 * prompt. Nothing it does throws into the TUI: a failed read shows as a line of the panel.
 */
export function registerSidebarPanel(api: TuiPluginApi, source: PanelSource): void {
  const views = new Set<() => Promise<void>>()
  let pending: ReturnType<typeof setTimeout> | null = null
  const refreshSoon = (): void => {
    if (pending) return
    pending = setTimeout(() => {
      pending = null
      for (const view of views) void view()
    }, REFRESH_DELAY_MS)
  }
  for (const type of REFRESH_EVENTS) api.event.on(type, refreshSoon)
  const poll = setInterval(refreshSoon, POLL_MS)
  api.lifecycle.onDispose(() => {
    clearInterval(poll)
    if (pending) clearTimeout(pending)
  })
  api.slots.register({
    order: PANEL_ORDER,
    slots: {
      sidebar_content(context, props) {
        const [lines, setLines] = createSignal<readonly PanelLine[]>([])
        const update = async (): Promise<void> => {
          setLines(await panelLines(source, props.session_id))
        }
        views.add(update)
        onCleanup(() => views.delete(update))
        void update()
        return panelView(lines, () => context.theme.current)
      },
    },
  })
}

/** The panel of a session now; whatever fails becomes the panel's error line, never an exception in the TUI. */
async function panelLines(source: PanelSource, sessionId: string): Promise<PanelLine[]> {
  try {
    return sidebarPanel(await source.read(sessionId), { now: Date.now() })
  } catch (error) {
    return sidebarPanel({ kind: "unreadable", message: errorMessage(error) }, { now: Date.now() })
  }
}
