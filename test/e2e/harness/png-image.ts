import { inflateSync } from "node:zlib"

/** A decoded PNG: its size and its pixels as RGB(A) bytes, row after row. */
export type PngImage = { width: number; height: number; channels: 3 | 4; pixels: Uint8Array }

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/**
 * Decodes an 8-bit RGB or RGBA PNG without interlacing (what Chromium's screenshots are) with node:zlib alone: the
 * IDAT chunks inflated and each row's filter undone. Throws on anything else, so a test never reads a wrong image.
 */
export function decodePng(data: Buffer): PngImage {
  if (!data.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG: the signature is missing")
  let offset = 8
  let header: { width: number; height: number; depth: number; colorType: number; interlace: number } | null = null
  const chunks: Buffer[] = []
  while (offset + 8 <= data.length) {
    const length = data.readUInt32BE(offset)
    const type = data.toString("latin1", offset + 4, offset + 8)
    const body = data.subarray(offset + 8, offset + 8 + length)
    if (type === "IHDR") {
      header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8] ?? 0, colorType: body[9] ?? 0, interlace: body[12] ?? 0 }
    } else if (type === "IDAT") chunks.push(body)
    else if (type === "IEND") break
    offset += 12 + length
  }
  if (!header) throw new Error("PNG without IHDR")
  const channels = header.colorType === 2 ? 3 : header.colorType === 6 ? 4 : null
  if (header.depth !== 8 || channels === null || header.interlace !== 0) {
    throw new Error(`unsupported PNG: depth ${header.depth}, colour type ${header.colorType}, interlace ${header.interlace}`)
  }
  const raw = inflateSync(Buffer.concat(chunks))
  const stride = header.width * channels
  const pixels = new Uint8Array(stride * header.height)
  for (let y = 0; y < header.height; y++) {
    const filter = raw[y * (stride + 1)]
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? (pixels[y * stride + x - channels] ?? 0) : 0
      const up = y > 0 ? (pixels[(y - 1) * stride + x] ?? 0) : 0
      const upLeft = y > 0 && x >= channels ? (pixels[(y - 1) * stride + x - channels] ?? 0) : 0
      const value = row[x] ?? 0
      const predicted =
        filter === 0 ? 0 : filter === 1 ? left : filter === 2 ? up : filter === 3 ? (left + up) >> 1 : filter === 4 ? paeth(left, up, upLeft) : NaN
      if (Number.isNaN(predicted)) throw new Error(`PNG row ${y}: unknown filter ${filter}`)
      pixels[y * stride + x] = (value + predicted) & 0xff
    }
  }
  return { width: header.width, height: header.height, channels, pixels }
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c
  const pa = Math.abs(p - a)
  const pb = Math.abs(p - b)
  const pc = Math.abs(p - c)
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

/** How many pixels have each colour (`#rrggbb`, alpha ignored). */
export function colourCounts(image: PngImage): Map<string, number> {
  const counts = new Map<string, number>()
  for (let index = 0; index < image.pixels.length; index += image.channels) {
    const hex = `#${[0, 1, 2].map((channel) => (image.pixels[index + channel] ?? 0).toString(16).padStart(2, "0")).join("")}`
    counts.set(hex, (counts.get(hex) ?? 0) + 1)
  }
  return counts
}
