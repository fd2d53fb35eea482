import { execFile } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { OKABE_ITO } from "../../src/report/palette.js"
import { TIER_COLORS } from "../../src/report/tier-timeline-chart.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"
import { tracePath } from "../transcript/trace-path.js"
import { REPO_ROOT } from "./harness/opencode-harness.js"
import { colourCounts, decodePng } from "./harness/png-image.js"
import { formatSamples } from "../cli/show-formats.js"

const run = promisify(execFile)
const CHROMIUM = "/usr/bin/chromium"
const missing = existsSync(CHROMIUM) ? null : `${CHROMIUM} is not installed (Debian: apt-get install chromium)`
if (missing) console.warn(`html-report.slow.test.ts skipped: ${missing}`)

const WIDTH = 1280
const HEIGHT = 2000

/** Chromium, headless, offline and with a fresh profile, on a file:// page; `mode` is its output flag (and any more). */
async function chromium(profile: string, page: string, ...mode: string[]): Promise<string> {
  const { stdout } = await run(
    CHROMIUM,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
      ...mode,
      `--window-size=${WIDTH},${HEIGHT}`,
      `file://${page}`,
    ],
    { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 },
  )
  return stdout
}

describe.skipIf(missing !== null)("the show --html report in a real browser (Debian's Chromium, headless)", () => {
  const dirs = createTempDirs()
  let home: TempHome
  let report: string
  beforeAll(async () => {
    home = createTempHome(dirs)
    report = join(dirs.make("report"), "report.html")
    // The built CLI, as a user runs it, on a bundled transcript that folds episodes and drops outputs in this window.
    const cli = await run(
      process.execPath,
      [join(REPO_ROOT, "dist/cli/bin.js"), "show", tracePath("sweagent-gpt4-pydicom-1458.traj"), "--window", "8000", "--html", report],
      { env: { ...process.env, ...home.env }, cwd: dirs.make("cwd") },
    )
    expect(cli.stdout).toMatch(/: the report of 12 model calls, [1-9]\d* execute passes/)
  })
  afterAll(() => dirs.cleanup())

  it("renders a real page: a screenshot of the asked size, not blank, with the charts' colours", async () => {
    const png = join(dirs.make("shot"), "report.png")
    await chromium(dirs.make("profile"), report, `--screenshot=${png}`)
    const image = decodePng(readFileSync(png))
    expect([image.width, image.height]).toEqual([WIDTH, HEIGHT])
    const colours = colourCounts(image)
    const pixels = WIDTH * HEIGHT
    const white = colours.get("#ffffff") ?? 0
    // Text, charts and panels: many colours, a good share of the page not white, yet mostly a light page.
    expect(colours.size).toBeGreaterThan(100)
    expect(1 - white / pixels).toBeGreaterThan(0.05)
    expect(white / pixels).toBeGreaterThan(0.3)
    // The usage line (the palette's first colour) and the tier bars (each episode is COMPACT at the end) are drawn.
    expect(colours.get(OKABE_ITO[0].toLowerCase()) ?? 0).toBeGreaterThan(200)
    expect(colours.get(TIER_COLORS.compact.toLowerCase()) ?? 0).toBeGreaterThan(2_000)
  })

  it("runs its script: both charts drawn, one pass shown with its episodes, the others hidden", async () => {
    const dom = await chromium(dirs.make("profile"), report, "--dump-dom")
    expect(dom.match(/<svg/g)).toHaveLength(2)
    expect(dom).toMatch(/class="mark-line role-mark/)
    expect(dom).toMatch(/class="mark-rect role-mark/)
    const articles = [...dom.matchAll(/<article class="prompt" id="turn-(\d+)" data-turn="\d+"[^>]*>/g)]
    expect(articles.length).toBeGreaterThan(1)
    const visible = articles.filter((match) => !/\shidden/.test(match[0]))
    // The selected pass (the last call) is the one shown; the script hid every other.
    expect(visible.map((match) => match[1])).toEqual([articles.at(-1)?.[1]])
    const shown = dom.slice(dom.indexOf(visible[0]?.[0] ?? "<none>"))
    expect(shown.slice(0, shown.indexOf("</article>"))).toMatch(/<details class="episode" data-episode="c1">/)
  })

  it("fills an episode's and a dropped output's raw record in when the reader opens them", async () => {
    // The reader's clicks, as a script after the page's own: open the shown pass's first raw record of each kind.
    const clicked = join(dirs.make("clicked"), "report.html")
    const open = 'for (const kind of ["raw-record", "dropped-raw"]) document.querySelector(`article:not([hidden]) details.${kind}`).open = true'
    writeFileSync(clicked, readFileSync(report, "utf8").replace("</body>", `<script>${open}</script>\n</body>`))
    const dom = await chromium(dirs.make("profile"), clicked, "--dump-dom", "--virtual-time-budget=2000")
    expect(dom).toMatch(/<details class="raw-record" open=""><summary>raw record \(\d+ lines\)<\/summary><div class="raw" data-raw="raw-c1"><pre>§1§ \[user\] /)
    expect(dom).toMatch(/<details class="dropped-raw" open=""><summary>what §(\d+)§ said \(\d+ lines\)<\/summary><div class="raw" data-raw="raw-tag-\1"><pre>\[tool call\] /)
    // A raw record not opened stays out of the page's text (it is in its template only).
    expect(dom).toMatch(/<details class="raw-record"><summary>raw record \(\d+ lines\)<\/summary><div class="raw" data-raw="raw-c2"><\/div>/)
  })
})

describe.skipIf(missing !== null)("the show --html report of every transcript format, in Chromium", () => {
  const dirs = createTempDirs()
  const samples = formatSamples(dirs.make("samples"))
  afterAll(() => dirs.cleanup())

  it.each(samples)("$format: the usage chart, the tier chart where episodes were folded, the last call's prompt", async ({ args, folds }) => {
    const home = createTempHome(dirs)
    const report = join(dirs.make("report"), "report.html")
    await run(process.execPath, [join(REPO_ROOT, "dist/cli/bin.js"), "show", ...args, "--html", report], {
      env: { ...process.env, ...home.env },
      cwd: dirs.make("cwd"),
    })
    const dom = await chromium(dirs.make("profile"), report, "--dump-dom")
    expect(dom.match(/<svg/g)).toHaveLength(folds ? 2 : 1)
    expect(dom).toMatch(/class="mark-line role-mark/)
    if (!folds) expect(dom).toContain("No episode was folded into history")
    const articles = [...dom.matchAll(/<article class="prompt" id="turn-(\d+)"[^>]*>/g)]
    expect(articles.filter((match) => !/\shidden/.test(match[0])).map((match) => match[1])).toEqual([articles.at(-1)?.[1]])
    expect(dom).toMatch(/<div class="message (user|assistant)"><span class="role">/)
  })
})
