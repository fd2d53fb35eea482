import { isPluginError } from "../../src/plugin-error.js"
import { openDatabase } from "../../src/store/open-database.js"

/** Every way magic-context opens a store file. */
export const SURFACES = ["open", "replay --db", "status --db", "doctor", "plugin"] as const
export type Surface = (typeof SURFACES)[number]

/**
 * What one surface did with a store file: whether it went on as if the store were fine, the exit code (CLI), the
 * error code (openDatabase, the plugin's error record), and the text the user is shown.
 */
export type SurfaceOutcome = {
  surface: Surface
  accepted: boolean
  exit: number | null
  code: string | null
  text: string
}

/** `openDatabase(file)`: refused with a PluginError, or accepted (and closed again). */
export async function openOutcome(file: string): Promise<SurfaceOutcome> {
  try {
    const db = await openDatabase(file)
    db.close()
    return { surface: "open", accepted: true, exit: null, code: null, text: "" }
  } catch (error) {
    return {
      surface: "open",
      accepted: false,
      exit: null,
      code: isPluginError(error) ? error.code : "not a PluginError",
      text: error instanceof Error ? error.message : String(error),
    }
  }
}

