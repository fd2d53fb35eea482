import type { StoreFailureKind } from "../store/store-failure.js"
import { formatAge, formatWait } from "./format-age.js"

/** The store's last failure as `/ctx-status` explains it (the plugin's runtime knows it; the store cannot). */
export type StoreHealth = {
  kind: StoreFailureKind
  file: string
  /** The failure's own message. */
  message: string
  /** Since when the store has been failing, and when the plugin tries it again (epoch ms). */
  since: number
  retryAt: number
  /** How long a pass waits for another process's lock (database.busy_timeout_ms). */
  busyTimeoutMs: number
  /** Sessions whose messages wait to be written. */
  waitingSessions: number
}

const OFF =
  "storing this session's messages, tags, ctx_reduce drops and history; every model call goes out unchanged " +
  "(no tags, nothing reduced)"

/** What is wrong with the store, what is off because of it, and the fix, as lines of the report. Pure. */
export function storeHealthLines(health: StoreHealth, now: number): string[] {
  const quoted = JSON.stringify(health.file)
  const retry = formatWait(health.retryAt - now)
  const sessions = `${health.waitingSessions} session${health.waitingSessions === 1 ? "" : "s"}`
  const waiting =
    health.waitingSessions > 0
      ? `Nothing is lost: the messages of ${sessions} wait and are written once the store is usable (next try ${retry}).`
      : `Next try ${retry}.`
  if (health.kind === "busy") {
    return [
      `Store: busy since ${formatAge(now - health.since)}: another process holds the lock on ${health.file} ` +
        `(each try waits ${health.busyTimeoutMs} ms).`,
      `  Off while it lasts: ${OFF}.`,
      `  ${waiting}`,
      `  Fix: if it lasts, find the process holding it (fuser ${quoted} or lsof ${quoted}) and let it finish or stop ` +
        "it; or raise database.busy_timeout_ms.",
    ]
  }
  if (health.kind === "from-future") {
    return [
      `Store: written by a newer magic-context: ${health.message}`,
      `  Off: ${OFF}.`,
      `  ${waiting}`,
      "  Fix: upgrade magic-context, or set database.path in magic-context.jsonc to another file.",
    ]
  }
  if (health.kind === "no-driver") {
    // The message ends with the fix: the command that rebuilds better-sqlite3 for the running Node.
    return [`Store: unusable since ${formatAge(now - health.since)}: ${health.message}`, `  Off: ${OFF}.`, `  ${waiting}`]
  }
  return [
    `Store: unusable since ${formatAge(now - health.since)}: ${health.message}`,
    `  Off: ${OFF}.`,
    `  ${waiting}`,
    `  Fix: move the file aside (mv ${quoted} ${JSON.stringify(`${health.file}.broken`)}); magic-context then starts a ` +
      "new store at its next try. Or set database.path in magic-context.jsonc. OpenCode keeps its own copy of the " +
      "session either way.",
  ]
}
