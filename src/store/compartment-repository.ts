import { z } from "zod"
import type { Fact, Tier } from "../historian/fidelity-types.js"
import type { Database, Row } from "./driver.js"
import { statement } from "./statements.js"

export type RepresentationStrategy = "canonical-record" | "source-grounded-model" | "cascaded-model"

/** A stored compartment with its representations and its facts. */
export type StoredCompartment = {
  id: string
  sessionId: string
  seq: number
  firstMessageSeq: number
  lastMessageSeq: number
  firstTag: number | null
  lastTag: number | null
  outcome: string | null
  sourceTokens: number
  status: "closed" | "folded"
  representations: StoredRepresentation[]
  facts: Fact[]
}

export type StoredRepresentation = {
  tier: Tier
  strategy: RepresentationStrategy
  content: string
  tokens: number
  generatorModel: string | null
  promptVersion: string | null
}

/** What a new compartment writes: the row, its representations (one strategy) and its facts. */
export type NewCompartment = Omit<StoredCompartment, "status" | "representations" | "facts"> & {
  representations: (StoredRepresentation & { survivalContract: string; sourceRefs: { tags: number[]; messageIds: string[] } })[]
  facts: Fact[]
  createdPass: number
  createdAt: number
}

const SourceRefsSchema = z.object({ tags: z.array(z.number()), messageIds: z.array(z.string()) })

/** Writes a compartment with its representations and facts (in the caller's transaction). */
export function insertCompartment(db: Database, compartment: NewCompartment): void {
  statement(
    db,
    `INSERT INTO compartments (id, session_id, seq, first_message_seq, last_message_seq, first_tag, last_tag, outcome,
                               source_tokens, status, created_pass, created_at)
     VALUES (@id, @session_id, @seq, @first_message_seq, @last_message_seq, @first_tag, @last_tag, @outcome,
             @source_tokens, 'closed', @created_pass, @created_at)`,
  ).run({
    id: compartment.id,
    session_id: compartment.sessionId,
    seq: compartment.seq,
    first_message_seq: compartment.firstMessageSeq,
    last_message_seq: compartment.lastMessageSeq,
    first_tag: compartment.firstTag,
    last_tag: compartment.lastTag,
    outcome: compartment.outcome,
    source_tokens: compartment.sourceTokens,
    created_pass: compartment.createdPass,
    created_at: compartment.createdAt,
  })
  insertRepresentations(db, compartment.id, compartment.representations, compartment.createdAt)
  const insertFact = statement(
    db,
    `INSERT INTO items (compartment_id, kind, retention, floor, text, source_refs_json, pinned_by)
     VALUES (@compartment_id, @kind, @retention, @floor, @text, @source_refs_json, @pinned_by)`,
  )
  for (const fact of compartment.facts) {
    insertFact.run({
      compartment_id: compartment.id,
      kind: fact.kind,
      retention: fact.retention,
      floor: fact.floor,
      text: fact.text,
      source_refs_json: JSON.stringify(fact.source),
      pinned_by: fact.retention === "PIN" ? "kind" : null,
    })
  }
}

/** Adds representations of an existing compartment (a model historian's tiers arrive later than the canonical ones). */
export function insertRepresentations(
  db: Database,
  compartmentId: string,
  representations: NewCompartment["representations"],
  now: number,
): void {
  const insert = statement(
    db,
    `INSERT INTO representations (compartment_id, tier, strategy, content, tokens, survival_contract, source_refs_json,
                                  generator_model, prompt_version, created_at)
     VALUES (@compartment_id, @tier, @strategy, @content, @tokens, @survival_contract, @source_refs_json,
             @generator_model, @prompt_version, @now)
     ON CONFLICT (compartment_id, tier, strategy) DO NOTHING`,
  )
  for (const representation of representations) {
    insert.run({
      compartment_id: compartmentId,
      tier: representation.tier,
      strategy: representation.strategy,
      content: representation.content,
      tokens: representation.tokens,
      survival_contract: representation.survivalContract,
      source_refs_json: JSON.stringify(representation.sourceRefs),
      generator_model: representation.generatorModel,
      prompt_version: representation.promptVersion,
      now,
    })
  }
}

