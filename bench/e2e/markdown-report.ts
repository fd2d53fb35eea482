import { BENCH_PRICE_LISTS, type BenchPriceList } from "./bench-price-lists.js"
import type { ConfigurationResult } from "./configuration-result.js"
import { costTable } from "./cost-table.js"
import { openCodeCostRows } from "./open-code-cost-rows.js"
import type { ScenarioFacts } from "./scenarios.js"

/** Where and how the benchmark ran, for the report's header. */
export type BenchEnvironment = {
  date: string
  cores: number
  node: string
  opencode: string
  /** The commit dist/ was built from, and whether src/ had uncommitted changes then. */
  source: string
  tokenCounting: string
}

/** One scenario's configurations. */
export type ScenarioReport = { scenario: ScenarioFacts; results: ConfigurationResult[] }

/**
 * The Markdown report: a header, then per scenario a table with a column per configuration, the token series and
 * the notes, then the definitions.
 */
export function markdownReport(options: {
  environment: BenchEnvironment
  scenarios: readonly ScenarioReport[]
}): string {
  const { environment } = options
  const lines = [
    `Measured ${environment.date} on a ${environment.cores}-core machine (Node ${environment.node}, OpenCode ` +
      `${environment.opencode}, magic-context built from ${environment.source}). Prompt tokens: ` +
      `${environment.tokenCounting}.`,
    "",
    "### Whole-session prompt cost under each price list",
    "",
    "Each magic-context run names its price list for the mock model in magic-context.jsonc, so the engine decides " +
      "under the list its row is priced with; OpenCode alone does not depend on the list and is priced under each. " +
      "Cost in uncached input tokens, side requests (title, compaction) included; saving against OpenCode alone.",
    "",
    ...costTable({ host: "OpenCode", rows: openCodeCostRows(options.scenarios) }),
    ...options.scenarios.flatMap(scenarioSection),
    "",
    ...DEFINITIONS,
  ]
  return `${lines.join("\n")}\n`
}

function scenarioSection({ scenario, results }: ScenarioReport): string[] {
  const rounds =
    scenario.rounds === 1
      ? ""
      : ` (the script's ${scenario.scriptedTurns / scenario.rounds} turns ${scenario.rounds} times in one session, ` +
        "the second round's edits on other helpers and files)"
  const titleWidth = Math.max(0, ...results.map((result) => result.title.length)) + 2
  return [
    "",
    `### ${scenario.title}`,
    "",
    `Mock model window ${thousands(scenario.contextLimit)} tokens, output ${thousands(scenario.outputLimit)}, usable ` +
      `${thousands(scenario.usableWindow)}; ${scenario.scriptedTurns} user turns, ${scenario.scriptedSteps} scripted ` +
      `model calls${rounds}.`,
    "",
    table(results, scenario),
    "",
    "Prompt tokens per main model call, in thousands, in order (`|` before a call that broke the prefix):",
    "",
    "```",
    ...results.map((result) => `${result.title.padEnd(titleWidth)}${tokenSeries(result)}`),
    "```",
    "",
    ...notes(results),
  ]
}

/** What the rows mean; printed under every report so the numbers carry their definitions. */
const DEFINITIONS = [
  "Main calls are the session's own steps; title, compaction and historian requests are answered on the side, " +
    "counted and priced but left out of the other rows. A request's elements are its serialized tool definitions " +
    "followed by each serialized message, in order. A main call breaks the prefix when the previous main call's " +
    "elements are not, element by element and byte for byte, the start of its own. Its cache-reusable share is the " +
    "UTF-8 bytes of its leading elements equal to the previous main call's, over all its bytes (the first call has " +
    "none and is left out). Tokens after the reusable prefix are the tokens of the remaining elements. The shared " +
    "byte prefix adds the start of the first differing element that equals the previous call's element there (its " +
    "text counted on its own, so a token or two off at the cut). Wall time is `opencode run` per user turn, " +
    "start-up included; per model call it is the session's total over its main calls.",
  "",
  "Prompt cost is in uncached input tokens (src/pressure/cost-model.ts), the cache always warm. OpenAI caches the " +
    "longest shared byte prefix, so the openai list prices the shared byte prefix at 0.1 and the rest at 1 (its " +
    "128-token cache steps are left out: at most 127 tokens per call). Anthropic caches at content-block boundaries " +
    "(one message here is one block), so anthropic-5m and anthropic-1h price the matching whole messages at 0.1 and " +
    "the rest as a cache write at 1.25 and 2. A magic-context run is priced under every list, but decides under the " +
    "one its config names: compare rows with the same list. Side requests (title, OpenCode's compaction, the historian) are model calls the user pays for too: " +
    "each is priced the same way against the main call just before it, and the whole-session cost is main plus side.",
  "",
  "The mock gives every configuration the same scripted replies and never calls a plugin's own tools (DCP's " +
    "`compress`, magic-context's `ctx_reduce`) on its own, so what each plugin does by itself shows: magic-context's " +
    "execute passes, DCP's automatic strategies and nudges, OpenCode's compaction. The cooperative magic-context " +
    "column is the one exception: when the newest request holds a magic-context reminder (a `<system-reminder>" +
    "magic-context: …` block on a tool result or a steer message) with no ctx_reduce call after it, the mock calls " +
    "ctx_reduce dropping every tagged tool output but the newest few, and goes on with the same script: by default " +
    "in the same response as its next scripted tool call, as the guidance asks (BENCH_REDUCE=alone: as a response " +
    "of its own first). A reminder is seen when its text first appears in a main request.",
]

