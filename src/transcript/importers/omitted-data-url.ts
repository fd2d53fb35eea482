/**
 * A short stand-in for inline binary data (images pasted into a session): a valid `data:` URL with an empty payload
 * that records the media type and how many characters were left out, so a transcript never carries megabytes of base64.
 */
export function omittedDataUrl(mime: string, omittedChars: number): string {
  return `data:${mime};omitted-chars=${omittedChars},`
}

/** Keeps short URLs as they are and replaces long `data:` URLs with an {@link omittedDataUrl} placeholder. */
export function shortenDataUrl(url: string, mime: string): string {
  if (!url.startsWith("data:") || url.length <= MAX_INLINE_DATA_URL_CHARS) return url
  return omittedDataUrl(mime, url.length)
}

const MAX_INLINE_DATA_URL_CHARS = 1024
