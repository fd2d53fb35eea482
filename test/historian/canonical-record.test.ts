import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { extractCanonicalRecord, type CanonicalRecord } from "../../src/historian/canonical-record.js"
import { extractIdentifiers } from "../../src/historian/extract-identifiers.js"
import type { FactKind } from "../../src/historian/fidelity-types.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
  freshCopy,
  reasoning,
  syntheticText,
  text,
  tool,
  userMessage,
  type PartSpec,
} from "../helpers/host-messages.js"
import { ungroundedIdentifiers } from "./grounding.js"
import { tagMessages } from "./trace-episodes.js"

function record(messages: HostMessage[]): CanonicalRecord {
  return extractCanonicalRecord({ compartmentId: "c1", messages, tagOf: tagMessages(messages) })
}

function user(body: string, id = "u1"): HostMessage {
  return userMessage({ id, parts: [text(`${id}-t`, body)] })
}

function assistant(id: string, ...parts: PartSpec[]): HostMessage {
  return assistantMessage({ id, parts })
}

function said(id: string, body: string): HostMessage {
  return assistant(id, text(`${id}-t`, body))
}

function texts(result: CanonicalRecord, kind: FactKind): string[] {
  return result.facts.filter((fact) => fact.kind === kind).map((fact) => fact.text)
}

describe("extractCanonicalRecord: the user's words", () => {
  it("keeps an authored user message verbatim as a PIN constraint with its tag", () => {
    const body = "the slugify tests fail.\nConstraint: do not change the public API of src/slugify.js"
    const result = record([user(body)])
    const constraint = result.facts.find((fact) => fact.kind === "constraint")
    expect(constraint).toEqual({
      kind: "constraint",
      text: body,
      retention: "PIN",
      floor: "exact",
      source: { tags: [1], messageIds: ["u1"] },
    })
    expect(result.objective).toBe("the slugify tests fail. Constraint: do not change the public API of src/slugify.js")
  })

  it("turns a long paste into an incidental note and keeps its directive sentences as constraints", () => {
    const log = Array.from({ length: 80 }, (_, index) => `line ${index}: something happened here`).join("\n")
    const result = record([user(`Here is the log.\n${log}\nYou must never log to the console.`)])
    expect(texts(result, "constraint")).toEqual(["You must never log to the console."])
    expect(texts(result, "incidental")).toEqual([
      expect.stringMatching(/^user pasted \d+ chars: Here is the log\. \| line 0: something happened here$/),
    ])
  })

  it.each([
    ["filePath", { filePath: "docs/rules.md" }],
    ["file_path", { file_path: "docs/rules.md" }],
  ])("names an attached file by any path key of the host tool table (%s)", (_key, input) => {
    const messages = [
      userMessage({
        id: "u1",
        parts: [
          text("u1-t", "follow the rules"),
          syntheticText("u1-c", `Called the Read tool with the following input: ${JSON.stringify(input)}`),
          syntheticText("u1-f", "# Rules\nYou must never log secrets."),
        ],
      }),
    ]
    expect(record(messages).attachments.map((attachment) => attachment.name)).toEqual(["docs/rules.md"])
  })

  it("ignores synthetic text and records slash commands and 'continue' as incidental", () => {
    const messages = [
      userMessage({
        id: "u1",
        parts: [syntheticText("u1-s", "<system-reminder>be brief</system-reminder>"), text("u1-t", "/mode")],
      }),
      user("continue", "u2"),
    ]
    const result = record(messages)
    expect(texts(result, "constraint")).toEqual([])
    expect(texts(result, "incidental")).toEqual(["user: /mode", "user: continue"])
    expect(texts(result, "identifier")).toEqual([])
  })

  it.each([
    ["i undid your changes, try again. read the full file"],
    ["no, that's not it, both use the dark theme"],
    ["yeah you can undo that, it was the console logs"],
  ])("records the correction %j as a rejected alternative and a constraint", (body) => {
    const result = record([user(body)])
    expect(texts(result, "rejected_alternative")).toEqual([`user: ${body}`])
    expect(texts(result, "constraint")).toEqual([body])
  })

  it("records a harness notice as incidental and not as the objective", () => {
    const notice = "<task-notification>\n<task-id>bd0afab</task-id>\n<status>completed</status>"
    const result = record([user(notice), user("did you push?", "u2")])
    expect(texts(result, "incidental")).toEqual(["notice: <task-notification> | <task-id>bd0afab</task-id>"])
    expect(texts(result, "identifier")).toContain("bd0afab")
    expect(result.objective).toBe("did you push?")
  })
})

