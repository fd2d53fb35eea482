import { basename } from "./extract-identifiers.js"
import type { Fact } from "./fidelity-types.js"
import type { ToolCallReading } from "./read-tool-call.js"
import { programOf } from "./shell-commands.js"

const MAX_FILES = 3
const MAX_COMPONENTS = 2
const MAX_COMMANDS = 2

/**
 * Canonical entity names for the anchor: the files the episode changed (or, if none, read) as basenames, its most
 * mentioned components (PascalCase names), and its most used commands (program and subcommand). Each name is a
 * slice of an identifier the record keeps, so the anchor never names what the compact tier lacks.
 */
export function recordEntities(options: {
  readings: readonly ToolCallReading[]
  identifiers: readonly Fact[]
}): string[] {
  const { readings, identifiers } = options
  const touched = readings.filter((reading) => reading.touches).flatMap((reading) => reading.paths)
  const files = shortNames(mostFrequent(touched.length > 0 ? touched : readings.flatMap((reading) => reading.paths)))
  const components = identifiers
    .filter((fact) => COMPONENT.test(fact.text))
    .map((fact, index) => ({ text: fact.text, count: fact.source.tags.length, index }))
    .sort((left, right) => right.count - left.count || left.index - right.index)
    .map((entry) => entry.text)
  const commands = mostFrequent(
    readings.flatMap((reading) =>
      reading.command !== null && !reading.isSearch ? [commandName(reading.command)] : [],
    ),
  )
  const entities = [
    ...files.slice(0, MAX_FILES),
    ...components.slice(0, MAX_COMPONENTS),
    ...commands.slice(0, MAX_COMMANDS),
  ]
  return [...new Set(entities.filter((entity) => entity !== ""))]
}

const COMPONENT = /^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$/

/** Values by descending count, ties in order of first appearance. */
function mostFrequent(values: readonly string[]): string[] {
  const counts = new Map<string, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  return [...counts.entries()]
    .map(([value, count], index) => ({ value, count, index }))
    .sort((left, right) => right.count - left.count || left.index - right.index)
    .map((entry) => entry.value)
}

/** Basenames, or the last two segments where two paths share a basename. */
function shortNames(paths: readonly string[]): string[] {
  return paths.map((path) => {
    const name = basename(path)
    const clash = paths.some((other) => other !== path && basename(other) === name)
    if (!clash) return name
    const segments = path.split("/").filter((segment) => segment !== "")
    return segments.slice(-2).join("/")
  })
}

/** The program and up to two subcommand words, stopping at the first flag, path, assignment or quote. */
function commandName(command: string): string {
  const words: string[] = []
  for (const word of programOf(command).split(/\s+/)) {
    if (words.length === 3 || /^-|[\/="'`$|&;<>]/.test(word)) break
    words.push(word)
  }
  return words.join(" ")
}
