/**
 * The canonical record: one pass over an episode's parts that collects every fact the tiers render.
 * Over 300 lines: the readers of each kind of part (user text, attachments, assistant text and its code blocks, tool
 * calls) share one collector and one state; splitting them apart is open work (docs/ARCHITECTURE.md, known limits).
 */
import { toolPath } from "../session/host-tools.js"
import { ALL_RECOGNIZERS, type Recognizers } from "../session/recognizers.js"
import type { HostMessage, HostPart } from "../transcript/host-message.js"
import { extractIdentifiers, isPathLike, MAX_IDENTIFIER_CHARS } from "./extract-identifiers.js"
import { extractLocations, formatLocation } from "./extract-locations.js"
import { isHarnessNotice, isTrivialUserText, stripFencedCode } from "./extract-patterns.js"
import { createFactCollector, type FactCollector, type SourceRef } from "./fact-collector.js"
import type { Fact, SourceRefs } from "./fidelity-types.js"
import { outputOf, readToolCall, type ToolCallReading } from "./read-tool-call.js"
import { programOf } from "./shell-commands.js"
import { recordEntities } from "./record-entities.js"
import { outcomeOf, type EpisodeEvent } from "./record-outcome.js"
import { settingLines, settingReading, SPEC_PREFIX } from "./output-facts.js"
import { codeBlocks } from "./code-blocks.js"
import { renderFullEpisode } from "./episode-full.js"
import { documentConstraints, ruleReading } from "./document-rules.js"
import { keptOutputLines } from "./output-lines.js"
import { rankByEcho } from "./echoed-lines.js"
import { reasoningPlans, REASONING_MARK } from "./reasoning-plans.js"
import { reasoningDesigns, workOf, type CallText } from "./reasoning-design.js"
import { sentenceFacts, type SentenceSource } from "./sentence-facts.js"
import { resolveLocations } from "./resolve-locations.js"
import { MAX_DIRECTIVE_CHARS, quote, userTextFacts } from "./user-text-facts.js"

/**
 * The deterministic historian's structured record of one compartment (an episode), extracted from the raw messages
 * with no model. The tier views are rendered from it (render-tiers.ts), each directly from the record.
 */
export type CanonicalRecord = {
  compartmentId: string
  /** Tags and message ids the episode covers (first..last tag present). */
  source: SourceRefs & { firstTag: number | null; lastTag: number | null }
  /** What the user asked for in this episode, in their words (the first authored user text, trimmed to ~300 chars). */
  objective: string | null
  /** Every extracted fact with kind, exact text, retention, floor and source refs. */
  facts: Fact[]
  /** Tool calls as one-liners: tool name + key argument (path, command, pattern), status ok/error, tag. */
  toolCalls: { tool: string; summary: string; status: "ok" | "error"; tag: number | null }[]
  /** Assistant narrative sentences not classified as anything else (FULL only). */
  narrative: string[]
  /** The episode's outcome: the last assistant text's first sentence(s), or the last error if it ended failing. */
  outcome: string | null
  /** Canonical entity names for the anchor: files touched (basename or short path), components, top commands. */
  entities: string[]
  /** FULL's body: the episode as the model saw it (episode-full.ts); null for a record read back from tier text. */
  full: string | null
  /** DENSE's facts of tool output: per call, the lines kept of its output and of what it wrote (output-lines.ts). */
  toolResults: ToolResult[]
  /** DENSE's lines of the documents the user attached (OpenCode's synthetic text parts). */
  attachments: { tag: number | null; name: string; lines: string[] }[]
  /** DENSE's code blocks of the assistant's text (a plan's schema), bounded. */
  codeBlocks: { tag: number | null; text: string }[]
  /**
   * COMPACT's key lines of tool output (a subset of the tool results' lines, none a fact already quotes), at most
   * MAX_EPISODE_KEY_LINES: those the agent's text takes up again first (`echoed-key-lines`).
   */
  keyLines: string[]
}