describe("extractCanonicalRecord: decisions and rejected alternatives", () => {
  it.each([
    [
      "a reason in the same sentence",
      "I'll use better-sqlite3 because bun:sqlite does not load in Node.",
      "I'll use better-sqlite3 because bun:sqlite does not load in Node.",
    ],
    [
      "a reason in the next sentence",
      "Let's go with the table rewrite. This is because SQLite cannot alter columns. Done.",
      "Let's go with the table rewrite. This is because SQLite cannot alter columns.",
    ],
    [
      "a problem in the previous sentence",
      "The LiveView runs in a separate process that can't access the sandbox. I need to use `:auto` mode.",
      "The LiveView runs in a separate process that can't access the sandbox. I need to use `:auto` mode.",
    ],
  ])("joins a decision with %s", (_, body, expected) => {
    expect(texts(record([user("fix it"), said("a1", body)]), "decision")).toEqual([expected])
  })

  it("merges a rejection with the decision that replaces it", () => {
    const body =
      "The auto-generated migration uses `ALTER TABLE ... modify` which SQLite doesn't support. " +
      "I need to rewrite it with a SQLite-safe table rewrite pattern."
    const result = record([user("go"), said("a1", body)])
    expect(texts(result, "rejected_alternative")).toEqual([body])
    expect(texts(result, "decision")).toEqual([])
    expect(texts(result, "identifier")).toContain("ALTER TABLE ... modify")
  })

  it("reads decisions from reasoning, marked as reasoning, but keeps reasoning out of the narrative", () => {
    const messages = [
      user("go"),
      assistant(
        "a1",
        reasoning("a1-r", "Thinking. I'll go with the Ash resource for durability."),
        text("a1-t", "Working on it."),
      ),
    ]
    const result = record(messages)
    expect(result.facts.find((fact) => fact.kind === "decision")).toMatchObject({
      text: "(reasoning) I'll go with the Ash resource for durability.",
      source: { tags: [2], messageIds: ["a1"] },
    })
    expect(result.narrative).toEqual(["Working on it."])
  })

  it("reads a statement that gives its own reason as a decision, but not a short fragment or a question", () => {
    const body =
      "Plan for the importer. Rows are written in batches of 500, so a failed batch never leaves half an invoice behind. " +
      "I'd keep the CSV parser in the worker because the upload handler must answer within two seconds. " +
      "Because of that. Would it help to stream, since the files are large?"
    const result = record([user("plan the import"), said("a1", body)])
    // Facts of one tag are listed by kind and text (the collector's order).
    expect(texts(result, "decision")).toEqual([
      "I'd keep the CSV parser in the worker because the upload handler must answer within two seconds.",
      "Rows are written in batches of 500, so a failed batch never leaves half an invoice behind.",
    ])
    expect(result.narrative).toEqual(["Plan for the importer.", "Because of that.", "Would it help to stream, since the files are large?"])
  })

  it("still joins a decision with the reason that follows it before reading reasons alone", () => {
    const body = "Let's go with the table rewrite. This is because SQLite cannot alter columns."
    expect(texts(record([user("go"), said("a1", body)]), "decision")).toEqual([body])
  })

  it("reads 'rather than' as the option a sentence turned down", () => {
    const body = "I'll write the retry loop by hand rather than pull in a backoff library for one call."
    expect(texts(record([user("go"), said("a1", body)]), "rejected_alternative")).toEqual([body])
  })

  it("reads a statement that places a defect at a file and line as a finding", () => {
    const body =
      "Found while reading: `parseHeaders` drops the last header when the body is empty (src/http/headers.ts:118). " +
      "The router lives in src/http/router.ts:12."
    const result = record([user("look at the parser"), said("a1", body)])
    expect(texts(result, "failure")).toEqual([
      "Found while reading: `parseHeaders` drops the last header when the body is empty (src/http/headers.ts:118).",
    ])
    // A place without a defect is a location, not a finding.
    expect(texts(result, "location")).toEqual(["src/http/headers.ts:118", "src/http/router.ts:12"])
  })

  it("switches the weaker readings off with their rules", () => {
    const body = "Rows are written in batches of 500, so a failed batch never leaves half an invoice behind."
    const off = { on: (name: string) => name !== "reasoned-sentences" }
    const messages = [user("go"), said("a1", body)]
    const result = extractCanonicalRecord({ compartmentId: "c1", messages, tagOf: tagMessages(messages), recognizers: off })
    expect(texts(result, "decision")).toEqual([])
  })

  it("reads an approach the agent will not lean on as a rejected alternative, and only with its rule on", () => {
    const body =
      "The mail provider retries webhooks for three days, so I don't want to rely on their retry schedule for the refunds. " +
      "I'd rather not add a second queue just for this. Would it help to poll instead of waiting?"
    const messages = [user("make refunds reliable"), said("a1", body)]
    expect(texts(record(messages), "rejected_alternative")).toEqual([
      "I'd rather not add a second queue just for this.",
      "The mail provider retries webhooks for three days, so I don't want to rely on their retry schedule for the refunds.",
    ])
    const off = { on: (name: string) => name !== "declined-approaches" }
    const without = extractCanonicalRecord({ compartmentId: "c1", messages, tagOf: tagMessages(messages), recognizers: off })
    expect(texts(without, "rejected_alternative")).toEqual([])
  })

  it("reads an option granted its merit and turned down with 'but' as a rejected alternative, only with its rule on", () => {
    const body =
      "Not worth it here. A read replica would help the monthly reports, but nobody on the team runs Postgres replication " +
      "and the reports take four minutes today. Would a cache be simpler?"
    const messages = [user("should we add a replica for the reports?"), said("a1", body)]
    expect(texts(record(messages), "rejected_alternative")).toEqual([
      "A read replica would help the monthly reports, but nobody on the team runs Postgres replication and the reports take four minutes today.",
    ])
    const off = { on: (name: string) => name !== "conceded-alternatives" }
    const without = extractCanonicalRecord({ compartmentId: "c1", messages, tagOf: tagMessages(messages), recognizers: off })
    expect(texts(without, "rejected_alternative")).toEqual([])
  })

  it("does not read a 'would …, but' about what already happened as a rejection", () => {
    const body = "The cron job would normally rotate the logs, and it did."
    expect(texts(record([user("go"), said("a1", body)]), "rejected_alternative")).toEqual([])
  })

  it("reads a discovery announced before a colon as a finding, only with its rule on", () => {
    const body =
      "Found it: the duplicate invoices came from the client retrying a POST that had timed out on our side. " +
      "That's it: nothing else to change."
    const messages = [user("why are invoices doubled?"), said("a1", body)]
    expect(texts(record(messages), "failure")).toEqual([
      "Found it: the duplicate invoices came from the client retrying a POST that had timed out on our side.",
    ])
    const off = { on: (name: string) => name !== "announced-findings" }
    const without = extractCanonicalRecord({ compartmentId: "c1", messages, tagOf: tagMessages(messages), recognizers: off })
    expect(texts(without, "failure")).toEqual([])
  })

  it("reads the consequence a decision accepted, stated after a colon, as a decision, only with its rule on", () => {
    const body =
      "The search index now lives on local disk. The downside is a slower cold start: every boot rebuilds the index " +
      "from the database, about forty seconds on production data. Catch: none."
    const messages = [user("move the index off S3"), said("a1", body)]
    expect(texts(record(messages), "decision")).toEqual([
      "The downside is a slower cold start: every boot rebuilds the index from the database, about forty seconds on production data.",
    ])
    const off = { on: (name: string) => name !== "stated-trade-offs" }
    const without = extractCanonicalRecord({ compartmentId: "c1", messages, tagOf: tagMessages(messages), recognizers: off })
    expect(texts(without, "decision")).toEqual([])
  })

  it("does not read a question as a decision", () => {
    const result = record([user("go"), said("a1", "Should I use the dark theme? I'll read the docs first.")])
    expect(texts(result, "decision")).toEqual([])
    expect(result.narrative).toEqual(["Should I use the dark theme?", "I'll read the docs first."])
  })
})

