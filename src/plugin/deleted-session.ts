/**
 * The id of the session a `session.deleted` event names: OpenCode 1.18.33 sends `sessionID` beside the session's
 * `info`; the SDK's type names only `info` (its `id`). Null when the event names neither (never a throw: it is read
 * before the guard records anything for the session).
 */
export function deletedSessionId(properties: unknown): string | null {
  if (properties === null || typeof properties !== "object") return null
  const { sessionID, info } = properties as { sessionID?: unknown; info?: { id?: unknown } | null }
  if (typeof sessionID === "string") return sessionID
  return typeof info?.id === "string" ? info.id : null
}
