import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { LAB_POLICIES } from "../../src/lab/probe-verdict.js"
import { PROBE_KINDS } from "../../src/lab/probe-file.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"
import { realTraceProbes } from "../lab/real-trace-probes.js"
import { tracePath } from "../transcript/trace-path.js"
import { LAB_RULE_NAMES } from "../../src/lab/rule-ablation.js"
import { rulesTunedOn } from "../../src/session/recognizers.js"
import { SYNTHETIC, syntheticSessionJsonl } from "../lab/synthetic-session.js"

const SWE_AGENT = tracePath("sweagent-gpt4-pydicom-1458.traj")
const WINDOWS = "8000,16000"

const dirs = createTempDirs()
let home: TempHome
let probeFile: string

beforeEach(() => {
  home = createTempHome(dirs)
  // The SWE-agent probes of the real-trace set, with the transcript named by its absolute path.
  const probes = realTraceProbes()
    .filter((probe) => probe.trace.includes("sweagent"))
    .map(({ id, kind, t, need, exact }) => ({ id, trace: SWE_AGENT, kind, t, need, exact }))
  probeFile = join(home.root, "probes.json")
  writeFileSync(probeFile, JSON.stringify(probes))
})

afterEach(() => {
  dirs.cleanup()
})

const lab = (args: string[]) => runCliCaptured(["lab", ...args], { env: home.env, cwd: home.root })