describe("extractCanonicalRecord: tool calls and failures", () => {
  it("records a failed call with its command and first error lines verbatim", () => {
    const error =
      "> build\n\n" +
      "src/theme/theme.ts(5,15): error TS2305: Module '\"@mariozechner/pi-tui\"' has no exported member 'EditorTheme'.\n" +
      "npm error code 1\n\nCommand exited with code 1"
    const publish = tool("a1-x", "bash", failed({ command: "cd /repo && npm run publish" }, error))
    const messages = [user("release"), assistant("a1", publish)]
    const result = record(messages)
    expect(texts(result, "failure")).toEqual([
      "bash cd /repo && npm run publish → " +
        "src/theme/theme.ts(5,15): error TS2305: Module '\"@mariozechner/pi-tui\"' has no exported member 'EditorTheme'.",
    ])
    expect(texts(result, "identifier")).toEqual(
      expect.arrayContaining([
        "npm run publish",
        "TS2305",
        "EditorTheme",
        "@mariozechner/pi-tui",
        "src/theme/theme.ts",
      ]),
    )
    expect(texts(result, "location")).toEqual(["src/theme/theme.ts:5:15"])
    expect(result.toolCalls).toEqual([
      { tool: "bash", summary: "bash cd /repo && npm run publish", status: "error", tag: 2 },
    ])
    expect(result.outcome).toMatch(/^failed: bash cd \/repo && npm run publish → src\/theme\/theme.ts\(5,15\): error/)
  })

  it.each([
    [
      "an OpenHands run",
      "run",
      { command: "apt-get install -y libgtest-dev" },
      "Reading package lists... Done\nE: Unable to locate package libgtest-dev",
      "E: Unable to locate package libgtest-dev",
    ],
    [
      "an edit tool error in its output",
      "edit",
      { path: "/w/match.c", command: "str_replace", old_str: "a", new_str: "b" },
      "ERROR:\nNo replacement was performed.",
      "ERROR: No replacement was performed.",
    ],
    [
      "a SWE-agent lint rejection",
      "edit",
      { command: "edit 287:295\n    x = [\nend_of_edit" },
      "Your proposed edit has introduced new syntax error(s).\nERRORS:\n- E999 SyntaxError: unmatched ')'",
      "- E999 SyntaxError: unmatched ')'",
    ],
  ])("recognises %s that completed with an error in its output", (_, name, input, output, line) => {
    const result = record([user("go"), assistant("a1", tool("a1-x", name, completed(input, output)))])
    expect(texts(result, "failure")).toEqual([expect.stringContaining(line)])
    expect(result.toolCalls[0]?.status).toBe("error")
  })

  it.each([
    [
      "file content that mentions errors",
      "read",
      { filePath: "src/a.ts" },
      "1: throw new Error('boom')\n2: const errorCount = 0",
    ],
    ["a passing test run", "bash", { command: "npm test" }, "Tests: 12 passed, 0 failed"],
    ["a grep hit in code", "bash", { command: "grep -n error src/a.ts" }, "12: console.error(x)\nfatal: in a comment"],
  ])("does not treat %s as a failure", (_, name, input, output) => {
    const result = record([user("go"), assistant("a1", tool("a1-x", name, completed(input, output)))])
    expect(texts(result, "failure")).toEqual([])
    expect(result.toolCalls[0]?.status).toBe("ok")
  })

  it("records a search that found nothing and an interrupted call as incidental", () => {
    const messages = [
      user("go"),
      assistant(
        "a1",
        tool("a1-x", "bash", failed({ command: 'grep "borderColor" src/editor.ts' }, "Command exited with code 1")),
        tool(
          "a1-y",
          "TaskOutput",
          failed({ task_id: "b0be39e" }, "The user doesn't want to proceed with this tool use."),
        ),
      ),
    ]
    const result = record(messages)
    expect(texts(result, "failure")).toEqual([])
    expect(texts(result, "incidental")).toEqual([
      'no matches: bash grep "borderColor" src/editor.ts',
      "interrupted: TaskOutput b0be39e",
    ])
  })

  it("summarises calls by their key argument and keeps non-search commands as identifiers", () => {
    const messages = [
      user("go"),
      assistant(
        "a1",
        tool("a1-a", "read", completed({ filePath: "src/a.ts", offset: 10 }, "x")),
        tool("a1-b", "grep", completed({ pattern: "TODO", path: "src" }, "none")),
        tool("a1-c", "bash", completed({ command: "cd /repo && mix compile --force 2>&1" }, "Compiled")),
        tool("a1-d", "bash", completed({ command: "ls -la /repo/lib" }, "a b")),
      ),
    ]
    const result = record(messages)
    expect(result.toolCalls.map((call) => call.summary)).toEqual([
      "read src/a.ts",
      "grep TODO in src",
      "bash cd /repo && mix compile --force 2>&1",
      "bash ls -la /repo/lib",
    ])
    expect(texts(result, "identifier")).toEqual(["src/a.ts", "src", "/repo", "mix compile --force", "/repo/lib"])
    expect(texts(result, "location")).toEqual(["src/a.ts:10"])
  })

  it("keeps the code names an edit introduced, not those it replaced", () => {
    const edit = {
      path: "src/match.c",
      old_str: "return pattern_type;",
      new_str: "pattern_type = set_cap_and_ephemeral(pattern_type, TK_TRN);\nreturn pattern_type;",
    }
    const result = record([user("go"), assistant("a1", tool("a1-x", "edit", completed(edit, "edited")))])
    expect(texts(result, "identifier")).toEqual(["TK_TRN", "set_cap_and_ephemeral", "src/match.c"])
    expect(result.entities).toEqual(["match.c"])
  })

  it("locates a SWE-agent edit in the file an earlier open left open", () => {
    const messages = [
      user("go"),
      assistant("a1", tool("a1-x", "open", completed({ command: "open pkg/numpy_handler.py 293" }, "[File: …]"))),
      assistant(
        "a2",
        tool("a2-x", "edit", completed({ command: "edit 287:296\n    required = []\nend_of_edit" }, "ok")),
      ),
    ]
    const result = record(messages)
    expect(result.facts.filter((fact) => fact.kind === "location")).toEqual([
      expect.objectContaining({
        text: "pkg/numpy_handler.py:287-296",
        source: { tags: [2, 3], messageIds: ["a1", "a2"] },
      }),
      expect.objectContaining({ text: "pkg/numpy_handler.py:293", source: { tags: [2], messageIds: ["a1"] } }),
    ])
    expect(texts(result, "identifier")).toContain("edit 287:296")
  })
})

