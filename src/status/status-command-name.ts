/** The slash command that shows the status report, in every host (OpenCode's TUI and server, Pi). */
export const STATUS_COMMAND = "ctx-status"
