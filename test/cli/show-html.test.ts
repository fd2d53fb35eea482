import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { escapeHtml } from "../../src/report/html-escape.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"
import { tracePath } from "../transcript/trace-path.js"

/** Text a transcript may hold that would break out of the page were it not escaped. */
const HOSTILE = `</script><script>alert(1)</script><img src=x onerror="alert(2)"> & </pre></template></details>`

describe("magic-context show --html", () => {
  const dirs = createTempDirs()
  let home: TempHome
  let cwd: string
  let transcript: string
  let hostile: string
  beforeAll(async () => {
    home = createTempHome(dirs)
    cwd = dirs.make("cwd")
    // The SWE-agent trajectory with the hostile text in every message: it lands in folded episodes, their raw
    // records, dropped outputs and the live conversation.
    const trajectory = JSON.parse(readFileSync(tracePath("sweagent-gpt4-pydicom-1458.traj"), "utf8")) as {
      history: { role: string; content: unknown }[]
    }
    for (const entry of trajectory.history) if (typeof entry.content === "string") entry.content = `${entry.content}\n${HOSTILE}`
    transcript = join(cwd, "hostile.traj")
    writeFileSync(transcript, JSON.stringify(trajectory))
    hostile = await report("hostile.html")
  }, 60_000)
  afterAll(() => dirs.cleanup())
  const report = async (name: string): Promise<string> => {
    const file = join(cwd, name)
    const { code, io } = await runCliCaptured(["show", transcript, "--window", "8000", "--html", file], { env: home.env, cwd })
    expect(code, io.stderrText()).toBe(0)
    expect(io.out).toHaveLength(1)
    expect(io.out[0]).toMatch(new RegExp(`^${file}: the report of 12 model calls, \\d+ execute passes \\(\\d+ bytes\\)$`))
    return readFileSync(file, "utf8")
  }

  it("writes the same bytes for the same input", async () => {
    const again = await report("again.html")
    expect(again === hostile).toBe(true)
  }, 60_000)

  it("escapes every text from the transcript and loads nothing from outside the file", () => {
    const html = hostile
    expect(html).not.toContain(HOSTILE)
    expect(html).not.toContain("<img")
    expect(html.match(/<script/g)).toHaveLength(1)
    // The hostile text is there, as text: in the live conversation, in episodes and in the raw records' templates.
    const escaped = escapeHtml(HOSTILE)
    expect(html.split(escaped).length - 1).toBeGreaterThan(3)
    expect(/<template id="raw-c\d+"><pre>[^]*?&lt;\/script&gt;&lt;script&gt;alert\(1\)/.test(html)).toBe(true)
    // No external script, style, image or font: no element with a src, no link element, no url() but the SVG's own
    // #ids, no @import, no href but to the page's own #ids.
    expect(html).not.toMatch(/<[a-z][^>]*\ssrc=|<link|url\((?!#)|@import/i)
    expect(html.match(/href="(?!#)/g)).toBeNull()
  }, 60_000)

  it("holds both charts, the pass picker and the prompt of every execute pass with its episodes", () => {
    const html = hostile
    expect(html.match(/<svg/g)).toHaveLength(2)
    expect(html).toContain("Prompt tokens per model call")
    expect(html).toContain("tier over the calls</text>")
    const options = [...html.matchAll(/<option value="(\d+)"( selected)?>turn \d+: (execute|replay) /g)]
    const articles = [...html.matchAll(/<article class="prompt" id="turn-(\d+)"/g)].map((match) => match[1])
    expect(options.map((match) => match[1])).toEqual(articles)
    expect(options.filter((match) => match[3] === "execute").length).toBeGreaterThan(0)
    // The last call is shown first.
    expect(options.filter((match) => match[2] === " selected").map((match) => match[1])).toEqual([articles.at(-1)])
    expect(html).toMatch(/<details class="episode" data-episode="c1">\n<summary><span class="tier tier-(full|dense|compact|anchor)">/)
  })
})