/** The session's compartments, oldest first, with representations and facts. */
export function listCompartments(db: Database, sessionId: string): StoredCompartment[] {
  const rows = statement(db, "SELECT * FROM compartments WHERE session_id = ? ORDER BY seq").all([sessionId])
  return rows.map((row) => {
    const id = String(row["id"])
    return {
      ...compartmentRow(row, sessionId),
      representations: statement(
        db,
        "SELECT tier, strategy, content, tokens, generator_model, prompt_version FROM representations WHERE compartment_id = ? ORDER BY id",
      )
        .all([id])
        .map((representation) => ({
          tier: String(representation["tier"]) as Tier,
          strategy: String(representation["strategy"]) as RepresentationStrategy,
          content: String(representation["content"]),
          tokens: Number(representation["tokens"]),
          generatorModel: representation["generator_model"] === null ? null : String(representation["generator_model"]),
          promptVersion: representation["prompt_version"] === null ? null : String(representation["prompt_version"]),
        })),
      facts: statement(db, "SELECT kind, retention, floor, text, source_refs_json FROM items WHERE compartment_id = ? ORDER BY id")
        .all([id])
        .map((fact) => factOf(fact)),
    }
  })
}

function compartmentRow(row: Row, sessionId: string): Omit<StoredCompartment, "representations" | "facts"> {
  return {
    id: String(row["id"]),
    sessionId,
    seq: Number(row["seq"]),
    firstMessageSeq: Number(row["first_message_seq"]),
    lastMessageSeq: Number(row["last_message_seq"]),
    firstTag: row["first_tag"] === null ? null : Number(row["first_tag"]),
    lastTag: row["last_tag"] === null ? null : Number(row["last_tag"]),
    outcome: row["outcome"] === null ? null : String(row["outcome"]),
    sourceTokens: Number(row["source_tokens"]),
    status: String(row["status"]) === "folded" ? "folded" : "closed",
  }
}

function factOf(fact: Row, name: (value: unknown) => string = String): Fact {
  return {
    kind: name(fact["kind"]) as Fact["kind"],
    retention: name(fact["retention"]) as Fact["retention"],
    floor: name(fact["floor"]) as Fact["floor"],
    text: String(fact["text"]),
    source: SourceRefsSchema.parse(JSON.parse(String(fact["source_refs_json"]))),
  }
}

/** A representation without its text: what a tier costs and which strategy made it. */
export type RepresentationOutline = Omit<StoredRepresentation, "content">

/**
 * A stored compartment whose representations leave out their texts (`representationContent` reads one), without its
 * outcome (a tier's text carries it): what a session keeps of every compartment in memory.
 */
export type CompartmentOutline = Omit<StoredCompartment, "representations" | "outcome"> & { representations: RepresentationOutline[] }

/** The session's compartments, oldest first, with their facts and their representations' outlines (no texts). */
export function listCompartmentOutlines(db: Database, sessionId: string): CompartmentOutline[] {
  const rows = statement(db, "SELECT * FROM compartments WHERE session_id = ? ORDER BY seq").all([sessionId])
  const representations = statement(
    db,
    "SELECT tier, strategy, tokens, generator_model, prompt_version FROM representations WHERE compartment_id = ? ORDER BY id",
  )
  const facts = statement(db, "SELECT kind, retention, floor, text, source_refs_json FROM items WHERE compartment_id = ? ORDER BY id")
  // The outlines stay in memory for the session: each row's column values are new strings, and the few distinct
  // names (tier, strategy, model, prompt version, a fact's kind, retention and floor) are kept once.
  const names = new Map<string, string>()
  const name = (value: unknown): string => {
    const text = String(value)
    const known = names.get(text)
    if (known !== undefined) return known
    names.set(text, text)
    return text
  }
  return rows.map((row) => {
    const id = String(row["id"])
    const { outcome: _outcome, ...compartment } = compartmentRow(row, sessionId)
    return {
      ...compartment,
      representations: representations.all([id]).map((representation) => ({
        tier: name(representation["tier"]) as Tier,
        strategy: name(representation["strategy"]) as RepresentationStrategy,
        tokens: Number(representation["tokens"]),
        generatorModel: representation["generator_model"] === null ? null : name(representation["generator_model"]),
        promptVersion: representation["prompt_version"] === null ? null : name(representation["prompt_version"]),
      })),
      facts: facts.all([id]).map((fact) => factOf(fact, name)),
    }
  })
}

