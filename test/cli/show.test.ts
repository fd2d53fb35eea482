import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TIERS } from "../../src/historian/fidelity-types.js"
import type { ShownPrompt } from "../../src/report/show-prompt.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"
import { tracePath } from "../transcript/trace-path.js"
import { formatSamples } from "./show-formats.js"

type ShownJson = ShownPrompt & { source: string; format: string; calls: number[] }

const SWE_AGENT = tracePath("sweagent-gpt4-pydicom-1458.traj")

describe("magic-context show", () => {
  const dirs = createTempDirs()
  const samples = formatSamples(dirs.make("samples"))
  let home: TempHome
  let cwd: string
  beforeAll(() => {
    home = createTempHome(dirs)
    cwd = dirs.make("cwd")
  })
  afterAll(() => dirs.cleanup())
  const show = (...args: string[]) => runCliCaptured(["show", ...args], { env: home.env, cwd })
  // `show … --json` of one transcript, run once for the tests that read it (each run replays the whole transcript).
  const shownJson = new Map<string, Promise<ShownJson>>()
  const showJson = (...args: string[]): Promise<ShownJson> => {
    const key = args.join("\0")
    const known = shownJson.get(key)
    if (known) return known
    const shown = show(...args, "--json").then(({ code, io }) => {
      expect(code, io.stderrText()).toBe(0)
      expect(io.out).toHaveLength(1)
      return JSON.parse(io.out[0] ?? "") as ShownJson
    })
    shownJson.set(key, shown)
    return shown
  }

  describe.each(samples)("on a $format transcript", ({ format, args, folds }) => {
    it("prints the prompt of the last model call, its episodes with their tiers and raw records", async () => {
      const shown = await showJson(...args)
      expect(shown.format).toBe(format)
      expect(shown.calls.length).toBeGreaterThan(0)
      expect(shown.turn).toBe(shown.calls.at(-1))
      expect(shown.tokens.total).toBeGreaterThan(0)
      expect(shown.conversation.length).toBeGreaterThan(0)
      if (!folds) return
      const episodes = shown.history?.episodes ?? []
      expect(episodes.length).toBeGreaterThan(0)
      for (const episode of episodes) {
        expect(TIERS).toContain(episode.tier)
        expect(episode.text.startsWith(`[${episode.id}`)).toBe(true)
        expect(episode.raw?.length ?? 0, episode.id).toBeGreaterThan(0)
      }
      // Each dropped item's raw record is the part the store keeps, not the marker.
      for (const part of shown.conversation.flatMap((message) => message.parts)) {
        if (!part.dropped) continue
        expect(part.dropped.marker).toContain(`§${part.dropped.tag}§`)
        expect(part.dropped.raw).not.toBeNull()
        expect(part.dropped.raw).not.toContain(part.dropped.marker)
      }
    }, 60_000)
  })

  it("prints the same prompt as text: each episode's tier, id and tag range, each drop followed by what it said", async () => {
    const shown = await showJson(SWE_AGENT, "--window", "8000")
    const { code, io } = await show(SWE_AGENT, "--window", "8000")
    expect(code).toBe(0)
    const episodes = shown.history?.episodes ?? []
    expect(io.out[0]).toBe(`${SWE_AGENT}: the prompt of the model call at turn ${shown.turn} (call 12 of 12; turns 3–25)`)
    expect(io.out).toContain(`History: ${episodes.length} episodes (${tierCounts(episodes.map((episode) => episode.tier))})`)
    for (const episode of episodes) {
      expect(io.out).toContain(`  ${episode.tier.toUpperCase().padEnd(7)} ${episode.id}${episode.tags ? ` ${episode.tags}` : ""}`)
    }
    const drops = shown.conversation.flatMap((message) => message.parts).flatMap((part) => (part.dropped ? [part.dropped] : []))
    expect(drops.length).toBeGreaterThan(0)
    for (const drop of drops) {
      const at = io.out.findIndex((line) => line.trim() === drop.marker)
      expect(at, drop.marker).toBeGreaterThan(0)
      expect(io.out[at + 1]).toMatch(new RegExp(`^ +what §${drop.tag}§ said \\(\\d+ lines?\\):$`))
      expect(io.out[at + 2]?.trim()).toBe(`| ${drop.raw?.split("\n")[0]}`)
    }
  }, 60_000)

  it("shows the tiers replay applied at the turn asked for, and the drops that landed before it", async () => {
    const replay = await runCliCaptured(["replay", SWE_AGENT, "--window", "8000", "--json"], { env: home.env, cwd })
    const turns = replay.io.out.map((line) => JSON.parse(line) as { turn: number; pass: string; tiers: Record<string, string>; dropped: number[] })
    const folded = turns.find((turn) => Object.keys(turn.tiers).length > 0 && turn.pass === "execute")
    expect(folded).toBeDefined()
    const at = folded?.turn as number
    const { code, io } = await show(SWE_AGENT, "--window", "8000", "--turn", String(at), "--json")
    expect(code).toBe(0)
    const shown = JSON.parse(io.out[0] ?? "") as ShownJson
    expect(shown.turn).toBe(at)
    expect(shown.pass).toBe("execute")
    expect(Object.fromEntries(shown.history?.episodes.map((episode) => [episode.id, episode.tier]) ?? [])).toEqual(
      Object.fromEntries(Object.entries(folded?.tiers ?? {}).filter(([, tier]) => tier !== "omitted")),
    )
    const droppedSoFar = turns.filter((turn) => turn.turn <= at).flatMap((turn) => turn.dropped)
    const markers = shown.conversation.flatMap((message) => message.parts).flatMap((part) => (part.dropped ? [part.dropped.tag] : []))
    for (const tag of markers) expect(droppedSoFar).toContain(tag)
  }, 60_000)

  it("replays a stored session from the store's messages, reading the store only", async () => {
    const store = join(dirs.make("store"), "replayed.db")
    const recorded = await runCliCaptured(["replay", SWE_AGENT, "--window", "8000", "--db", store, "--json"], { env: home.env, cwd })
    expect(recorded.code).toBe(0)
    const list = await runCliCaptured(["status", "--list", "--json", "--db", store], { env: home.env, cwd })
    const sessionId = (JSON.parse(list.io.stdoutText()) as { id: string }[])[0]?.id as string
    const fromFile = await showJson(SWE_AGENT, "--window", "8000")
    const before = readFileSync(store)
    const stored = await show("--session", sessionId, "--db", store, "--window", "8000", "--json")
    expect(stored.code, stored.io.stderrText()).toBe(0)
    expect(readFileSync(store).equals(before)).toBe(true)
    const fromStore = JSON.parse(stored.io.out[0] ?? "") as ShownJson
    expect(fromStore.source).toBe(`session ${sessionId}`)
    expect(fromStore.calls.length).toBe(fromFile.calls.length)
    expect(fromStore.history?.episodes.map((episode) => [episode.id, episode.tier])).toEqual(
      fromFile.history?.episodes.map((episode) => [episode.id, episode.tier]),
    )
  }, 60_000)

  describe("bad input: a one-line error, the right exit code, nothing written", () => {
    it("a turn that is no model call names the calls' range and the nearest", async () => {
      const out = join(dirs.make("html"), "report.html")
      const { code, io } = await show(SWE_AGENT, "--turn", "4", "--html", out)
      expect(code).toBe(2)
      expect(io.err).toEqual([
        `--turn 4: no model call at turn 4 of ${SWE_AGENT}; its 12 model calls are at turns 3–25 (nearest: 3, 5)`,
      ])
      expect(existsSync(out)).toBe(false)
    }, 60_000)

    it("a missing transcript, an unknown session, a missing store", async () => {
      const missing = await show(join(cwd, "nope.json"))
      expect([missing.code, missing.io.err]).toEqual([1, [`${join(cwd, "nope.json")}: cannot read the transcript: no such file`]])
      const store = join(dirs.make("store"), "s.db")
      await runCliCaptured(["replay", SWE_AGENT, "--db", store, "--json"], { env: home.env, cwd })
      const unknown = await show("--session", "ses_unknown", "--db", store)
      expect(unknown.code).toBe(1)
      expect(unknown.io.err).toHaveLength(1)
      expect(unknown.io.err[0]).toMatch(new RegExp(`^${store}: no session ses_unknown; it holds 1 \\(newest: replay:swe-agent:`))
      const noStore = await show("--session", "ses_unknown", "--db", join(cwd, "none.db"))
      expect(noStore.code).toBe(1)
      expect(noStore.io.err[0]).toContain("none.db: no magic-context store here")
      expect(readdirSync(cwd)).toEqual([])
    }, 60_000)

    it("usage errors: no source, two sources, a bad --turn, --html into a missing directory", async () => {
      for (const args of [[], [SWE_AGENT, "--session", "x"], [SWE_AGENT, "--turn", "-1"], [SWE_AGENT, "--html", join(cwd, "no/such/dir/r.html")]]) {
        const { code, io } = await show(...args)
        expect(code, args.join(" ")).toBe(2)
        expect(io.err[0]?.length ?? 0).toBeGreaterThan(0)
      }
      expect(readdirSync(cwd)).toEqual([])
    })
  })
})

function tierCounts(tiers: readonly string[]): string {
  return TIERS.filter((tier) => tiers.includes(tier))
    .map((tier) => `${tiers.filter((chosen) => chosen === tier).length} ${tier.toUpperCase()}`)
    .join(", ")
}