/** One tool call as DENSE shows it: its one-liner, what it kept of the output, and each file it wrote. */
export type ToolResult = {
  tag: number | null
  summary: string
  status: "ok" | "error"
  lines: string[]
  added: { path: string; lines: string[] }[]
}

/** How much of the first user text becomes the objective. */
export const OBJECTIVE_CHARS = 300

/** An edit contributes at most this many of the code identifiers it introduced. */
const MAX_EDIT_IDENTIFIERS = 12

/** A long paste is scanned for identifiers only this far. */
const MAX_SCANNED_USER_CHARS = 4000

/** COMPACT keeps at most this many key lines of an episode's tool output. */
const MAX_EPISODE_KEY_LINES = 4

/** DENSE keeps at most this many code blocks of an episode's assistant text. */
const MAX_CODE_BLOCKS = 3

/** An attached document contributes at most this many rule lines to the pinned ledger. */
const MAX_ATTACHED_RULES = 12

/**
 * Extracts the canonical record of one compartment from its host messages. `tagOf` maps a part id to its `§N§` tag
 * (null for parts without one; they take the tag of their message). Pure and deterministic.
 */
export function extractCanonicalRecord(options: {
  compartmentId: string
  messages: readonly HostMessage[]
  tagOf: (partId: string) => number | null
  /** The named rules in use (the Lab switches some off); all by default. */
  recognizers?: Recognizers
  /** Parts whose tag was dropped before the cut: FULL shows their marker. */
  droppedOf?: (partId: string) => boolean
}): CanonicalRecord {
  const state = createState(options.recognizers ?? ALL_RECOGNIZERS)
  for (const message of options.messages) {
    const messageTag = firstTag(message, options.tagOf)
    for (const part of message.parts) {
      const tag = options.tagOf(part.id)
      if (tag !== null) state.tags.push(tag)
      const ref: SourceRef = { tag: tag ?? messageTag, messageId: message.info.id }
      readPart(state, { part, ref, role: message.info.role })
    }
  }
  const full = renderFullEpisode(options.messages, { tagOf: options.tagOf, ...(options.droppedOf ? { droppedOf: options.droppedOf } : {}) })
  return { ...finish(state, options), full }
}

type State = {
  recognizers: Recognizers
  collector: FactCollector
  tags: number[]
  objective: string | null
  texts: SentenceSource[]
  reasoning: SentenceSource[]
  /** Each tool call as text: what it put into the work and what it returned (`reasoning-design` reads them). */
  calls: CallText[]
  readings: ToolCallReading[]
  toolCalls: CanonicalRecord["toolCalls"]
  events: EpisodeEvent[]
  openFile: { path: string; ref: SourceRef } | null
  todos: { items: { content: string; status: string }[]; ref: SourceRef } | null
  toolResults: ToolResult[]
  keyLines: string[]
  attachments: CanonicalRecord["attachments"]
  codeBlocks: CanonicalRecord["codeBlocks"]
  /** The path of the file whose inlined content the next synthetic text part is (OpenCode's attachment). */
  attaching: string | null
}

function createState(recognizers: Recognizers): State {
  return {
    recognizers,
    collector: createFactCollector(),
    tags: [],
    objective: null,
    texts: [],
    reasoning: [],
    calls: [],
    readings: [],
    toolCalls: [],
    events: [],
    openFile: null,
    todos: null,
    toolResults: [],
    keyLines: [],
    attachments: [],
    codeBlocks: [],
    attaching: null,
  }
}

function readPart(state: State, context: { part: HostPart; ref: SourceRef; role: "user" | "assistant" }): void {
  const { part, ref, role } = context
  if (part.type === "text") {
    if (part.ignored === true || part.text.trim() === "") return
    if (part.synthetic === true) {
      if (role === "user") readAttachment(state, part.text, ref)
      return
    }
    if (role === "user") readUserText(state, part.text, ref)
    else readAssistantText(state, part.text, ref)
    return
  }
  if (part.type === "reasoning") {
    if (part.text.trim() !== "") state.reasoning.push({ text: part.text, ref, isLastText: false })
    return
  }
  if (part.type === "tool") {
    const reading = readToolCall(part, state.recognizers)
    readTool(state, reading, ref)
    if (state.recognizers.on("reasoning-design")) {
      state.calls.push({ ...workOf(part.state.input, reading), output: outputOf(part), after: state.reasoning.length })
    }
    return
  }
  if (part.type === "file") {
    const name = part.filename ?? part.mime
    if (isPathLike(name)) state.collector.add("identifier", name, [ref])
    state.collector.add("incidental", `attached ${name} (${part.mime})`, [ref])
  }
}

