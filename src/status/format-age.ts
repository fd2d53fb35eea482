/** How long ago something happened, as the status report prints it ("12s ago", "3 min ago", "1.5 h ago"). */
export function formatAge(ms: number): string {
  if (ms < 0 || !Number.isFinite(ms)) return "just now"
  if (ms < 60_000) return `${Math.round(ms / 1000)}s ago`
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min ago`
  return `${(ms / 3_600_000).toFixed(1)} h ago`
}

/** How long until something happens ("in 3s", "now"). */
export function formatWait(ms: number): string {
  if (ms <= 0 || !Number.isFinite(ms)) return "now"
  if (ms < 60_000) return `in ${Math.ceil(ms / 1000)}s`
  return `in ${Math.ceil(ms / 60_000)} min`
}
