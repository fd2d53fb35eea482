/** Every failure the plugin reports on purpose carries one of these codes. */
export type PluginErrorCode =
  | "config_invalid"
  | "db_from_future"
  | "db_open_failed"
  | "db_driver_unavailable"
  | "db_corrupt"
  | "migration_failed"
  | "transcript_unreadable"
  | "transcript_parse"
  | "transcript_format_unknown"
  | "trajectory_out_of_range"
  | "tokenizer_unavailable"
  | "fault_injected"
  | "historian_failed"
  | "invalid_argument"
  | "host_request_failed"
  | "provider_rejected_reasoning"

/** The code of a provider's rejection of a request over its reasoning state (recorded by a host adapter). */
export const REASONING_REJECTED: PluginErrorCode = "provider_rejected_reasoning"

/** The one error class of the project: a stable `code` callers can branch on, plus structured `data`. */
export class PluginError extends Error {
  readonly code: PluginErrorCode
  readonly data: Record<string, unknown>

  constructor(code: PluginErrorCode, message: string, data: Record<string, unknown> = {}) {
    super(message)
    this.name = "PluginError"
    this.code = code
    this.data = data
  }

  /** A JSON-safe view, for the error log and `--json` outputs. */
  toJSON(): { name: string; code: PluginErrorCode; message: string; data: Record<string, unknown> } {
    return { name: this.name, code: this.code, message: this.message, data: this.data }
  }
}

/** True when `error` is a PluginError with the given code. */
export function isPluginError(error: unknown, code?: PluginErrorCode): error is PluginError {
  return error instanceof PluginError && (code === undefined || error.code === code)
}