function table(results: readonly ConfigurationResult[], scenario: ScenarioFacts): string {
  const alone = results.find((result) => result.id === "opencode")?.metrics ?? null
  const rows: [string, (result: ConfigurationResult) => string][] = [
    ["Plugin loaded", (result) => (result.pluginLoaded === null ? "(none)" : result.pluginLoaded ? "yes" : "**no**")],
    [
      `Session finished (${scenario.scriptedTurns} turns exit 0, all ${scenario.scriptedSteps} steps)`,
      (result) => (result.finished ? "yes" : "**no**"),
    ],
    ["Main model calls", (result) => String(result.requestCounts.main)],
    [
      "Prompt tokens per call, mean / max",
      (result) => metric(result, (m) => `${k(m.promptTokensMean)} / ${k(m.promptTokensMax)}`),
    ],
    ["Prompt tokens, all calls", (result) => metric(result, (m) => k(m.promptTokensTotal))],
    [
      "Tokens after the reusable prefix (whole messages), all calls",
      (result) => metric(result, (m) => k(m.tokensAfterPrefixTotal)),
    ],
    [
      "Tokens after the shared byte prefix, all calls",
      (result) => metric(result, (m) => k(m.tokensAfterBytePrefixTotal)),
    ],
    ["Price list named in magic-context's config", (result) => result.priceList ?? "–"],
    ...BENCH_PRICE_LISTS.map((list) => costRow(list, alone)),
    [
      `Prompt cost of side requests, ${BENCH_PRICE_LISTS.join(" / ")}`,
      (result) => metric(result, (m) => BENCH_PRICE_LISTS.map((list) => k(m.sideCost[list])).join(" / ")),
    ],
    [
      "Cache-reusable share per call, mean / min",
      (result) => metric(result, (m) => `${percent(m.prefixShareMean)} / ${percent(m.prefixShareMin)}`),
    ],
    [
      "Prefix breaks (of them right after an OpenCode compaction)",
      (result) => metric(result, (m) => `${m.prefixBreaks} (${result.breaksAfterCompaction})`),
    ],
    [
      "Main calls per prefix break",
      (result) =>
        metric(result, (m) => (m.prefixBreaks === 0 ? "no break" : (m.mainRequests / m.prefixBreaks).toFixed(1))),
    ],
    [
      `Calls over the usable window (${k(scenario.usableWindow)}) / the context (${k(scenario.contextLimit)})`,
      (result) => metric(result, (m) => `${m.overUsableWindow} / ${m.overContextWindow}`),
    ],
    ["Edits and writes that failed", (result) => `${result.edits.failed} of ${result.edits.calls}`],
    [
      "magic-context reminders seen / answered with ctx_reduce",
      (result) => `${result.reminders.seen} / ${result.reminders.answered}`,
    ],
    ["OpenCode compaction requests", (result) => String(result.requestCounts.compaction)],
    [
      "Side requests: title / historian / other",
      (result) => `${result.requestCounts.title} / ${result.requestCounts.historian} / ${result.requestCounts.other}`,
    ],
    ["Prompt tokens of all side requests (compaction included)", (result) => k(result.sideRequestTokens)],
    ["Wall time per user turn, mean", (result) => seconds(result.wallTime.perTurnMeanMs)],
    ["Wall time per main model call", (result) => seconds(result.wallTime.perModelCallMs)],
    ["Wall time, whole session", (result) => seconds(result.wallTime.totalMs)],
  ]
  const header = `| | ${results.map((result) => result.title).join(" | ")} |`
  const rule = `|---|${results.map(() => "---:").join("|")}|`
  const body = rows.map(([label, cell]) => `| ${label} | ${results.map(cell).join(" | ")} |`)
  return [header, rule, ...body].join("\n")
}

