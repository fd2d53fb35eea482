import { openCodeCompaction, type HostCompaction } from "./status-data.js"

/**
 * OpenCode's compaction settings as the running OpenCode loaded its config (the server plugin's `config` hook, the
 * TUI's `state.config`): its defaults where a key is absent (auto on, prune off).
 */
export function loadedOpenCodeCompaction(config: unknown): HostCompaction {
  const compaction = isRecord(config) && isRecord(config["compaction"]) ? config["compaction"] : {}
  return openCodeCompaction({
    auto: typeof compaction["auto"] === "boolean" ? compaction["auto"] : true,
    prune: typeof compaction["prune"] === "boolean" ? compaction["prune"] : false,
    source: "OpenCode's config as loaded",
  })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