describe("magic-context lab (Experiment 2)", () => {
  it("prints one JSON object with a summary per policy and window and a verdict per probe; two runs print the same bytes", async () => {
    const first = await lab(["--probes", probeFile, "--window", WINDOWS, "--json"])
    const second = await lab(["--probes", probeFile, "--window", WINDOWS, "--json"])
    expect(first.code).toBe(0)
    expect(second.io.stdoutText()).toBe(first.io.stdoutText())

    const json = JSON.parse(first.io.stdoutText()) as {
      settings: Record<string, unknown>
      summary: Record<string, unknown>[]
      runs: Record<string, unknown>[]
      probes: { id: string; policy: string; window: number | null; survived: boolean | null }[]
      invalid: unknown[]
    }
    expect(json.invalid).toEqual([])
    const pairs = json.summary.map((entry) => `${entry["policy"]}@${entry["window"]}`)
    expect(pairs).toEqual(["full@null", ...LAB_POLICIES.flatMap((policy) => [`${policy}@8000`, `${policy}@16000`])])
    for (const entry of json.summary) {
      for (const field of ["survival", "survivalByKind", "meanPromptTokens", "maxPromptTokens", "floorViolations", "prefixChangesPer100", "tierSwitches"]) {
        expect(entry, `${entry["policy"]} ${field}`).toHaveProperty(field)
      }
      expect(Object.keys(entry["survivalByKind"] as object)).toEqual([...PROBE_KINDS])
    }
    const full = json.summary[0] as Record<string, unknown>
    expect(full["survival"]).toBe(1)
    // The prompt cost beside survival, per policy × window and per run (one transcript here, so they agree).
    expect(json.settings["cachedTokenPrice"]).toBe(0.1)
    const costFields = ["promptTokens", "cachedTokens", "uncachedTokens", "cachedShare", "costTokens", "meanCostTokens", "survivalPer1kCostTokens"]
    expect(json.runs).toHaveLength(json.summary.length)
    json.summary.forEach((entry, index) => {
      const run = json.runs[index] as Record<string, unknown>
      expect([run["policy"], run["window"], run["survival"]]).toEqual([entry["policy"], entry["window"], entry["survival"]])
      for (const field of costFields) expect(run[field], `${entry["policy"]} ${field}`).toBe(entry[field])
      const { promptTokens = 0, cachedTokens = 0, costTokens = 0 } = entry as Record<string, number>
      expect(costTokens).toBeCloseTo(promptTokens - 0.9 * cachedTokens, 0)
      expect(cachedTokens).toBeLessThan(promptTokens)
    })
    // At 16k the default breaks no floor. At 8k the SWE-agent task alone fills 95% of the window: floors yield to the
    // ceiling on its emergency passes (the oldest compartments go to their anchors, pins and all still shown).
    const defaults = json.summary.filter((entry) => entry["policy"] === "default")
    expect(defaults.map((entry) => entry["window"])).toEqual([8_000, 16_000])
    expect(defaults[1]?.["floorViolations"]).toBe(0)
    // 12 probes, 2 of them never needed: 10 checked per policy and window, over 13 runs.
    expect(json.probes).toHaveLength(12 * 13)
    expect(json.probes.filter((probe) => probe.policy === "full" && probe.survived === true)).toHaveLength(10)
  }, 60_000)

  it("prints both tables and the probes each policy lost", async () => {
    const { code, io } = await lab(["--probes", probeFile, "--window", "8000", "--policies", "default,flat"])
    expect(code).toBe(0)
    const text = io.stdoutText()
    expect(text).toMatch(/^Experiment 2 \(trajectories\): 12 probes over 1 transcripts/)
    expect(text).toMatch(/\nfull +unreduced +9\/9 100%/)
    expect(text).toMatch(/\ndefault +8000 /)
    expect(text).toMatch(/\nflat +8000 /)
    expect(text).toContain("survival/1k tokens")
    expect(text).toMatch(/\nPrompt cost: .*cost = uncached \+ 0\.1 × cached\npolicy +window +survived +calls +prompt tokens +cached +cost tokens +cost\/call +survival\/1k cost\n/)
    expect(text).toMatch(/\nsweagent-gpt4-pydicom-1458\.traj +default +8000 /)
    // Not a terminal: no progress lines.
    expect(io.stderrText()).not.toContain("sweagent-gpt4-pydicom-1458.traj default @ 8000")
  }, 60_000)

  it("writes report.md, lab.json and the SVG charts with --out", async () => {
    const out = join(home.root, "report")
    const { code } = await lab(["--probes", probeFile, "--window", WINDOWS, "--policies", "default,flat,oracle", "--out", out])
    expect(code).toBe(0)
    const files = readdirSync(out).sort()
    expect(files).toEqual(
      [
        "lab.json",
        "operating-points.svg",
        "report.md",
        "survival-by-kind-16000.svg",
        "survival-by-kind-8000.svg",
        "tokens-sweagent-gpt4-pydicom-1458-16000.svg",
        "tokens-sweagent-gpt4-pydicom-1458-8000.svg",
        ...files.filter((file) => file.startsWith("tiers-")),
      ].sort(),
    )
    const report = readFileSync(join(out, "report.md"), "utf8")
    expect(report).toContain("# Context Lab report")
    expect(report).toContain("## Prompt cost")
    for (const chart of files.filter((file) => file.endsWith(".svg"))) {
      expect(report).toContain(`](${chart})`)
      const svg = readFileSync(join(out, chart), "utf8")
      expect(svg.startsWith("<svg") || svg.startsWith("<?xml"), chart).toBe(true)
      expect(svg).not.toMatch(/NaN|Infinity/)
    }
    expect(JSON.parse(readFileSync(join(out, "lab.json"), "utf8"))).toHaveProperty("summary")
  }, 60_000)

  it("compares at equal cost with --iso-tokens: each baseline at the window where its mean tokens match the default's", async () => {
    const { code, io } = await lab(["--probes", probeFile, "--window", "8000", "--policies", "default,flat,truncation", "--iso-tokens", "--json"])
    expect(code).toBe(0)
    const json = JSON.parse(io.stdoutText()) as { summary: Record<string, unknown>[]; isoTokens: Record<string, number | string>[] }
    const defaults = json.summary.find((entry) => entry["policy"] === "default") as Record<string, number>
    expect(json.isoTokens.map((point) => point["policy"])).toEqual(["flat", "truncation"])
    for (const point of json.isoTokens) {
      expect(point["window"]).toBe(8000)
      expect(point["defaultMeanPromptTokens"]).toBe(defaults["meanPromptTokens"])
      expect(point["defaultSurvived"]).toBe(defaults["probesSurvived"])
      expect(point["probes"]).toBe(defaults["probesChecked"])
      expect(point["matchedWindow"] as number).toBeGreaterThanOrEqual(1000)
    }
    const text = await lab(["--probes", probeFile, "--window", "8000", "--policies", "default,flat", "--iso-tokens"])
    expect(text.io.stdoutText()).toContain("At equal cost: each baseline at the window where its mean prompt tokens match the default's")
  }, 120_000)

  it("compares with and without named rules with --without: survival both ways and the probes the rules saved", async () => {
    const args = ["--probes", probeFile, "--window", WINDOWS, "--policies", "default,flat", "--without", "error-cause,tool:apply_patch", "--json"]
    const first = await lab(args)
    const second = await lab(args)
    expect(first.code).toBe(0)
    expect(second.io.stdoutText()).toBe(first.io.stdoutText())
    const json = JSON.parse(first.io.stdoutText()) as {
      summary: Record<string, unknown>[]
      without: { rules: string[]; rows: Record<string, unknown>[] }
    }
    expect(json.without.rules).toEqual(["error-cause", "tool:apply_patch"])
    expect(json.without.rows.map((row) => `${row["policy"]}@${row["window"]}`)).toEqual(["default@8000", "default@16000", "flat@8000", "flat@16000"])
    for (const row of json.without.rows) {
      const summary = json.summary.find((entry) => entry["policy"] === row["policy"] && entry["window"] === row["window"])
      expect(row["survivalWithRules"]).toBe(summary?.["survival"])
      expect(row["meanPromptTokensWithRules"]).toBe(summary?.["meanPromptTokens"])
      expect(row["difference"]).toBe((row["survivedWithRules"] as number) - (row["survivedWithoutRules"] as number))
      for (const field of ["survivalWithoutRules", "saved", "lostWithRules", "meanPromptTokensWithoutRules", "meanCostTokensWithRules", "meanCostTokensWithoutRules"]) {
        expect(row, field).toHaveProperty(field)
      }
    }
    const text = await lab(["--probes", probeFile, "--window", "8000", "--policies", "default", "--without", "commit-hash"])
    expect(text.code).toBe(0)
    expect(text.io.stdoutText()).toMatch(/\nWithout commit-hash: .*\npolicy +window +with rules +without +with − without .* saved +lost with rules\n/)
  }, 60_000)

  it("scores every transcript without the rules tuned on it with --folds: one row per transcript, the rules named", async () => {
    // A second transcript no rule was tuned on: the synthetic Lab session under a name of its own.
    writeFileSync(join(home.root, "unseen.jsonl"), syntheticSessionJsonl())
    const probes = JSON.parse(readFileSync(probeFile, "utf8")) as Record<string, unknown>[]
    probes.push({ id: "unseen-path", trace: "unseen.jsonl", kind: "identifier", t: SYNTHETIC.readTurn, need: SYNTHETIC.needTurn, exact: SYNTHETIC.path })
    writeFileSync(probeFile, JSON.stringify(probes))

    const { code, io } = await lab(["--probes", probeFile, "--window", "8000", "--folds", "--json"])
    expect(code).toBe(0)
    const json = JSON.parse(io.stdoutText()) as {
      summary: Record<string, unknown>[]
      folds: { folds: Record<string, unknown>[]; pooled: Record<string, unknown>[] }
    }
    // Only the default policy unless --policies names more.
    expect(json.summary.map((entry) => entry["policy"])).toEqual(["full", "default"])
    // Transcripts in path order (the temporary folder's path decides which comes first).
    expect(json.folds.folds.map((row) => [row["trace"], row["policy"], row["window"], row["rulesOffCount"]]).sort()).toEqual([
      [SWE_AGENT, "default", 8000, rulesTunedOn(SWE_AGENT).length],
      ["unseen.jsonl", "default", 8000, 0],
    ].sort())
    const swe = json.folds.folds.find((row) => row["trace"] === SWE_AGENT)
    const unseen = json.folds.folds.find((row) => row["trace"] === "unseen.jsonl")
    expect(swe?.["rulesOff"]).toEqual(rulesTunedOn(SWE_AGENT))
    expect(rulesTunedOn(SWE_AGENT)).toContain("commit-hash")
    expect(unseen?.["survivalFold"]).toBe(unseen?.["survivalAllRules"])
    expect(json.folds.pooled).toHaveLength(1)
    expect(json.folds.pooled[0]?.["probesChecked"]).toBe((swe?.["probesChecked"] as number) + (unseen?.["probesChecked"] as number))
    expect(json.folds.pooled[0]?.["survivedFold"]).toBe((swe?.["survivedFold"] as number) + (unseen?.["survivedFold"] as number))

    const text = await lab(["--probes", probeFile, "--window", "8000", "--policies", "flat", "--folds"])
    expect(text.code).toBe(0)
    const out = text.io.stdoutText()
    expect(out).toMatch(/\ntranscript +rules off +policy +window +all rules +fold +all − fold\n/)
    expect(out).toMatch(/\nsweagent-gpt4-pydicom-1458\.traj +\d+ +flat +8000 /)
    expect(out).toMatch(/\nunseen\.jsonl +0 +default +8000 /)
    expect(out).toMatch(/\npooled +- +flat +8000 /)
    expect(out).toContain(`switched off for sweagent-gpt4-pydicom-1458.traj: ${rulesTunedOn(SWE_AGENT).length} (${rulesTunedOn(SWE_AGENT).join(", ")})`)
    expect(out).toContain("switched off for unseen.jsonl: none")
  }, 60_000)

  it("rejects an unknown --without name with exit 2 and the list of valid names", async () => {
    const { code, io } = await lab(["--probes", probeFile, "--window", "8000", "--without", "commit-hash,tool:bash"])
    expect(code).toBe(2)
    expect(io.stderrText()).toContain(`--without: unknown "tool:bash"; expected names from ${LAB_RULE_NAMES.join(", ")}`)
    expect(io.stdoutText()).toBe("")
  })

  it.each([
    [["--probes", "p.json", "--window", "8000", "--without", "commit-hash", "--folds"], "--without and --folds are separate experiments"],
    [["--probes", "p.json", "--window", "8000", "--policies", "flat", "--iso-tokens"], "--iso-tokens compares the default with"],
    [["--window", WINDOWS], "lab needs --probes FILE"],
    [["--probes", "p.json"], "lab needs --window N[,N...]"],
    [["--probes", "p.json", "--window", "500"], '--window takes an integer at least 1000, got "500"'],
    [["--probes", "p.json", "--window", "8000,abc"], '--window takes an integer at least 1000, got "abc"'],
    [["--probes", "p.json", "--window", "8000", "--policies", "default,greedy"], '--policies: unknown "greedy"'],
  ])("rejects a wrong command line %j with exit 2", async (args, message) => {
    const { code, io } = await lab(args)
    expect(code).toBe(2)
    expect(io.stderrText()).toContain(message)
  })

  it("reports a malformed probe file by name, probe and field, with exit 1", async () => {
    writeFileSync(probeFile, JSON.stringify([{ id: "x", trace: SWE_AGENT, kind: "gossip", t: 1, need: 3, exact: "a" }]))
    const { code, io } = await lab(["--probes", probeFile, "--window", "8000"])
    expect(code).toBe(1)
    expect(io.stderrText()).toContain(`${probeFile}: probe #0 (id "x"): kind: expected one of constraint,`)
    expect(io.stdoutText()).toBe("")
  })

  it("evaluates what it can and exits 1 when a probe is invalid", async () => {
    const probes = JSON.parse(readFileSync(probeFile, "utf8")) as Record<string, unknown>[]
    probes.push({ id: "nowhere", trace: SWE_AGENT, kind: "identifier", t: 2, need: 20, exact: "a string no record holds" })
    writeFileSync(probeFile, JSON.stringify(probes))
    const { code, io } = await lab(["--probes", probeFile, "--window", "8000", "--policies", "default"])
    expect(code).toBe(1)
    expect(io.stdoutText()).toContain("invalid probe nowhere:")
  }, 60_000)
})

