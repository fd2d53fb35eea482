import { expect } from "vitest"
import { xmlProblems } from "./well-formed-xml.js"

/** Asserts what every chart document must be: well-formed, with no NaN or Infinity anywhere in it. */
export function expectSoundSvg(svg: string): void {
  expect(xmlProblems(svg)).toEqual([])
  expect(svg).not.toContain("NaN")
  expect(svg).not.toContain("Infinity")
  expect(svg.startsWith("<svg ")).toBe(true)
}

/** The y coordinates in one path's data ("M1 2L3 4" gives [2, 4]). */
export function pathYs(d: string): number[] {
  return [...d.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((match) => Number(match[2]))
}

/** The `d` attribute of every `<path>` with the given stroke or fill colour. */
export function pathsColoured(svg: string, color: string): string[] {
  return [...svg.matchAll(/<path d="([^"]*)"[^>]*(?:stroke|fill)="([^"]*)"/g)]
    .filter((match) => match[2] === color)
    .map((match) => match[1] ?? "")
}
