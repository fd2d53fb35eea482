import type { Database } from "../driver.js"

/**
 * The initial schema. Raw messages and parts hold the pristine host content (a part's content may only move
 * from a non-final state, such as a running tool, to its final state; after that it is never rewritten).
 * Everything the plugin decides lives in other tables, so every reduction stays reversible.
 */
export function migrateTo0001(db: Database): void {
  db.exec(`
    CREATE TABLE meta (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) STRICT;

    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      source TEXT NOT NULL CHECK (source IN ('opencode', 'replay')),
      project_id TEXT,
      directory TEXT,
      title TEXT,
      next_tag INTEGER NOT NULL DEFAULT 1,
      next_seq INTEGER NOT NULL DEFAULT 1,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE messages (
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      role TEXT NOT NULL,
      created_at INTEGER,
      info_json TEXT NOT NULL,
      stored_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, id)
    ) STRICT;
    CREATE UNIQUE INDEX messages_by_seq ON messages (session_id, seq);

    CREATE TABLE parts (
      session_id TEXT NOT NULL,
      message_id TEXT NOT NULL,
      id TEXT NOT NULL,
      position INTEGER NOT NULL,
      type TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('user', 'assistant', 'reasoning', 'tool', 'file', 'none')),
      tool TEXT,
      status TEXT,
      final INTEGER NOT NULL CHECK (final IN (0, 1)),
      content_json TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      tokens INTEGER NOT NULL,
      call_tokens INTEGER NOT NULL,
      stored_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, id),
      FOREIGN KEY (session_id, message_id) REFERENCES messages (session_id, id) ON DELETE CASCADE
    ) STRICT;
    CREATE INDEX parts_by_message ON parts (session_id, message_id);

    CREATE TABLE tags (
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      tag INTEGER NOT NULL CHECK (tag > 0),
      kind TEXT NOT NULL CHECK (kind IN ('message', 'tool', 'file')),
      message_id TEXT NOT NULL,
      part_id TEXT NOT NULL,
      tool TEXT,
      status TEXT NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'dropped')),
      created_pass INTEGER,
      dropped_pass INTEGER,
      PRIMARY KEY (session_id, tag),
      UNIQUE (session_id, part_id)
    ) STRICT;

    CREATE TABLE operations (
      id INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      kind TEXT NOT NULL CHECK (kind IN ('drop')),
      tag INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('queued', 'applied', 'cancelled')),
      reason TEXT,
      queued_at INTEGER NOT NULL,
      queued_pass INTEGER,
      applied_pass INTEGER,
      FOREIGN KEY (session_id, tag) REFERENCES tags (session_id, tag)
    ) STRICT;
    CREATE INDEX operations_by_status ON operations (session_id, status);

    CREATE TABLE passes (
      id INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      started_at INTEGER NOT NULL,
      duration_ms REAL NOT NULL,
      trigger TEXT NOT NULL CHECK (trigger IN ('transform', 'compaction', 'replay')),
      decision TEXT NOT NULL CHECK (decision IN ('execute', 'replay', 'passthrough', 'error')),
      band TEXT,
      usage_tokens INTEGER,
      window_tokens INTEGER,
      message_count INTEGER NOT NULL,
      new_parts INTEGER NOT NULL,
      new_tags INTEGER NOT NULL,
      rendered_tokens INTEGER,
      rendered_hash TEXT,
      first_divergence INTEGER,
      detail_json TEXT NOT NULL,
      error TEXT,
      UNIQUE (session_id, seq)
    ) STRICT;

    CREATE TABLE errors (
      id INTEGER PRIMARY KEY,
      session_id TEXT,
      at INTEGER NOT NULL,
      hook TEXT NOT NULL,
      code TEXT,
      message TEXT NOT NULL,
      stack TEXT
    ) STRICT;
    CREATE INDEX errors_by_session ON errors (session_id, at);

    CREATE TABLE compartments (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      first_message_seq INTEGER NOT NULL,
      last_message_seq INTEGER NOT NULL,
      first_tag INTEGER,
      last_tag INTEGER,
      episode_type TEXT,
      outcome TEXT,
      source_tokens INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('open', 'closed', 'folded')),
      created_pass INTEGER,
      folded_pass INTEGER,
      created_at INTEGER NOT NULL,
      UNIQUE (session_id, seq)
    ) STRICT;

    CREATE TABLE items (
      id INTEGER PRIMARY KEY,
      compartment_id TEXT NOT NULL REFERENCES compartments (id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      retention TEXT NOT NULL CHECK (retention IN ('PIN', 'COMPRESSIBLE', 'DISCARDABLE')),
      floor TEXT NOT NULL,
      text TEXT NOT NULL,
      source_refs_json TEXT NOT NULL,
      pinned_by TEXT
    ) STRICT;

    CREATE TABLE representations (
      id INTEGER PRIMARY KEY,
      compartment_id TEXT NOT NULL REFERENCES compartments (id) ON DELETE CASCADE,
      tier TEXT NOT NULL CHECK (tier IN ('full', 'dense', 'compact', 'anchor')),
      strategy TEXT NOT NULL CHECK (strategy IN ('canonical-record', 'source-grounded-model', 'cascaded-model')),
      content TEXT NOT NULL,
      tokens INTEGER NOT NULL,
      survival_contract TEXT NOT NULL,
      source_refs_json TEXT NOT NULL,
      generator_model TEXT,
      prompt_version TEXT,
      created_at INTEGER NOT NULL,
      UNIQUE (compartment_id, tier, strategy)
    ) STRICT;

    CREATE TABLE selections (
      id INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      pass_id INTEGER REFERENCES passes (id),
      compartment_id TEXT NOT NULL REFERENCES compartments (id) ON DELETE CASCADE,
      tier TEXT NOT NULL,
      previous_tier TEXT,
      reason TEXT NOT NULL,
      pressure REAL NOT NULL,
      first_divergence INTEGER,
      mutation_radius INTEGER,
      policy_version TEXT NOT NULL,
      applied_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX selections_by_compartment ON selections (compartment_id, id);
  `)
}
