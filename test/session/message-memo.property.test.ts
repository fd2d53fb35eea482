import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { beginPass, createMessageMemo } from "../../src/session/message-memo.js"
import { renderPrompt, renderPromptPlaced } from "../../src/render/render-prompt.js"
import { buildLiveView } from "../../src/session/live-view.js"
import { measurePrompt } from "../../src/render/measure-prompt.js"
import { joinPrompt, serializeRendered, serializeRenderedChunks, type SerializedPrompt } from "../../src/session/serialize-prompt.js"
import { firstDivergence, promptDivergence } from "../../src/session/prompt-divergence.js"
import { finalShape, sameFinalShape } from "../../src/session/message-signature.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { freshCopy } from "../helpers/host-messages.js"
import { emptySessionState } from "../../src/session/session-state.js"
import { applyPlanToState, planIngest } from "../../src/session/plan-ingest.js"
import { RecordMap } from "../../src/session/record-map.js"
import { applyEdits, applyRenderedEdits } from "../../src/session/apply-edits.js"
import { scenarioArbitrary, type RandomScenario } from "../helpers/random-session.js"
import { createRenderCaches } from "../../src/render/render-caches.js"

/**
 * The message memo is a cache: whatever renders came before, a render with it gives the edits and the serialized
 * prompt a render without it gives. The scenarios number their messages m0, m1, … so two of them share ids with
 * different content, tags and reminders: a memo that trusted an id alone would fail here. What the memo does trust is
 * the host's own rule (as ingest does): a message whose parts were all final keeps their content while its role and
 * its parts' ids, kinds and sizes stay (`respectingHost` makes the scenarios follow it).
 */
const plain = (scenario: RandomScenario) => renderPrompt({ ...scenario, messages: freshCopy(scenario.messages) })

/**
 * The scenarios as a host would send them in sequence: a message that was all final and comes again with the same
 * shape comes with the same content (the host never rewrites a finished part in place, short of pruning it).
 */
function respectingHost(scenarios: readonly RandomScenario[]): RandomScenario[] {
  const finished = new Map<string, HostMessage>()
  return scenarios.map((scenario) => {
    const messages = scenario.messages.map((message) => {
      const earlier = finished.get(message.info.id)
      const shape = earlier ? finalShape(earlier) : null
      return earlier && shape && sameFinalShape(shape, message) ? freshCopy([earlier])[0] as HostMessage : message
    })
    for (const message of messages) if (finalShape(message)) finished.set(message.info.id, message)
    return { ...scenario, messages }
  })
}

