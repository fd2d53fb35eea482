import type { ShownEpisode, ShownPart, ShownPrompt } from "./show-prompt.js"
import { EMERGENCY_PERCENT, forceBandStart } from "../pressure/bands.js"
import type { WindowSettings } from "../pressure/model-window.js"
import { escapeHtml } from "./html-escape.js"
import { lineChart } from "./line-chart.js"
import { TIER_COLORS, tierTimelineChart } from "./tier-timeline-chart.js"

/** What the report shows of every model call. */
export type ReportCall = {
  turn: number
  pass: "execute" | "replay"
  band: string
  /** Prompt tokens sent. */
  tokens: number
  usageBefore: number
  /** Each folded episode's tier at this call (display id -> tier). */
  tiers: Readonly<Record<string, string>>
}

export type HtmlReportInput = {
  source: string
  format: string
  window: WindowSettings
  calls: readonly ReportCall[]
  /** The prompts the report lets the reader pick from (execute passes, and the call asked for), oldest first. */
  prompts: readonly ShownPrompt[]
  /** The turn of the prompt shown first. */
  selected: number
}

/**
 * The replay as one static HTML page: prompt tokens per call against the window and its thresholds, each episode's
 * tier over the calls (both SVG, rendered here and inlined), and the prompt at each execute pass, picked from a list,
 * with every episode and every dropped item expandable to its raw record. No external resource: the style and the
 * few lines of script (pass picker, filling a raw record in when it is opened) are inline; without script every pass
 * is listed. Raw records are written once each (in `<template>`s) however many passes show them. Every text from
 * the transcript is escaped. Deterministic: the same input gives the same bytes (no clock, Vega's ids reset per chart).
 */
export async function htmlReport(input: HtmlReportInput): Promise<string> {
  const { window, calls } = input
  const threshold = (window.usableTokens * window.thresholdPercent) / 100
  const force = (window.usableTokens * forceBandStart(window.thresholdPercent)) / 100
  // One chart at a time: Vega's SVG ids are process-wide (renderChart).
  const usage = await lineChart({
    title: "Prompt tokens per model call",
    series: [{ name: "prompt tokens", points: calls.map((call) => ({ x: call.turn, y: call.tokens })) }],
    referenceLines: [
      { y: window.usableTokens, label: `usable window ${grouped(window.usableTokens)}` },
      { y: force, label: `force band ${forceBandStart(window.thresholdPercent)}%` },
      { y: threshold, label: `execute threshold ${window.thresholdPercent}%` },
    ],
    xLabel: "transcript turn of the model call",
    yLabel: "tokens",
    width: 1000,
    height: 320,
  })
  const timeline = calls.some((call) => Object.keys(call.tiers).length > 0)
    ? await tierTimelineChart({ title: "Each episode's tier over the calls", calls: calls.map((call) => ({ x: call.turn, tiers: call.tiers })), xLabel: "transcript turn of the model call", width: 1000 })
    : null
  const raws = new Map<string, string>()
  const articles = input.prompts.map((prompt) => promptArticle(prompt, raws, prompt.turn === input.selected))
  const executes = calls.filter((call) => call.pass === "execute").length
  const peak = Math.max(0, ...calls.map((call) => call.usageBefore))
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>magic-context: ${escapeHtml(input.source)}</title>`,
    `<style>${STYLE}</style>`,
    "</head>",
    "<body>",
    "<header>",
    "<h1>What magic-context kept</h1>",
    `<p class="meta">${escapeHtml(input.source)} (${escapeHtml(input.format)}): ${calls.length} model calls, ${executes} execute passes; ` +
      `usable window ${grouped(window.usableTokens)} tokens (${escapeHtml(window.source)}), execute threshold ${window.thresholdPercent}%, ` +
      `force band from ${forceBandStart(window.thresholdPercent)}%, emergency from ${EMERGENCY_PERCENT}%; peak usage before a pass ${peak.toFixed(1)}%</p>`,
    "</header>",
    '<section id="usage">',
    `<figure class="chart">${usage}</figure>`,
    "</section>",
    '<section id="tiers">',
    timeline === null
      ? "<p>No episode was folded into history: every prompt went out as the host built it, tags added.</p>"
      : `<figure class="chart">${timeline}</figure>`,
    "</section>",
    '<section id="prompts">',
    "<h2>The prompt at a pass</h2>",
    `<p><label for="pass">Pass: </label><select id="pass">${input.prompts.map((prompt) => passOption(prompt, input.selected)).join("")}</select>` +
      " Open an episode for the text the model read at its tier, and in it the raw record it condenses.</p>",
    ...articles,
    "</section>",
    ...[...raws.entries()].map(([id, text]) => `<template id="${escapeHtml(id)}"><pre>${escapeHtml(text)}</pre></template>`),
    `<script>${SCRIPT}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n")
}

