import { compartmentDisplayId, compartmentStoreId } from "../historian/compartment-id.js"
import { extractCanonicalRecord } from "../historian/canonical-record.js"
import { cutCompartments, type CutMessage } from "../historian/cut-compartments.js"
import { SURVIVAL_CONTRACTS, TIERS } from "../historian/fidelity-types.js"
import { applyPinPatterns, type PinPattern } from "../historian/pin-patterns.js"
import { renderTiers } from "../historian/render-tiers.js"
import type { LiveView } from "../session/live-view.js"
import type { Recognizers } from "../session/recognizers.js"
import type { SessionState } from "../session/session-state.js"
import {
  insertCompartment,
  type CompartmentOutline,
  type NewCompartment,
  type RepresentationOutline,
} from "../store/compartment-repository.js"
import type { Database } from "../store/driver.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { HostMessage } from "../transcript/host-message.js"

/** What a cut reads: the pass's messages and view, and where the cut must stop besides the protected window. */
export type CutInput = {
  messages: readonly HostMessage[]
  view: LiveView
  state: SessionState
  pass: number
  now: number
  /**
   * The first message the cut leaves alone whatever the protected window says: the running turn's, where the
   * provider binds that turn's reasoning to its calls (`reasoning-rules.ts`). Absent: none.
   */
  fenceSeq?: number
  /**
   * Leave reasoning parts out of the episodes' source: the provider signs or encrypts reasoning, and its text stays
   * in the message it was made for (`reasoning-rules.ts`), never in the history message.
   */
  withoutReasoning?: boolean
}

/**
 * A cut the ledger owes its store (`HistoryPlanner.cut` with `deferCuts`): the episodes cut, each with copies of its
 * messages as the pass read them, their parts' tags and whether each was dropped then, and the pass that cut them.
 */
export type OwedCut = {
  episodes: { cut: ReturnType<typeof cutCompartments>[number]; messages: HostMessage[] }[]
  tags: ReadonlyMap<string, { tag: number; dropped: boolean }>
  pass: number
  now: number
}

/** Where a compartment's messages end: the ledger's last compartment as a cut reads it. */
type CoveredCompartment = { lastMessageSeq: number }

/**
 * What a cut may take: the messages after `coveredThroughSeq` (the ledger's last compartment, or the folded history)
 * and before `settledBefore` (the protected window, the newest message, the fence).
 */