describe("renderPrompt with a memo", () => {
  it("renders any scenario as without it, after any other scenario", () => {
    fc.assert(
      fc.property(fc.array(scenarioArbitrary, { minLength: 2, maxLength: 4 }), (generated) => {
        const memo = createMessageMemo()
        const render = createRenderCaches()
        let previous = null
        for (const scenario of respectingHost(generated)) {
          const messages = freshCopy(scenario.messages)
          beginPass(memo, messages)
          const edits = renderPrompt({ ...scenario, messages, memo, caches: render })
          expect(edits).toEqual(plain(scenario))
          const serialized = serializeRenderedChunks(messages, edits, previous, memo)
          expect(joinPrompt(serialized)).toBe(serializeRendered(scenario.messages, edits))
          previous = serialized
          // The live view and the measure read the memo's items: the same as listing them afresh.
          const { state, protectedTokens, tagsVisible, placements, counter } = scenario
          const view = buildLiveView({ messages, state, protectedTokens, memo })
          expect(view).toEqual(buildLiveView({ messages, state, protectedTokens }))
          const measured = { messages, state, view, tagsVisible, placements, fixedTokens: 0, reclaimable: view.items, count: counter.count, caches: render }
          // The measure keeps its results on the view's facts, which the memo keeps: a view without it has none.
          const unmemoized = buildLiveView({ messages, state, protectedTokens })
          expect(measurePrompt(measured)).toEqual(measurePrompt({ ...measured, view: unmemoized, reclaimable: unmemoized.items, caches: createRenderCaches() }))
        }
      }),
      { numRuns: 300 },
    )
  })

  it("follows a change of tags, part records, tag visibility or reminders on unchanged messages", () => {
    fc.assert(
      fc.property(scenarioArbitrary, fc.nat(), fc.boolean(), fc.boolean(), (scenario, pick, flipTags, dropReminders) => {
        const memo = createMessageMemo()
        const render = createRenderCaches()
        beginPass(memo, scenario.messages)
        const first = serializeRenderedChunks(scenario.messages, renderPrompt({ ...scenario, memo, caches: render }), null, memo)
        const tags = [...scenario.state.tagsByNumber.values()]
        const tag = tags[pick % Math.max(tags.length, 1)]
        if (tag) {
          tag.status = tag.status === "live" ? "dropped" : "live"
          tag.droppedReason = tag.status === "dropped" ? "reduce" : null
        }
        const changed = {
          ...scenario,
          tagsVisible: flipTags ? !scenario.tagsVisible : scenario.tagsVisible,
          placements: dropReminders ? [] : scenario.placements,
        }
        const warm = buildLiveView({ messages: scenario.messages, state: scenario.state, protectedTokens: scenario.protectedTokens, memo })
        const { counter, tagsVisible, placements } = scenario
        measurePrompt({ messages: scenario.messages, state: scenario.state, view: warm, tagsVisible, placements, fixedTokens: 0, reclaimable: [], count: counter.count, caches: render })
        // Ingest replaces a part's record when the part changes (here: its count), an execute pass a tag's record.
        const parts = [...scenario.state.parts.keys()]
        const part = parts[pick % Math.max(parts.length, 1)]
        const record = part === undefined ? undefined : scenario.state.parts.get(part)
        if (part !== undefined && record) scenario.state.parts.set(part, { ...record, tokens: record.tokens + 7 })
        if (tag) scenario.state.tagsByPart.set(tag.partId, { ...tag })
        const messages = freshCopy(scenario.messages)
        beginPass(memo, messages)
        const view = buildLiveView({ messages, state: scenario.state, protectedTokens: scenario.protectedTokens, memo })
        expect(view).toEqual(buildLiveView({ messages, state: scenario.state, protectedTokens: scenario.protectedTokens }))
        const measured = {
          messages,
          state: scenario.state,
          view,
          tagsVisible: changed.tagsVisible,
          placements: changed.placements,
          fixedTokens: 0,
          reclaimable: view.items.filter((item) => item.final),
          count: scenario.counter.count,
          caches: render,
        }
        const fresh = buildLiveView({ messages, state: scenario.state, protectedTokens: scenario.protectedTokens })
        expect(measurePrompt(measured)).toEqual(measurePrompt({ ...measured, view: fresh, reclaimable: fresh.items.filter((item) => item.final), caches: createRenderCaches() }))
        const edits = renderPrompt({ ...changed, messages, memo, caches: render })
        expect(edits).toEqual(plain(changed))
        expect(joinPrompt(serializeRenderedChunks(messages, edits, first, memo))).toBe(serializeRendered(scenario.messages, edits))
      }),
      { numRuns: 300 },
    )
  })

  it("keeps entries only for the messages of the latest pass, and trusts none for a message object it did not see", () => {
    fc.assert(
      fc.property(scenarioArbitrary, scenarioArbitrary, fc.nat(), (scenario, other, keep) => {
        const memo = createMessageMemo()
        const render = createRenderCaches()
        beginPass(memo, scenario.messages)
        renderPrompt({ ...scenario, memo, caches: render })
        const kept = scenario.messages.slice(0, (keep % scenario.messages.length) + 1)
        beginPass(memo, kept)
        expect([...memo.messages.keys()].sort()).toEqual(kept.map((message) => message.info.id).sort())
        // Another list with the same ids rendered with the memo but no beginPass: its entries must not be trusted.
        const edits = renderPrompt({ ...other, memo, caches: render })
        expect(edits).toEqual(renderPrompt(other))
      }),
    )
  })
})

describe("the message memo with a list that names one message id twice", () => {
  it("renders and serializes each copy as without the memo, pass after pass", () => {
    fc.assert(
      fc.property(scenarioArbitrary, fc.nat(), (scenario, pick) => {
        // A host list should never repeat an id; if one does, the memo must not give one copy the other's results.
        const original = scenario.messages[pick % scenario.messages.length]
        if (!original) return
        const twin = { ...original, parts: original.parts.slice(0, Math.max(0, original.parts.length - 1)) }
        const list = [...scenario.messages, twin]
        const memo = createMessageMemo()
        const render = createRenderCaches()
        let previous = null
        for (let pass = 0; pass < 2; pass += 1) {
          const messages = freshCopy(list)
          beginPass(memo, messages)
          const edits = renderPrompt({ ...scenario, messages, memo, caches: render })
          expect(edits).toEqual(renderPrompt({ ...scenario, messages: freshCopy(list) }))
          const serialized = serializeRenderedChunks(messages, edits, previous, memo)
          expect(joinPrompt(serialized)).toBe(serializeRendered(list, edits))
          previous = serialized
        }
      }),
      { numRuns: 200 },
    )
  })
})