/** The text of one representation of a compartment, or null when it has none of that tier and strategy. */
export function representationContent(db: Database, compartmentId: string, tier: Tier, strategy: RepresentationStrategy): string | null {
  const row = statement(db, "SELECT content FROM representations WHERE compartment_id = ? AND tier = ? AND strategy = ?").get([
    compartmentId,
    tier,
    strategy,
  ])
  return row === undefined ? null : String(row["content"])
}

/** Marks compartments folded into the prompt's history at `pass`. */
export function markCompartmentsFolded(db: Database, ids: readonly string[], pass: number): void {
  const update = statement(db, "UPDATE compartments SET status = 'folded', folded_pass = ? WHERE id = ? AND status != 'folded'")
  for (const id of ids) update.run([pass, id])
}

/** One applied tier choice, as recorded. */
export type SelectionRecord = {
  sessionId: string
  passId: number | null
  compartmentId: string
  /** "omitted": the default policy left the compartment out because floors yielded to the ceiling. */
  tier: Tier | "omitted"
  previousTier: Tier | "omitted" | null
  reason: string
  pressure: number
  firstDivergence: number | null
  mutationRadius: number | null
  policyVersion: string
  appliedAt: number
}

/** Records applied tier choices. */
export function recordSelections(db: Database, selections: readonly SelectionRecord[]): void {
  const insert = statement(
    db,
    `INSERT INTO selections (session_id, pass_id, compartment_id, tier, previous_tier, reason, pressure, first_divergence,
                             mutation_radius, policy_version, applied_at)
     VALUES (@session_id, @pass_id, @compartment_id, @tier, @previous_tier, @reason, @pressure, @first_divergence,
             @mutation_radius, @policy_version, @applied_at)`,
  )
  for (const selection of selections) {
    insert.run({
      session_id: selection.sessionId,
      pass_id: selection.passId,
      compartment_id: selection.compartmentId,
      tier: selection.tier,
      previous_tier: selection.previousTier,
      reason: selection.reason,
      pressure: selection.pressure,
      first_divergence: selection.firstDivergence,
      mutation_radius: selection.mutationRadius,
      policy_version: selection.policyVersion,
      applied_at: selection.appliedAt,
    })
  }
}

/** The tier last applied to each compartment of a session ("omitted" where floors yielded it out of the history). */
export function currentTiers(db: Database, sessionId: string): Map<string, Tier | "omitted"> {
  return new Map([...currentSelections(db, sessionId)].map(([id, selection]) => [id, selection.tier]))
}

/** The last selection applied to each compartment of a session: its tier and the reason it was chosen. */
export function currentSelections(db: Database, sessionId: string): Map<string, { tier: Tier | "omitted"; reason: string }> {
  const rows = statement(
    db,
    `SELECT s.compartment_id, s.tier, s.reason FROM selections s
     WHERE s.session_id = ? AND s.id = (SELECT MAX(id) FROM selections WHERE compartment_id = s.compartment_id)`,
  ).all([sessionId])
  return new Map(
    rows.map((row) => [String(row["compartment_id"]), { tier: String(row["tier"]) as Tier | "omitted", reason: String(row["reason"]) }]),
  )
}
