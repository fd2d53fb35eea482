import { escapeXml } from "./escape-xml.js"
import { formatNumber } from "./format-number.js"

/** Attribute values of an element; numbers are rounded to two decimals, `undefined` leaves the attribute out. */
export type SvgAttributes = Readonly<Record<string, string | number | undefined>>

/**
 * One element as markup. Attribute values are escaped here; `children` is markup already built by these helpers,
 * so text never reaches it unescaped (use `svgText` for text).
 */
export function svgElement(name: string, attributes: SvgAttributes, children: readonly string[] = []): string {
  const open = `<${name}${attributeText(attributes)}`
  if (children.length === 0) return `${open}/>`
  return `${open}>${children.join("")}</${name}>`
}

/** A `<text>` element (or any element holding only text, such as `<title>`) with its text escaped. */
export function svgText(attributes: SvgAttributes, text: string, name = "text"): string {
  return `<${name}${attributeText(attributes)}>${escapeXml(text)}</${name}>`
}

function attributeText(attributes: SvgAttributes): string {
  return Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${typeof value === "number" ? formatNumber(value) : escapeXml(value)}"`)
    .join("")
}
