/** A problem with a config file or value. The plugin always goes on, with defaults where a value was refused. */
export type ConfigDiagnostic = {
  severity: "error" | "warning"
  file: string
  /** The dotted key, or null when the whole file was refused. */
  key: string | null
  /** The refused value as JSON, or null. */
  value: string | null
  expected: string
  /** One line naming the file, the key, the value and what was expected. */
  message: string
}

/** True when a diagnostic means a value or file was refused (warnings only advise). */
export function isConfigError(diagnostic: ConfigDiagnostic): boolean {
  return diagnostic.severity === "error"
}
