import { expect } from "vitest"
import { xmlProblems } from "./well-formed-xml.js"

/** Asserts what every chart document must be: a well-formed standalone SVG with no NaN or Infinity anywhere in it. */
export function expectSoundSvg(svg: string): void {
  expect(xmlProblems(svg)).toEqual([])
  expect(svg).not.toContain("NaN")
  expect(svg).not.toContain("Infinity")
  expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
}

/** The texts the chart shows (its title, axis titles and tick labels, legend entries, labels), in document order. */
export function visibleTexts(svg: string): string[] {
  return [...svg.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)]
    .filter((match) => !/opacity="0"/.test(match[1] ?? ""))
    .map((match) => (match[2] ?? "").replaceAll("&amp;", "&").replaceAll("&lt;", "<").replaceAll("&gt;", ">"))
}
