/**
 * How an episode (compartment) is named: `c12` where the history and `/ctx-status` show it and `ctx_expand` takes it,
 * `<session id>#c12` in the store (unique across sessions). The one place either form is written or read.
 */
export function compartmentDisplayId(seq: number): string {
  return `c${seq}`
}

export function compartmentStoreId(sessionId: string, seq: number): string {
  return `${sessionId}#${compartmentDisplayId(seq)}`
}

/** True when `storeId` (as `compartmentStoreId` writes it) names an episode of the session `sessionId`. */
export function isCompartmentOf(storeId: string, sessionId: string): boolean {
  return storeId.startsWith(`${sessionId}#`)
}

/**
 * The display id a text names, written as `compartmentDisplayId` writes it (`C012` is `c12`), or null when the text
 * is not one. Digits stay digits: an id past any episode number is still read, and found nowhere.
 */
export function readCompartmentDisplayId(text: string): string | null {
  const match = /^c(\d+)$/i.exec(text)
  return match ? `c${(match[1] ?? "").replace(/^0+(?=\d)/, "")}` : null
}