describe("magic-context lab tiers (Experiment 1)", () => {
  it("measures every tier per strategy; the oracle keeps every probe and has the best survival per token", async () => {
    const { code, io } = await lab(["tiers", "--probes", probeFile, "--window", "8000", "--json"])
    expect(code).toBe(0)
    const json = JSON.parse(io.stdoutText()) as { compartments: number; tiers: Record<string, unknown>[] }
    expect(json.compartments).toBeGreaterThan(0)
    const rows = json.tiers.map((row) => `${row["strategy"]}/${row["tier"]}`)
    expect(rows).toEqual([
      "canonical-record/full",
      "canonical-record/dense",
      "canonical-record/compact",
      "canonical-record/anchor",
      "cascaded/full",
      "cascaded/dense",
      "cascaded/compact",
      "cascaded/anchor",
      "oracle/oracle",
    ])
    const oracle = json.tiers.at(-1) as Record<string, number>
    expect(oracle["survival"]).toBe(1)
    for (const row of json.tiers.slice(0, -1)) {
      expect(row["survivalPer1kTokens"] as number).toBeLessThan(oracle["survivalPer1kTokens"] as number)
    }
    // Every tier is measured on every compartment (a tier not generated counts as the one below it).
    for (const row of json.tiers) expect(row["compartments"]).toBe(json.compartments)
    const canonicalFull = json.tiers[0] as Record<string, number>
    const canonicalAnchor = json.tiers[3] as Record<string, number>
    expect(canonicalFull["survival"] as number).toBeGreaterThanOrEqual(canonicalAnchor["survival"] as number)
  }, 60_000)

  it("reports a transcript it cannot read and exits 1", async () => {
    const missing = join(home.root, "absent.jsonl")
    writeFileSync(probeFile, JSON.stringify([{ id: "x", trace: missing, kind: "identifier", t: 1, need: 3, exact: "a" }]))
    const { code, io } = await lab(["tiers", "--probes", probeFile, "--json"])
    expect(code).toBe(1)
    expect(io.stderrText()).toContain(`${missing}: trace: `)
    expect(JSON.parse(io.stdoutText())).toMatchObject({ transcripts: 0, compartments: 0 })
  })

  it("needs --probes", async () => {
    const { code, io } = await lab(["tiers"])
    expect(code).toBe(2)
    expect(io.stderrText()).toContain("lab tiers needs --probes FILE")
  })
})

