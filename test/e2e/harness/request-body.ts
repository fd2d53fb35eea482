import type { IncomingMessage } from "node:http"

/**
 * Calls `onBody` with a request's whole body, decoded once all its bytes have arrived: a chunk may end inside a
 * multi-byte character (`§`), and decoding chunk by chunk would turn it into two replacement characters.
 */
export function onRequestBody(request: IncomingMessage, onBody: (raw: string) => void): void {
  const chunks: Buffer[] = []
  request.on("data", (chunk: Buffer) => void chunks.push(chunk))
  request.on("end", () => onBody(Buffer.concat(chunks).toString("utf8")))
}
