import { describe, expect, it } from "vitest"
import { openCodeCompaction, piCompaction } from "../../src/status/status-data.js"

describe("the host compaction line's data", () => {
  it("recommends turning OpenCode's auto and prune off while either is on", () => {
    expect(openCodeCompaction({ auto: true, prune: false, source: "opencode.json" })).toEqual({
      host: "OpenCode",
      settings: "auto true, prune false",
      recommended: '"compaction": {"auto": false, "prune": false}',
      source: "opencode.json",
    })
    expect(openCodeCompaction({ auto: false, prune: false, source: "opencode.json" }).recommended).toBeNull()
  })

  it("recommends turning Pi's auto-compaction off, and says how often Pi compacted the session", () => {
    expect(piCompaction({ enabled: true, source: "Pi's default", compacted: 0 })).toEqual({
      host: "Pi",
      settings: "enabled true",
      recommended: '"compaction": {"enabled": false}',
      source: "Pi's default",
    })
    expect(piCompaction({ enabled: false, source: "/p/.pi/settings.json", compacted: 1 })).toMatchObject({ settings: "enabled false; compacted this session once since Pi started", recommended: null })
    expect(piCompaction({ enabled: true, source: "x", compacted: 3 }).settings).toBe("enabled true; compacted this session 3 times since Pi started")
  })
})
