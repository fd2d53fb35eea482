import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { readPiCompactionSetting } from "../../src/pi/pi-settings.js"

describe("readPiCompactionSetting", () => {
  let root: string
  let cwd: string
  let agent: string

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pi-settings-"))
    cwd = join(root, "project")
    agent = join(root, "agent")
    mkdirSync(join(cwd, ".pi"), { recursive: true })
    mkdirSync(agent, { recursive: true })
  })

  afterEach(() => {
    rmSync(root, { recursive: true, force: true })
  })

  const read = () => readPiCompactionSetting({ cwd, env: { PI_CODING_AGENT_DIR: agent, HOME: root } })

  it("is on by Pi's default when no settings say", () => {
    expect(read()).toEqual({ enabled: true, source: "Pi's default" })
  })

  it("reads the agent directory's settings, and lets the project's override them", () => {
    writeFileSync(join(agent, "settings.json"), JSON.stringify({ compaction: { enabled: false } }))
    expect(read()).toEqual({ enabled: false, source: join(agent, "settings.json") })
    writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ compaction: { enabled: true, reserveTokens: 8000 } }))
    expect(read()).toEqual({ enabled: true, source: join(cwd, ".pi", "settings.json") })
  })

  it("takes a file that is not JSON, or says nothing of compaction, as saying nothing", () => {
    writeFileSync(join(cwd, ".pi", "settings.json"), "{ not json")
    writeFileSync(join(agent, "settings.json"), JSON.stringify({ compaction: { reserveTokens: 8000 } }))
    expect(read()).toEqual({ enabled: true, source: "Pi's default" })
  })

  it("finds ~/.pi/agent without PI_CODING_AGENT_DIR", () => {
    mkdirSync(join(root, ".pi", "agent"), { recursive: true })
    writeFileSync(join(root, ".pi", "agent", "settings.json"), JSON.stringify({ compaction: { enabled: false } }))
    expect(readPiCompactionSetting({ cwd, env: { HOME: root } })).toEqual({ enabled: false, source: join(root, ".pi", "agent", "settings.json") })
  })
})