export function cutBounds(input: CutInput & { known: readonly CoveredCompartment[] }): { coveredThroughSeq: number; settledBefore: number } {
  const { view, state, known } = input
  const newest = view.messages[view.messages.length - 1]
  const newestSeq = newest ? (state.messageSeq.get(newest.info.id) ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY
  const coveredThroughSeq = Math.max(known[known.length - 1]?.lastMessageSeq ?? 0, state.applied.history?.foldedThroughSeq ?? 0)
  // Never the newest message: the prompt keeps its tail whatever the protected window says.
  const settledBefore = Math.min(view.protectedFromSeq, newestSeq, input.fenceSeq ?? Number.POSITIVE_INFINITY)
  return { coveredThroughSeq, settledBefore }
}

/**
 * What the newly settled messages owe: their cuts into compartments, with what writing their tiers reads taken now
 * (`OwedCut`); null when nothing settled since the last cut.
 */
export function owedCut(input: CutInput & { known: readonly CoveredCompartment[] }): OwedCut | null {
  const { view, state } = input
  const { coveredThroughSeq, settledBefore } = cutBounds(input)
  // Only what follows the covered conversation can be cut (cutCompartments reads nothing before it), and of the
  // protected messages only the first: it says whether the last settled turn has ended.
  const uncovered: HostMessage[] = []
  let settled = 0
  let protectedSeen = false
  for (let index = 0; index < view.messages.length; index += 1) {
    const message = view.messages[index] as HostMessage
    // The view's facts hold each live message's sequence number (0: not stored).
    const seq = view.facts[index]?.seq ?? 0
    if (seq <= coveredThroughSeq) continue
    if (seq < settledBefore) settled += 1
    else if (protectedSeen) continue
    else protectedSeen = true
    uncovered.push(message)
  }
  if (settled === 0) return null
  const cutMessages: CutMessage[] = uncovered.map((message) => ({
    id: message.info.id,
    seq: state.messageSeq.get(message.info.id) ?? 0,
    role: message.info.role,
    tokens: message.parts.reduce((sum, part) => {
      const stored = state.parts.get(part.id)
      return sum + (stored ? stored.tokens + stored.callTokens : 0)
    }, 0),
    authoredUser: message.info.role === "user" && message.parts.some((part) => part.type === "text" && !part.synthetic && !part.ignored),
  }))
  const cuts = cutCompartments({ messages: cutMessages, coveredThroughSeq, protectedFromSeq: settledBefore })
  if (cuts.length === 0) return null
  // A cut names only uncovered messages. Each is kept as it reads now: the shell writes the pass's edits (tags,
  // markers) into the host's objects once the pass returns, and the tiers are made from the source.
  const byId = new Map(uncovered.map((message) => [message.info.id, message]))
  const tags = new Map<string, { tag: number; dropped: boolean }>()
  const episodes = cuts.map((cut) => ({
    cut,
    messages: cut.messageIds.flatMap((id) => {
      const message = byId.get(id)
      if (!message) return []
      for (const part of message.parts) {
        const tag = state.tagsByPart.get(part.id)
        if (tag) tags.set(part.id, { tag: tag.tag, dropped: tag.status === "dropped" })
      }
      return [sourceCopy(message, input.withoutReasoning === true)]
    }),
  }))
  return { episodes, tags, pass: input.pass, now: input.now }
}

/** What writing a cut needs besides the cut: the session's store and how its tiers are made and counted. */
export type CutWriter = {
  db: Database
  sessionId: string
  counter: TokenCounter
  recognizers: Recognizers
  pinPatterns: readonly PinPattern[]
}

/**
 * Writes an owed cut's compartments and their canonical tiers, in a transaction, after the compartments `known`;
 * once it commits, each is appended to `known` (without its tiers' texts).
 */
export function writeCut(writer: CutWriter, owed: OwedCut, known: CompartmentOutline[]): void {
  const { db, sessionId, counter } = writer
  const written: CompartmentOutline[] = []
  db.transaction(() => {
    for (const { cut, messages } of owed.episodes) {
      const seq = (written[written.length - 1]?.seq ?? known[known.length - 1]?.seq ?? 0) + 1
      const display = compartmentDisplayId(seq)
      const extracted = extractCanonicalRecord({
        compartmentId: display,
        messages,
        tagOf: (partId) => owed.tags.get(partId)?.tag ?? null,
        recognizers: writer.recognizers,
        droppedOf: (partId) => owed.tags.get(partId)?.dropped === true,
      })
      const record = { ...extracted, facts: applyPinPatterns(extracted.facts, writer.pinPatterns) }
      const tiers = renderTiers(record, writer.recognizers)
      const representations = TIERS.flatMap((tier) => {
        const content = tiers[tier]
        if (content === null) return []
        return [
          {
            tier,
            strategy: "canonical-record" as const,
            content,
            tokens: counter.count(content),
            generatorModel: null,
            promptVersion: null,
            survivalContract: SURVIVAL_CONTRACTS[tier],
            sourceRefs: { tags: record.source.tags, messageIds: record.source.messageIds },
          },
        ]
      })
      const compartment = {
        id: compartmentStoreId(sessionId, seq),
        sessionId,
        seq,
        firstMessageSeq: cut.firstSeq,
        lastMessageSeq: cut.lastSeq,
        firstTag: record.source.firstTag,
        lastTag: record.source.lastTag,
        outcome: record.outcome,
        sourceTokens: cut.tokens,
        representations,
        facts: record.facts,
        createdPass: owed.pass,
        createdAt: owed.now,
      }
      insertCompartment(db, compartment)
      const { outcome: _outcome, ...outline } = compartment
      written.push({ ...outline, status: "closed", representations: representations.map(outlineOf) })
    }
  })
  // What the session keeps of each compartment is copied here, apart from the garbage of making its tiers: Bun's
  // collector never moves an object, and outlines made amid that garbage (a first fold cuts thousands of episodes at
  // once) each kept a block of it from being freed, ~70 MB at 10,000 messages (`npm run bench:memory`).
  for (const compartment of written) known.push(keptOutline(compartment))
}

/** A compartment's outline, its fields as the store lists them, copied down to its facts' source lists (not strings). */
function keptOutline(compartment: CompartmentOutline): CompartmentOutline {
  const { id, sessionId, seq, firstMessageSeq, lastMessageSeq, firstTag, lastTag, sourceTokens, status } = compartment
  return {
    id,
    sessionId,
    seq,
    firstMessageSeq,
    lastMessageSeq,
    firstTag,
    lastTag,
    sourceTokens,
    status,
    representations: compartment.representations.map((representation) => ({ ...representation })),
    facts: compartment.facts.map((fact) => ({ ...fact, source: { ...fact.source, tags: [...fact.source.tags], messageIds: [...fact.source.messageIds] } })),
  }
}

/** A representation as the ledger keeps it: its text stays in the store. */
function outlineOf(representation: NewCompartment["representations"][number]): RepresentationOutline {
  const { tier, strategy, tokens, generatorModel, promptVersion } = representation
  return { tier, strategy, tokens, generatorModel, promptVersion }
}

/**
 * A message as it reads now, apart from the host's objects: its parts copied one level (a tool's state two), which is
 * where the shell writes edits (a text, a tool's output or error; a tool's input it replaces, never mutates).
 */
function sourceCopy(message: HostMessage, withoutReasoning: boolean): HostMessage {
  const kept = withoutReasoning ? message.parts.filter((part) => part.type !== "reasoning") : message.parts
  const parts = kept.map((part) => (part.type === "tool" ? { ...part, state: { ...part.state } } : { ...part }))
  return { info: message.info, parts } as HostMessage
}