function passOption(prompt: ShownPrompt, selected: number): string {
  const chosen = prompt.turn === selected ? " selected" : ""
  return `<option value="${prompt.turn}"${chosen}>turn ${prompt.turn}: ${prompt.pass} (${escapeHtml(prompt.reason)}), ${grouped(prompt.tokens.total)} tokens</option>`
}

function promptArticle(prompt: ShownPrompt, raws: Map<string, string>, selected: boolean): string {
  const { tokens, history } = prompt
  const lines = [
    `<article class="prompt" id="turn-${prompt.turn}" data-turn="${prompt.turn}"${selected ? " data-selected" : ""}>`,
    `<h3>Turn ${prompt.turn}: ${prompt.pass} pass (${escapeHtml(prompt.reason)}), band ${escapeHtml(prompt.band)}, usage before ${prompt.usageBefore.toFixed(1)}%</h3>`,
    `<p class="meta">${grouped(tokens.total)} tokens: fixed ${grouped(tokens.fixed)}, history ${grouped(tokens.history)}, conversation ` +
      `${grouped(tokens.conversation)}, protected ${grouped(tokens.protected)}, tool ${grouped(tokens.tool)}</p>`,
  ]
  if (history === null) lines.push("<p>No history folded yet.</p>")
  else {
    lines.push(`<h4>History: ${history.episodes.length} episodes${history.omittedIds.length > 0 ? `, ${history.omittedIds.length} omitted` : ""}</h4>`)
    if (history.omitted) lines.push(`<p class="omitted">${escapeHtml(history.omitted)}</p>`)
    for (const episode of history.episodes) lines.push(episodeBlock(episode, raws))
    lines.push(`<h4>Pinned ledger</h4>`, history.ledger.length > 0 ? `<pre class="ledger">${escapeHtml(history.ledger.join("\n"))}</pre>` : "<p>Empty.</p>")
    if (history.recalled.length > 0) lines.push(`<h4>Recalled by reference</h4>`, `<pre class="recalled">${escapeHtml(history.recalled.join("\n"))}</pre>`)
    lines.push(`<h4>Working set</h4>`, `<pre class="working">${escapeHtml(history.workingSet.join("\n"))}</pre>`)
  }
  const dropped = prompt.conversation.flatMap((message) => message.parts).filter((part) => part.dropped !== null).length
  lines.push(`<h4>Conversation: ${prompt.conversation.length} messages, ${dropped} dropped</h4>`)
  for (const message of prompt.conversation) {
    lines.push(`<div class="message ${message.role === "user" ? "user" : "assistant"}"><span class="role">${escapeHtml(message.role)}</span>`)
    for (const part of message.parts) lines.push(partBlock(part, raws))
    lines.push("</div>")
  }
  lines.push("</article>")
  return lines.join("\n")
}