describe("extractCanonicalRecord: identifiers", () => {
  it("lists each identifier once with every tag it occurs at", () => {
    const messages = [
      user("bump to 0.8.0 in package.json"),
      said("a1", "Bumped `package.json` to 0.8.0."),
      said("a2", "Tagged v0.8.0."),
    ]
    const result = record(messages)
    expect(result.facts.filter((fact) => fact.kind === "identifier")).toEqual([
      expect.objectContaining({ text: "0.8.0", source: { tags: [1, 2], messageIds: ["u1", "a1"] } }),
      expect.objectContaining({ text: "package.json", source: { tags: [1, 2], messageIds: ["u1", "a1"] } }),
      expect.objectContaining({
        text: "v0.8.0",
        retention: "COMPRESSIBLE",
        floor: "compact",
        source: { tags: [3], messageIds: ["a2"] },
      }),
    ])
  })

  it("drops a file name when a longer path to it is also named", () => {
    const result = record([user("look at match.c"), said("a1", "Reading src/libponyc/expr/match.c now.")])
    expect(texts(result, "identifier")).toEqual(["src/libponyc/expr/match.c"])
  })
})

describe("extractCanonicalRecord: open work and outcome", () => {
  it("keeps unfinished todo items of the last todo list", () => {
    const todos = (statuses: string[]): Record<string, unknown> => ({
      todos: statuses.map((status, index) => ({ content: `step ${index + 1}`, status })),
    })
    const messages = [
      user("plan it"),
      assistant("a1", tool("a1-x", "todowrite", completed(todos(["pending", "pending", "pending"]), "ok"))),
      assistant("a2", tool("a2-x", "todowrite", completed(todos(["completed", "in_progress", "cancelled"]), "ok"))),
    ]
    expect(texts(record(messages), "open_work")).toEqual(["todo (in_progress): step 2"])
  })

  it("records the last user request when the episode ends without a reply", () => {
    const result = record([user("first"), said("a1", "Done with the first part of it."), user("now deploy it", "u2")])
    expect(texts(result, "open_work")).toEqual(["unanswered: now deploy it"])
    expect(result.outcome).toBe("Done with the first part of it.")
  })

  it("counts 'next step' as open work only in the last assistant text", () => {
    const messages = [
      user("go"),
      said("a1", "The next step is to read the file."),
      said("a2", "Fixed it. The next step is to run the full suite."),
    ]
    expect(texts(record(messages), "open_work")).toEqual(["The next step is to run the full suite."])
  })

  it.each([
    [
      "skips filler and intros",
      ["Perfect! Let me summarise:\n\n## Summary: Fixed TruncatedText\n- pads every line"],
      "Summary: Fixed TruncatedText",
    ],
    [
      "joins a short first sentence with the next",
      ["Fixed! Tests pass now. The cache is invalidated on theme change."],
      "Tests pass now. The cache is invalidated on theme change.",
    ],
    [
      "looks back past a bare intro",
      ["The build is green and all 43 tests pass.", "Now let's run the check:"],
      "The build is green and all 43 tests pass.",
    ],
  ])("takes the outcome from the last text: %s", (_, bodies, outcome) => {
    const messages = [user("go"), ...bodies.map((body, index) => said(`a${index}`, body))]
    expect(record(messages).outcome).toBe(outcome)
  })

  it("has no outcome when the assistant said nothing", () => {
    expect(record([user("go")]).outcome).toBeNull()
  })
})