function readUserText(state: State, text: string, ref: SourceRef): void {
  const { on } = state.recognizers
  for (const fact of userTextFacts(text, { longRules: on("long-user-rules"), heldActions: on("held-actions"), reading: ruleReading(state.recognizers) })) state.collector.add(fact.kind, fact.text, [ref])
  const trimmed = text.trim()
  const trivial = isTrivialUserText(trimmed)
  if (!trivial) addTextIdentifiers(state.collector, text.slice(0, MAX_SCANNED_USER_CHARS), ref)
  if (isHarnessNotice(trimmed)) return
  // A long message (a plan handoff) argues like the assistant does: its decisions and rejections, with their reasons.
  if (trimmed.length > MAX_DIRECTIVE_CHARS && state.recognizers.on("long-user-decisions")) {
    for (const fact of sentenceFacts([{ text: trimmed, ref, isLastText: false }], state.recognizers).facts) {
      if (fact.kind === "decision" || fact.kind === "rejected_alternative") state.collector.add(fact.kind, fact.text, fact.refs)
    }
  }
  state.objective ??= quote(trimmed.replace(/\s+/g, " "), OBJECTIVE_CHARS)
  state.events.push({ type: "user", text: trimmed, trivial, ref })
}

function readAssistantText(state: State, text: string, ref: SourceRef): void {
  state.texts.push({ text, ref, isLastText: false })
  addTextIdentifiers(state.collector, text, ref)
  state.events.push({ type: "text", text })
  if (!state.recognizers.on("code-blocks")) return
  for (const block of codeBlocks(text)) {
    if (state.codeBlocks.length >= MAX_CODE_BLOCKS) break
    state.codeBlocks.push({ tag: ref.tag, text: block.text })
    if (state.recognizers.on("code-setting-lines")) {
      for (const setting of settingLines(block.body, "", settingReading(state.recognizers))) state.collector.add("identifier", setting, [ref])
    }
  }
}

/**
 * A file the user attached (`@path` in OpenCode): a synthetic "Called the Read tool …" part names it, the next
 * synthetic part is its content. Its path is an identifier; the lines that state rules and limits bind later work
 * like the user's own words (pinned as `spec:` constraints, bounded); DENSE keeps its document lines.
 */
function readAttachment(state: State, text: string, ref: SourceRef): void {
  const called = /^Called the (\w+) tool with the following input: (\{.*\})\s*$/s.exec(text.trim())
  if (called?.[1] !== undefined && called[2] !== undefined) {
    state.attaching = attachedPath(called[1], called[2])
    if (state.attaching !== null && isPathLike(state.attaching)) state.collector.add("identifier", state.attaching, [ref])
    return
  }
  const name = state.attaching ?? "attachment"
  state.attaching = null
  const lines = keptOutputLines({ keep: "document", output: text, failed: false, recognizers: state.recognizers })
  if (lines.length > 0) state.attachments.push({ tag: ref.tag, name, lines })
  const { on } = state.recognizers
  const constraints = documentConstraints(text, { lists: on("spec-lists"), ruleLimit: on("doc-rule-lines") ? MAX_ATTACHED_RULES : 0,
    hardFirst: on("hard-rules-first"),
    reading: ruleReading(state.recognizers),
  })
  for (const constraint of constraints) state.collector.add("constraint", `${SPEC_PREFIX}${constraint}`, [ref])
}

function attachedPath(tool: string, json: string): string | null {
  try {
    return toolPath(tool, JSON.parse(json) as Record<string, unknown>)
  } catch {
    return null
  }
}

