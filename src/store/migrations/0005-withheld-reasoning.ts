import type { Database } from "../driver.js"

/**
 * `parts.withheld_pass`: the execute pass that took a reasoning part out of the prompt because the provider's
 * reasoning rule made it invalid there (Anthropic's preserved-thinking prefix check: a block whose prefix changed).
 * NULL while the part is sent. The raw content stays as stored; only the prompt leaves it out, from that pass on.
 */
export function migrateTo0005(db: Database): void {
  db.exec("ALTER TABLE parts ADD COLUMN withheld_pass INTEGER")
}