describe("extractCanonicalRecord: source, entities and determinism", () => {
  const episode = (): HostMessage[] => [
    user("fix the failing slugify test; do not change the public API of src/slugify.js"),
    assistant(
      "a1",
      text("a1-t", "The root cause is that slugify never lower-cases its input."),
      tool("a1-x", "bash", completed({ command: "node test/slugify.test.js" }, "AssertionError [ERR_ASSERTION]: …")),
      tool("a1-y", "edit", completed({ filePath: "src/slugify.js", oldString: "a", newString: "b" }, "ok")),
    ),
    said("a2", "Fixed: `SlugifyOptions` unchanged and all tests pass."),
  ]

  it("covers the tags and messages of the episode", () => {
    const result = record(episode())
    expect(result.source).toEqual({
      tags: [1, 2, 3, 4, 5],
      messageIds: ["u1", "a1", "a2"],
      firstTag: 1,
      lastTag: 5,
    })
    expect(result.compartmentId).toBe("c1")
    expect(result.entities).toEqual(["slugify.js", "AssertionError", "SlugifyOptions", "node"])
  })

  it("gives the same record twice and never mutates its input", () => {
    const messages = episode()
    const before = freshCopy(messages)
    const first = record(messages)
    const second = record(freshCopy(messages))
    expect(JSON.stringify(second)).toBe(JSON.stringify(first))
    expect(messages).toEqual(before)
  })

  it("grounds every identifier of every fact in the messages it cites", () => {
    const messages = episode()
    expect(ungroundedIdentifiers(record(messages), messages)).toEqual([])
  })

  it("grounds identifiers for arbitrary text (property)", () => {
    const fragment = fc.constantFrom(
      "src/a.ts:12",
      "`mix compile --force`",
      "v1.2.3",
      "#8abeb7",
      "bd0afab",
      "TS2305",
      "'EditorTheme'",
      "set_cap_and_ephemeral",
      "because",
      "I'll use",
      "instead of",
      "no,",
      "Error:",
      ".",
      "\n",
      "(",
      ")",
    )
    const prose = fc
      .array(fc.oneof(fragment, fc.string({ maxLength: 12 })), { maxLength: 24 })
      .map((parts) => parts.join(" "))
    fc.assert(
      fc.property(prose, prose, (userText, assistantText) => {
        for (const identifier of extractIdentifiers(assistantText)) expect(assistantText).toContain(identifier)
        const messages = [user(userText), said("a1", assistantText)]
        expect(ungroundedIdentifiers(record(messages), messages)).toEqual([])
      }),
      { numRuns: 200, seed: 12 },
    )
  })
})