function addTextIdentifiers(collector: FactCollector, text: string, ref: SourceRef): void {
  const prose = stripFencedCode(text)
  for (const identifier of extractIdentifiers(prose, "prose")) collector.add("identifier", identifier, [ref])
  for (const location of extractLocations(prose)) collector.add("location", location.text, [ref])
}

function readTool(state: State, reading: ToolCallReading, ref: SourceRef): void {
  const { collector } = state
  state.readings.push(reading)
  state.toolCalls.push({ tool: reading.tool, summary: reading.summary, status: reading.status, tag: ref.tag })
  // A line an earlier call of the episode already kept (the same file read twice) is not kept again.
  const kept = new Set(state.toolResults.flatMap((result) => result.lines))
  const lines = reading.keptLines.filter((line) => !kept.has(line))
  // An absence is one line under the call in DENSE and one key line in COMPACT, the call named in it.
  if (reading.absence !== null && !lines.includes(reading.absence)) lines.push(`(${reading.absence})`)
  state.toolResults.push({ tag: ref.tag, summary: reading.summary, status: reading.status, lines, added: reading.added })
  for (const line of reading.keyLines) if (lines.includes(line) && !state.keyLines.includes(line)) state.keyLines.push(line)
  const absent = reading.absence === null ? null : `${reading.summary} → ${reading.absence}`
  if (absent !== null && !state.keyLines.includes(absent)) state.keyLines.push(absent)
  for (const id of reading.returnedIds) if (id.length <= MAX_IDENTIFIER_CHARS) collector.add("identifier", id, [ref])
  for (const path of reading.paths) if (path.length <= MAX_IDENTIFIER_CHARS) collector.add("identifier", path, [ref])
  if (reading.command !== null) {
    const program = programOf(reading.command)
    if (!reading.isSearch && program.length <= MAX_IDENTIFIER_CHARS) collector.add("identifier", program, [ref])
    for (const identifier of extractIdentifiers(reading.command, "command")) {
      collector.add("identifier", identifier, [ref])
    }
  }
  if (reading.edit !== null) {
    const { newText, oldText } = reading.edit
    const introduced = extractIdentifiers(newText, "code").filter((identifier) => !oldText.includes(identifier))
    for (const identifier of introduced.slice(0, MAX_EDIT_IDENTIFIERS)) collector.add("identifier", identifier, [ref])
    if (state.recognizers.on("edit-setting-lines")) {
      for (const setting of settingLines(newText, oldText, settingReading(state.recognizers))) collector.add("identifier", setting, [ref])
    }
  }
  for (const commit of reading.commits) collector.add("identifier", commit, [ref])
  for (const constraint of reading.constraints) collector.add("constraint", `${SPEC_PREFIX}${constraint}`, [ref])
  // The user's answers are their words: pinned whole, as a typed message is.
  for (const answer of reading.answers) collector.add("constraint", `user answered: ${answer}`, [ref])
  for (const location of reading.locations) collector.add("location", location.text, [ref])
  readOpenFile(state, reading, ref)
  if (reading.todos !== null) state.todos = { items: reading.todos, ref }
  if (reading.noMatches) collector.add("incidental", `no matches: ${reading.summary}`, [ref])
  if (reading.interrupted) collector.add("incidental", `interrupted: ${reading.summary}`, [ref])
  if (reading.errorLines.length === 0) {
    state.events.push({ type: "tool", failure: null })
    return
  }
  const failure = `${reading.summary} → ${reading.errorLines.join(" | ")}`
  collector.add("failure", failure, [ref])
  for (const line of reading.errorLines) {
    for (const identifier of extractIdentifiers(line, "prose")) collector.add("identifier", identifier, [ref])
  }
  state.events.push({ type: "tool", failure })
}

/** SWE-agent keeps one file open: `open path` sets it, `edit a:b` and `goto n` are lines of it. */
function readOpenFile(state: State, reading: ToolCallReading, ref: SourceRef): void {
  const opened = reading.tool === "open" ? reading.paths[0] : undefined
  if (opened !== undefined) state.openFile = { path: opened, ref }
  if (reading.lineRange === null || state.openFile === null) return
  const { start, end } = reading.lineRange
  const location = formatLocation(state.openFile.path, end > start ? { line: start, endLine: end } : { line: start })
  state.collector.add("location", location.text, [state.openFile.ref, ref])
}