describe("magic-context lab traces (ecology)", () => {
  it("answers the seed's questions per transcript", async () => {
    const { code, io } = await lab(["traces", SWE_AGENT, "--window", "8000", "--json"])
    expect(code).toBe(0)
    const json = JSON.parse(io.stdoutText()) as { traces: Record<string, unknown>[] }
    const [trace] = json.traces
    expect(trace).toMatchObject({ format: "swe-agent", records: 25, modelCalls: 12 })
    const old = trace?.["oldContext"] as Record<string, number>
    expect(old["finalShare"]).toBeGreaterThan(0)
    expect(old["finalShare"]).toBeLessThan(1)
    const policies = (trace?.["policies"] as { policy: string; savedShare: number }[]).map((entry) => entry.policy)
    expect(policies).toEqual(["default", "age-only", "flat", "truncation"])
    const text = await lab(["traces", SWE_AGENT, "--window", "8000"])
    expect(text.io.stdoutText()).toContain("Old context (unreduced prompt outside the fixed prompt and the protected window):")
    expect(text.io.stdoutText()).toContain("What each policy would save against the unreduced session")
  }, 60_000)

  it("reports an unreadable transcript and exits 1", async () => {
    const missing = join(home.root, "missing.jsonl")
    const { code, io } = await lab(["traces", missing])
    expect(code).toBe(1)
    expect(io.stderrText()).toContain("missing.jsonl")
    expect(existsSync(missing)).toBe(false)
  })
})