function episodeBlock(episode: ShownEpisode, raws: Map<string, string>): string {
  const rawId = `raw-${episode.id}`
  if (episode.raw !== null) raws.set(rawId, episode.raw)
  const [, ...body] = episode.text.split("\n")
  // The first line that says something (not a section label such as "Decisions:"), cut to one line.
  const said = body.find((line) => line.trim() !== "" && !/^[A-Z][\w ]*:$/.test(line.trim())) ?? ""
  const gist = said.length > GIST_CHARS ? `${said.slice(0, GIST_CHARS)}…` : said
  return [
    `<details class="episode" data-episode="${escapeHtml(episode.id)}">`,
    `<summary><span class="tier tier-${episode.tier}">${episode.tier.toUpperCase()}</span> <b>${escapeHtml(episode.id)}</b> ` +
      `${escapeHtml(episode.tags)} <span class="gist">${escapeHtml(gist)}</span></summary>`,
    body.length > 0 ? `<pre>${escapeHtml(body.join("\n"))}</pre>` : "",
    episode.raw === null
      ? '<p class="missing">The store has no raw record of this episode.</p>'
      : `<details class="raw-record"><summary>raw record (${episode.raw.split("\n").length} lines)</summary><div class="raw" data-raw="${escapeHtml(rawId)}"></div></details>`,
    "</details>",
  ].join("\n")
}

function partBlock(part: ShownPart, raws: Map<string, string>): string {
  const kind = part.kind === "text" ? "" : `<span class="kind">${escapeHtml(part.kind)}</span> `
  if (part.dropped === null) return `<pre class="part">${kind}${escapeHtml(part.text.trimEnd())}</pre>`
  const rawId = `raw-tag-${part.dropped.tag}`
  if (part.dropped.raw !== null) raws.set(rawId, part.dropped.raw)
  return [
    `<pre class="part dropped">${kind}${escapeHtml(part.text)}</pre>`,
    part.dropped.raw === null
      ? `<p class="missing">The store has no raw record of §${part.dropped.tag}§.</p>`
      : `<details class="dropped-raw"><summary>what §${part.dropped.tag}§ said (${part.dropped.raw.split("\n").length} lines)</summary><div class="raw" data-raw="${escapeHtml(rawId)}"></div></details>`,
  ].join("\n")
}

/** An episode's summary line shows this much of its first line. */
const GIST_CHARS = 110

function grouped(value: number): string {
  return Math.round(value).toLocaleString("en-US")
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#222;background:#fff;margin:0 auto;max-width:1180px;padding:16px 24px}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:24px 0 8px}h3{font-size:16px;margin:16px 0 4px}h4{font-size:14px;margin:16px 0 6px}
.meta{color:#555}figure.chart{margin:8px 0}figure.chart svg{max-width:100%;height:auto}
pre{white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin:4px 0;background:#f6f8fa;padding:6px 8px;border-radius:4px}
details.episode{border-left:4px solid #ddd;padding:2px 0 2px 10px;margin:6px 0}details.episode>summary{color:#222}
.gist{color:#666;font-size:12px;margin-left:6px}
.tier{display:inline-block;min-width:72px;text-align:center;font-size:11px;font-weight:bold;color:#fff;border-radius:3px;padding:1px 6px}
${Object.entries(TIER_COLORS).map(([tier, color]) => `.tier-${tier}{background:${color}}`).join("")}
.message{border:1px solid #e3e3e3;border-radius:6px;padding:6px 10px;margin:8px 0}.message.user{background:#fbfbf4}
.role{font-size:11px;font-weight:bold;text-transform:uppercase;color:#666}.kind{color:#0072B2;font-weight:bold}
pre.dropped{background:#fff1e6}.missing{color:#a33}details{margin:4px 0}summary{cursor:pointer;color:#0b5cad}
select{font:inherit;max-width:100%}
`

const SCRIPT = `
(function () {
  var select = document.getElementById("pass");
  function show() {
    var articles = document.querySelectorAll("article.prompt");
    for (var i = 0; i < articles.length; i++) articles[i].hidden = articles[i].getAttribute("data-turn") !== select.value;
  }
  select.addEventListener("change", show);
  show();
  function fill(details) {
    var slot = details.querySelector(":scope > .raw[data-raw]");
    if (!slot || slot.firstChild) return;
    var template = document.getElementById(slot.getAttribute("data-raw"));
    if (template) slot.appendChild(template.content.cloneNode(true));
  }
  document.addEventListener("toggle", function (event) {
    if (event.target.tagName === "DETAILS" && event.target.open) fill(event.target);
  }, true);
})();
`