function finish(state: State, options: { compartmentId: string; messages: readonly HostMessage[] }): CanonicalRecord {
  const { collector } = state
  const last = state.texts.at(-1)
  if (last !== undefined) last.isLastText = true
  const fromText = sentenceFacts(state.texts, state.recognizers)
  for (const fact of fromText.facts) collector.add(fact.kind, fact.text, fact.refs)
  // What the reasoning says besides the answer, marked as reasoning; a plan only the reasoning states, by its rule.
  const said = new Set(fromText.facts.map((fact) => fact.text))
  const fromReasoning = sentenceFacts(state.reasoning, state.recognizers)
  for (const fact of fromReasoning.facts) {
    if (!said.has(fact.text)) collector.add(fact.kind, `${REASONING_MARK}${fact.text}`, fact.refs)
  }
  const plans = state.recognizers.on("reasoning-plans") ? reasoningPlans(state.reasoning, state.texts) : []
  for (const plan of plans) collector.add(plan.kind, plan.text, plan.refs)
  if (state.recognizers.on("reasoning-design")) {
    // A design is a sentence no other rule took, and that neither a plan nor the answer says itself.
    const free = new Set(fromReasoning.narrative)
    const answered = new Set(fromText.narrative)
    const taken = (sentence: string): boolean => !free.has(sentence) || answered.has(sentence) || plans.some((plan) => plan.text.includes(sentence))
    for (const design of reasoningDesigns({ reasoning: state.reasoning, calls: state.calls, taken })) collector.add(design.kind, design.text, design.refs)
  }
  const todos = state.todos
  for (const item of todos?.items ?? []) {
    if (todos === null || item.status === "completed" || item.status === "cancelled") continue
    collector.add("open_work", `todo (${item.status}): ${item.content}`, [todos.ref])
  }
  const lastEvent = state.events.at(-1)
  if (lastEvent?.type === "user" && !lastEvent.trivial && lastEvent.text.length <= MAX_DIRECTIVE_CHARS) {
    collector.add("open_work", `unanswered: ${quote(lastEvent.text, OBJECTIVE_CHARS)}`, [lastEvent.ref])
  }
  const facts = state.recognizers.on("resolved-locations") ? resolveLocations(collector.facts()) : collector.facts()
  const spoken = [...state.texts, ...state.reasoning].map((source) => source.text).join("\n")
  // A line a fact already quotes (a failure's cause) takes no second place.
  const unsaid = state.keyLines.filter((line) => !facts.some((fact) => fact.text.includes(line)))
  const keyLines = state.recognizers.on("echoed-key-lines")
    ? rankByEcho(unsaid, spoken, MAX_EPISODE_KEY_LINES)
    : unsaid.slice(0, MAX_EPISODE_KEY_LINES)
  const tags = [...new Set(state.tags)].sort((left, right) => left - right)
  return {
    compartmentId: options.compartmentId,
    source: {
      tags,
      messageIds: options.messages.map((message) => message.info.id),
      firstTag: tags[0] ?? null,
      lastTag: tags.at(-1) ?? null,
    },
    objective: state.objective,
    facts,
    toolCalls: state.toolCalls,
    narrative: fromText.narrative,
    outcome: outcomeOf(state.events),
    entities: recordEntities({
      readings: state.readings,
      identifiers: facts.filter((fact) => fact.kind === "identifier"),
    }),
    full: null,
    toolResults: state.toolResults.filter((result) => result.lines.length > 0 || result.added.some((file) => file.lines.length > 0)),
    attachments: state.attachments,
    codeBlocks: state.codeBlocks,
    keyLines,
  }
}

function firstTag(message: HostMessage, tagOf: (partId: string) => number | null): number | null {
  for (const part of message.parts) {
    const tag = tagOf(part.id)
    if (tag !== null) return tag
  }
  return null
}