/** The whole-session cost under `list`, and its change against OpenCode alone under the same list. */
function costRow(
  list: BenchPriceList,
  alone: ConfigurationResult["metrics"],
): [string, (result: ConfigurationResult) => string] {
  return [
    `Whole-session prompt cost under ${list} (against OpenCode alone)`,
    (result) =>
      metric(result, (m) => {
        const against = alone === null || result.id === "opencode" ? "" : ` (${change(m.sessionCost[list], alone.sessionCost[list])})`
        return `${k(m.sessionCost[list])}${against}`
      }),
  ]
}

function notes(results: readonly ConfigurationResult[]): string[] {
  const lines: string[] = []
  for (const result of results) {
    lines.push(`- **${result.title}**: ${result.settings}.`)
    if (result.unavailable) lines.push(`  Not run: ${result.unavailable}.`)
    else if (result.pluginLoaded === false) lines.push(`  The plugin did not load: ${result.pluginProblem}.`)
    if (!result.unavailable && !result.finished) lines.push(`  Unfinished: ${unfinishedReason(result)}.`)
    const extras = result.extraRequests
    if (extras.total > 0) {
      lines.push(
        `  ${extras.total} main ${extras.total === 1 ? "call" : "calls"} beyond the script, answered with the turn's ` +
          `final text again (${extras.afterCompaction} answering OpenCode's synthetic "Continue if you have next ` +
          'steps" message after a compaction).',
      )
    }
    if (result.passes) {
      const passes = result.passes
      lines.push(
        `  Its store records ${passes.transformPasses} transform passes, ${passes.executePasses} of them ` +
          `${passes.executePasses === 1 ? "an execute pass" : "execute passes"}; ${passes.breaksOnExecute} prefix ` +
          `${passes.breaksOnExecute === 1 ? "break falls" : "breaks fall"} on an execute pass and ` +
          `${passes.breaksOnReplay} on a replay.`,
      )
    }
    for (const call of result.reduceCalls) {
      lines.push(`  ctx_reduce at request #${call.n}, drop="${call.drop}": ${reduceAnswer(call.answer)}`)
    }
    if (result.metrics && result.metrics.prefixBreakAt.length > 0) {
      lines.push(`  Prefix breaks at requests ${result.metrics.prefixBreakAt.map((n) => `#${n}`).join(", ")}.`)
    }
  }
  return lines
}

function unfinishedReason(result: ConfigurationResult): string {
  const failed = result.turns.findIndex(
    (turn) => turn.exitCode !== 0 || !turn.finalTextShown || turn.mainRequests < turn.scriptedSteps,
  )
  const turn = result.turns[failed]
  if (!turn) return `only ${result.turns.length} turns ran`
  return (
    `turn ${failed + 1} exited ${turn.exitCode}, made ${turn.mainRequests} of ${turn.scriptedSteps} scripted ` +
    `calls, final text ${turn.finalTextShown ? "shown" : "not shown"}`
  )
}

/** magic-context's answer on one line, cut short (a long one lists many tags). */
function reduceAnswer(answer: string | null): string {
  if (answer === null) return "no answer reached the model"
  const line = answer.replace(/\s+/g, " ").trim()
  return line.length <= 240 ? line : `${line.slice(0, 239)}…`
}

function tokenSeries(result: ConfigurationResult): string {
  if (!result.metrics) return "(not run)"
  return result.metrics.rows
    .map((row) => `${row.prefixBreak ? "|" : ""}${(row.promptTokens / 1000).toFixed(1)}`)
    .join(" ")
}

function metric(
  result: ConfigurationResult,
  format: (metrics: NonNullable<ConfigurationResult["metrics"]>) => string,
): string {
  return result.metrics ? format(result.metrics) : "–"
}

function k(value: number): string {
  return thousands(Math.round(value))
}

function thousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
}

/** The relative change from `base` to `value`, signed: "-4.2%". */
function change(value: number, base: number): string {
  if (base === 0) return "–"
  const relative = (value / base - 1) * 100
  return `${relative > 0 ? "+" : ""}${relative.toFixed(1)}%`
}

function percent(value: number | null): string {
  return value === null ? "–" : `${(value * 100).toFixed(1)}%`
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`
}