describe("the memo over a session that grows pass after pass", () => {
  it("gives the view, the measure, the edits and the serialized prompt of a fresh pass, with records written between passes", () => {
    fc.assert(
      fc.property(scenarioArbitrary, fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.option(fc.nat()), { maxLength: 4 }), fc.array(fc.nat(), { maxLength: 5 }), (scenario, cuts, flips, rewrites, swaps, folds) => {
        // One session state across passes, as a process keeps it: ingest writes the new messages' records, and
        // between passes a tag record is replaced (a drop landing), so the memo must follow the maps' writes.
        const state = emptySessionState("ses_grow")
        const memo = createMessageMemo()
        const render = createRenderCaches()
        const { counter, tagsVisible, placements, protectedTokens } = scenario
        const lengths = [...cuts.map((cut) => (cut % scenario.messages.length) + 1).sort((a, b) => a - b), scenario.messages.length]
        let previous: SerializedPrompt | null = null
        // Between passes the host may also change a message it sent before (a text that grew): its entry is new ...
        const source = freshCopy(scenario.messages)
        lengths.forEach((length, pass) => {
          const rewrite = rewrites[pass]
          const changed = rewrite === undefined ? undefined : source[rewrite % length]
          const part = changed?.parts.find((candidate) => candidate.type === "text")
          if (part?.type === "text") part.text = `${part.text} and more`
          // ... or send two of them in the other order (their entries move).
          const swap = swaps[pass]
          if (swap !== undefined && swap !== null && length > 1) {
            const at = swap % (length - 1)
            ;[source[at], source[at + 1]] = [source[at + 1] as HostMessage, source[at] as HostMessage]
          }
          const messages = freshCopy(source.slice(0, length))
          beginPass(memo, messages)
          // Ingest skips what the memo knows stored whole (the leading messages that sit where they sat among them):
          // it plans what it plans without the memo.
          const unmemoized = planIngest({ state, messages, counter })
          const plan = planIngest({ state, messages, counter, memo })
          expect(plan).toEqual(unmemoized)
          applyPlanToState(state, plan)
          const flip = flips[pass]
          const tags = [...state.tagsByPart.values()]
          const tag = flip === undefined ? undefined : tags[flip % Math.max(tags.length, 1)]
          // An odd flip lands on a copy that goes on from the session's records, as an execute pass's planned state
          // does (`RecordMap.derive`), and the copy becomes the session's.
          if (tag && flip !== undefined && flip % 2 === 1 && state.tagsByPart instanceof RecordMap) state.tagsByPart = RecordMap.derive(state.tagsByPart)
          if (tag) state.tagsByPart.set(tag.partId, { ...tag, status: tag.status === "live" ? "dropped" : "live", droppedReason: tag.status === "live" ? "reduce" : null })
          const view = buildLiveView({ messages, state, protectedTokens, memo })
          const fresh = buildLiveView({ messages, state, protectedTokens })
          expect(view).toEqual(fresh)
          // A read-only view of the history folded through some message (an estimate's): as made afresh, and the memo
          // left as it was (everything below still compares with views, measures and renders made without it).
          const fold = folds[pass]
          if (fold !== undefined) {
            const seqs = [...state.messageSeq.values()]
            const foldedThroughSeq = seqs[fold % Math.max(seqs.length, 1)] ?? 0
            const folded = { ...state, applied: { ...state.applied, history: { foldedThroughSeq, text: "", tokens: 0 } } }
            expect(buildLiveView({ messages, state: folded, protectedTokens, memo, readOnly: true })).toEqual(buildLiveView({ messages, state: folded, protectedTokens }))
            // A record written since the memo's sync: the read-only view may not trust what the memo confirmed.
            const written = [...state.tagsByPart.values()][fold % Math.max(state.tagsByPart.size, 1)]
            if (written) {
              state.tagsByPart.set(written.partId, { ...written, status: written.status === "live" ? "dropped" : "live", droppedReason: written.status === "live" ? "reduce" : null })
              expect(buildLiveView({ messages, state: folded, protectedTokens, memo, readOnly: true })).toEqual(buildLiveView({ messages, state: folded, protectedTokens }))
              state.tagsByPart.set(written.partId, written)
            }
          }
          const measured = { messages, state, view, tagsVisible, placements, fixedTokens: 0, reclaimable: view.items, count: counter.count, caches: render }
          // Measured afresh from a copy of the records (the measure keeps running sums per session's records), so the
          // memo's measure takes up from the last pass's sums.
          const copy = { ...state, parts: new Map(state.parts) }
          const copied = buildLiveView({ messages, state: copy, protectedTokens })
          const expected = measurePrompt({ ...measured, state: copy, view: copied, reclaimable: copied.items, caches: createRenderCaches() })
          expect(measurePrompt(measured)).toEqual(expected)
          const { edits, placed } = renderPromptPlaced({ messages, state, tagsVisible, placements, memo, view, caches: render })
          expect(edits).toEqual(renderPrompt({ messages: freshCopy(messages), state, tagsVisible, placements }))
          const serialized = serializeRenderedChunks(messages, edits, previous, memo, placed)
          expect(joinPrompt(serialized)).toBe(serializeRendered(messages, edits))
          // Where it departs from the last prompt, skipping the chunks it took from there: as the joined texts say.
          if (previous) expect(promptDivergence(previous, serialized, memo)).toBe(firstDivergence(joinPrompt(previous), joinPrompt(serialized)))
          previous = serialized
          // The shell writes the edits into the pass's own messages by where the memo rendered them: the messages come
          // out as looking every part up by id makes them.
          const byId = freshCopy(messages)
          applyEdits(byId, edits)
          const content = edits.filter((edit) => edit.type === "set-text" || edit.type === "set-tool-result" || edit.type === "set-tool-input")
          expect(applyRenderedEdits(messages, { messages, edits, placed }, edits)).toBe(placed === null ? 0 : content.length)
          expect(messages).toEqual(byId)
        })
      }),
      { numRuns: 300 },
    )
  })
})
