import {
  messageText,
  type ChatRequest,
  type MockReply,
  type MockScript,
} from "../../test/e2e/harness/mock-model-server.js"
import { requestElements } from "./prefix-share.js"
import type { ElementTokenCounter } from "./prompt-tokens.js"
import type { ReduceStyle } from "./reduce-style.js"
import { newReminders, reminderBlocks, reminderDrop } from "./reminder-reply.js"
import { classifyRequest, type RequestKind } from "./request-kind.js"
import type { ScriptedTurn } from "./session-script.js"

/** What the mock answered one request with, and where in the script that was. */
export type AnsweredRequest = {
  n: number
  kind: RequestKind
  turn: number
  /** The scripted step it got; null for side requests and for a reminder answer made alone (without a step). */
  step: number | null
  promptTokens: number
  /** The newest message is OpenCode's synthetic "Continue if you have next steps…" turn after a compaction. */
  continuesAfterCompaction: boolean
  /** Main requests: magic-context reminder blocks not in the previous main request (0 for side requests). */
  newReminders: number
  /** The `drop` argument when the cooperative agent answered a reminder with ctx_reduce (alone or beside its step), else null. */
  reduceDrop: string | null
}

const CONTINUE_TEXT = "Continue if you have next steps"

/** The mock model of one configuration's run: the script plus the bookkeeping the report needs. */
export type SessionModel = {
  script: MockScript
  /** Called before each `opencode run`: main requests from now on belong to turn `index`. */
  startTurn(index: number): void
  /** Every request in arrival order. */
  answered(): readonly AnsweredRequest[]
}

/** A short summary in the shape OpenCode's compaction prompt asks for. */
const COMPACTION_SUMMARY = [
  "## Objective",
  "Round the ledger service's helpers half to even.",
  "## Work State",
  "Survey done; edits in progress as the scripted session goes.",
  "## Next Move",
  "Continue with the next scripted step.",
].join("\n")

/**
 * The deterministic model: a main request gets the next step of the current turn (the count of scripted steps the
 * turn has had so far picks it), side requests get fixed answers. A `cooperative` model answers a magic-context
 * reminder it has not answered yet with one ctx_reduce call (reminder-reply.ts), so the session does the same work
 * either way: `batched`, the call rides along with the next scripted tool call in the same response (a step that is
 * the turn's final text waits, and the reminder is answered with the next turn's first tool call), as the guidance
 * asks; `alone`, the call is a response of its own that takes no step. Every reply reports the request's prompt
 * tokens (o200k_base over its elements) as usage, so OpenCode's overflow check and the plugins see realistic
 * pressure.
 */
export function createSessionModel(options: {
  turns: readonly ScriptedTurn[]
  tokens: ElementTokenCounter
  cooperative: boolean
  reduceStyle: ReduceStyle
}): SessionModel {
  const { turns, tokens } = options
  const answered: AnsweredRequest[] = []
  const stepsTaken = turns.map(() => 0)
  let currentTurn = 0
  let previousReminders: string[] = []

  const script: MockScript = (request, n) => {
    const kind = classifyRequest(request)
    const promptTokens = sumOf(tokens.count(requestElements(request)))
    const continuesAfterCompaction = newestIsContinue(request)
    const record = (fields: Pick<AnsweredRequest, "step" | "newReminders" | "reduceDrop">): void =>
      void answered.push({ n, kind, turn: currentTurn, promptTokens, continuesAfterCompaction, ...fields })
    if (kind !== "main") {
      record({ step: null, newReminders: 0, reduceDrop: null })
      return { ...sideReply(kind, request), promptTokens }
    }
    const reminders = reminderBlocks(request)
    const fresh = newReminders(previousReminders, reminders)
    previousReminders = reminders
    const drop = options.cooperative ? reminderDrop(request) : null
    if (drop !== null && options.reduceStyle === "alone") {
      record({ step: null, newReminders: fresh, reduceDrop: drop })
      return { kind: "tool", name: "ctx_reduce", args: { drop }, promptTokens }
    }
    const turn = turns[currentTurn]
    if (!turn) throw new Error(`no scripted turn ${currentTurn}`)
    const step = stepsTaken[currentTurn] ?? 0
    stepsTaken[currentTurn] = step + 1
    const reply = turn.steps[Math.min(step, turn.steps.length - 1)]
    if (!reply) throw new Error(`turn ${currentTurn} has no steps`)
    if (drop !== null && reply.kind === "tool") {
      record({ step, newReminders: fresh, reduceDrop: drop })
      const calls = [{ name: "ctx_reduce", args: { drop } }, { name: reply.name, args: reply.args }]
      return { kind: "tools", calls, promptTokens }
    }
    record({ step, newReminders: fresh, reduceDrop: null })
    return { ...reply, promptTokens }
  }

  return {
    script,
    startTurn: (index) => {
      currentTurn = index
    },
    answered: () => answered,
  }
}

function sideReply(kind: RequestKind, request: ChatRequest): MockReply {
  if (kind === "title") return { kind: "text", text: "Ledger rounding session" }
  if (kind === "compaction") return { kind: "text", text: COMPACTION_SUMMARY }
  // The benchmark runs the historian as canonical (no model calls); an unexpected one gets an unusable answer, so
  // magic-context keeps its canonical record.
  if (kind === "historian") return { kind: "text", text: "HISTORIAN-NOT-SCRIPTED" }
  return { kind: "text", text: `OK (${request.messages.length} messages)` }
}

function newestIsContinue(request: ChatRequest): boolean {
  const newest = request.messages[request.messages.length - 1]
  return newest?.role === "user" && messageText(newest).startsWith(CONTINUE_TEXT)
}

function sumOf(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0)
}
