import { parseArgs, type ParseArgsConfig } from "node:util"
import { closestName } from "../config/closest-name.js"

/**
 * `parseArgs` for a command's options (strict, as every command parses): an unknown option is refused as parseArgs
 * refuses it (a TypeError with code ERR_PARSE_ARGS_UNKNOWN_OPTION, which `runCli` prints above the command's help),
 * its message naming the option the command knows that it is nearest to, when one is a slip away.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config)
  } catch (error) {
    const unknown = unknownOptionOf(error)
    if (unknown === null) throw error
    throw Object.assign(new TypeError(unknownOptionMessage(unknown, config.options ?? {})), { code: UNKNOWN_OPTION })
  }
}

const UNKNOWN_OPTION = "ERR_PARSE_ARGS_UNKNOWN_OPTION"

/** "unknown option --windw (did you mean --window?)", or without a near name "unknown option --windw". */
export function unknownOptionMessage(given: string, options: NonNullable<ParseArgsConfig["options"]>): string {
  const known = Object.entries(options).flatMap(([name, option]) => [`--${name}`, ...(option.short ? [`-${option.short}`] : [])])
  const near = closestName(given, known)
  return `unknown option ${given}${near === null ? "" : ` (did you mean ${near}?)`}`
}

/** The option a parseArgs error refused as unknown ("Unknown option '--windw'. …"), or null for any other error. */
function unknownOptionOf(error: unknown): string | null {
  if (!(error instanceof TypeError) || !("code" in error) || error.code !== UNKNOWN_OPTION) return null
  return /Unknown option '([^']+)'/.exec(error.message)?.[1] ?? null
}