describe("extractCanonicalRecord: what a successful tool output and an edit say", () => {
  it("keeps a commit's [branch hash], a search's first path:line hits, an edit's setting lines and a spec's rules", () => {
    const result = record([
      user("go"),
      assistant(
        "a1",
        tool("a1-c", "bash", completed({ command: "git commit -am 'fix'" }, "[fix/raw-body 7c1e9a4] fix\n 1 file changed")),
        tool("a1-g", "bash", completed({ command: "rg -n constructEvent apps" }, "apps/api/src/webhooks/handler.ts:131:  const event = x")),
        tool("a1-e", "edit", completed({ filePath: ".env", oldString: "PORT=3000", newString: "PORT=3100" }, "Edit applied")),
        tool("a1-r", "bash", completed({ command: "bd show gqc.7" }, "Architecture constraints:\n- No temp-file context handoff.\n")),
      ),
    ])
    expect(texts(result, "identifier")).toEqual(expect.arrayContaining(["[fix/raw-body 7c1e9a4]", "PORT=3100"]))
    expect(texts(result, "location")).toContain("apps/api/src/webhooks/handler.ts:131")
    expect(texts(result, "constraint")).toContain("spec: No temp-file context handoff.")
  })

  it("takes none of them from a failed call", () => {
    const result = record([
      user("go"),
      assistant("a1", tool("a1-c", "bash", failed({ command: "git commit -am 'fix'" }, "[main 7c1e9a4] fix\nerror: hook failed"))),
    ])
    expect(texts(result, "identifier")).not.toContain("[main 7c1e9a4]")
  })
})
