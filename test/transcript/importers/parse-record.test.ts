import { z } from "zod"
import { describe, expect, it } from "vitest"
import {
  parseJson,
  parseRecord,
  splitJsonLines,
  transcriptParseError,
} from "../../../src/transcript/importers/parse-record.js"
import { expectPluginError } from "../expect-plugin-error.js"

const Schema = z.looseObject({
  id: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ text: z.string() }))]),
  block: z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("a") }),
    z.looseObject({ type: z.literal("b") }),
  ]),
})

const VALID = { id: "x", content: "hi", block: { type: "a" }, extra: true }

describe("parseRecord", () => {
  it("returns the record with its extra fields", () => {
    expect(parseRecord(Schema, VALID, { file: "f", record: 0 })).toEqual(VALID)
  })

  it.each([
    { value: "text", problem: "f: record 3: the record: expected object, received string" },
    { value: { ...VALID, id: 1 }, problem: "f: record 3: id: expected string, received number" },
    {
      value: { ...VALID, content: undefined },
      problem: "f: record 3: content: expected string or array, received undefined",
    },
    {
      value: { ...VALID, content: [{ text: 1 }] },
      problem: "f: record 3: content[0].text: expected string, received number",
    },
    { value: { ...VALID, block: { type: "c" } }, problem: "f: record 3: block.type: expected one of 'a' | 'b'" },
  ])("explains $problem", ({ value, problem }) => {
    expectPluginError(() => parseRecord(Schema, value, { file: "f", record: 3 }), "transcript_parse", [problem])
  })

  it("prefixes the path of a nested value", () => {
    expectPluginError(
      () => parseRecord(z.looseObject({ text: z.string() }), {}, { file: "f", record: 2 }, ["parts", 4]),
      "transcript_parse",
      ["f: record 2: parts[4].text: expected string, received undefined"],
    )
  })
})

describe("transcriptParseError", () => {
  it("names the trajectory and keeps the location in data", () => {
    const error = transcriptParseError({ file: "f.jsonl", trajectory: 2, record: 7 }, "something is off")
    expect(error.message).toBe("f.jsonl#2: record 7: something is off")
    expect(error.data).toEqual({ file: "f.jsonl", trajectory: 2, record: 7, problem: "something is off" })
  })

  it("leaves the record out for a whole-file problem", () => {
    expect(transcriptParseError({ file: "f.json", record: null }, "empty").message).toBe("f.json: empty")
  })
})

describe("parseJson", () => {
  it("reports invalid JSON with the parser's reason", () => {
    expectPluginError(() => parseJson("{", { file: "f", record: 1 }), "transcript_parse", [
      "f: record 1: not valid JSON (",
    ])
  })
})

describe("splitJsonLines", () => {
  it("drops blank lines but keeps the numbering and strips CR", () => {
    expect(splitJsonLines('{"a":1}\r\n\n{"b":2}\n')).toEqual([
      { line: 0, text: '{"a":1}' },
      { line: 2, text: '{"b":2}' },
    ])
  })
})
