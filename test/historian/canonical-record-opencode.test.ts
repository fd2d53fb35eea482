import type { HostPart as Part } from "../../src/transcript/host-message.js"
import { describe, expect, it } from "vitest"
import { extractCanonicalRecord, type CanonicalRecord } from "../../src/historian/canonical-record.js"
import type { FactKind } from "../../src/historian/fidelity-types.js"
import { renderTiers } from "../../src/historian/render-tiers.js"
import { recognizersWithout } from "../../src/session/recognizers.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, reasoning, text, tool, userMessage, type PartSpec } from "../helpers/host-messages.js"
import { tagMessages } from "./trace-episodes.js"

/*
 * One episode of an OpenCode session driven by a GPT-5 style model, as OpenCode 1.18 records it: the user attaches a
 * spec with @, the model reads the queue docs with webfetch, writes two files with apply_patch, runs the migration in
 * a pty (opencode-pty), reads the failing buffer, and files an issue through an MCP server. All content is invented.
 */

const ESC = "\u001b"
const SPEC_PATH = "/home/dev/relay/docs/delivery-spec.md"

const SPEC = [
  `<path>${SPEC_PATH}</path>`,
  "<type>file</type>",
  "<content>",
  "1: # Delivery spec",
  "2: ",
  "3: ## Rules",
  "4: - Every delivery must be signed with HMAC-SHA256 over the raw body.",
  "5: - Never retry a delivery that got a 4xx answer.",
  "6: ",
  "7: A receiver gets at most 6 attempts per delivery.",
  "8: Deliveries are grouped by tenant for reporting.",
  "",
  "(End of file - total 8 lines)",
  "</content>",
].join("\n")

const PATCH = [
  "*** Begin Patch",
  "*** Add File: src/delivery/retry-config.ts",
  "+export const MAX_ATTEMPTS = 6",
  "+export const BACKOFF_BASE_MS = 500",
  '+export const SIGNATURE_HEADER = "X-Relay-Signature"',
  "*** Add File: src/delivery/retry-worker.ts",
  '+import { BACKOFF_BASE_MS, MAX_ATTEMPTS } from "./retry-config.js"',
  "+",
  "+export async function retryDelivery(delivery: Delivery): Promise<void> {",
  "+  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {",
  "+    if (await send(delivery)) return",
  "+    await sleep(BACKOFF_BASE_MS * 2 ** attempt)",
  "+  }",
  "+}",
  "*** End Patch",
].join("\n")

const QUEUE_DOCS = [
  "# Visibility timeout",
  "",
  "When a worker receives a message, the queue hides it from other workers.",
  "The visibility timeout defaults to 30 seconds and can be raised to 12 hours.",
  "Batch receive requires queue-client 3.4.0 or later.",
  "Messages are delivered in no particular order.",
].join("\n")

const PTY_BUFFER = [
  '<pty_output id="pty_5c2e9a71" status="exited">',
  `00001| ${ESC}[36m> relay@0.4.0 migrate${ESC}[39m`,
  `00002| ${ESC}[36m> node scripts/migrate.js${ESC}[39m`,
  "00003| ",
  `00004| ${ESC}[31mError: migration 0008_delivery_attempts failed${ESC}[39m`,
  `00005| ${ESC}[2m    at runMigration (scripts/migrate.js:41:11)${ESC}[22m`,
  `00006| ${ESC}[2m    at async main (scripts/migrate.js:88:3)${ESC}[22m`,
  `00007| ${ESC}[33m  cause: column "attempt_count" of relation "deliveries" already exists${ESC}[39m`,
  "",
  "(End of buffer - total 7 lines)",
  "</pty_output>",
].join("\n")

const ISSUE =
  '{"id":"4e1f0c2a-7b3d-4a5e-9c8f-0d1e2f3a4b5c","identifier":"PLAT-1234","title":"Migration 0008 collides with attempt_count","url":"https://linear.app/acme/issue/PLAT-1234"}'

/** The file a user attached with @, as OpenCode sends it: the Read call, its output, then the file part. */
function attached(id: string): PartSpec {
  return (owner): Part[] => [
    {
      id: `${id}-call`,
      ...owner,
      type: "text",
      synthetic: true,
      text: `Called the Read tool with the following input: {"filePath":"${SPEC_PATH}"}`,
    },
    { id: `${id}-content`, ...owner, type: "text", synthetic: true, text: SPEC },
    { id, ...owner, type: "file", mime: "text/plain", filename: "docs/delivery-spec.md", url: `file://${SPEC_PATH}` },
  ]
}

function episode(): HostMessage[] {
  return [
    userMessage({
      id: "u1",
      model: { providerID: "openai", modelID: "gpt-5" },
      parts: [text("u1-t", "@docs/delivery-spec.md add delivery retries as the spec says, then run the migration"), attached("u1-f")],
    }),
    assistantMessage({
      id: "a1",
      parts: [
        reasoning("a1-r", "**Planning retries**\n\nThe spec caps attempts at 6; I need the queue's visibility timeout first."),
        tool("a1-w", "webfetch", completed({ url: "https://docs.example.dev/queue/visibility", format: "markdown" }, QUEUE_DOCS)),
        text("a1-t", "The queue hides a message for 30 seconds by default, so a retry must finish inside that window."),
        tool("a1-p", "apply_patch", completed({ patchText: PATCH }, "Success. Updated the following files:\nA src/delivery/retry-config.ts\nA src/delivery/retry-worker.ts")),
        tool(
          "a1-s",
          "pty_spawn",
          completed(
            { command: "npm", args: ["run", "migrate"], description: "Run the migrations" },
            "<pty_spawned>\nID: pty_5c2e9a71\nTitle: Run the migrations\nCommand: npm run migrate\nPID: 51234\nStatus: running\n</pty_spawned>",
          ),
        ),
        tool("a1-o", "pty_read", completed({ id: "pty_5c2e9a71" }, PTY_BUFFER)),
        tool("a1-i", "linear_create_issue", completed({ title: "Migration 0008 collides with attempt_count", teamId: "platform" }, ISSUE)),
        text("a1-e", "The migration fails because attempt_count already exists; I filed PLAT-1234 to reconcile the schema."),
      ],
    }),
  ]
}

function record(messages: HostMessage[] = episode()): CanonicalRecord {
  return extractCanonicalRecord({ compartmentId: "c7", messages, tagOf: tagMessages(messages) })
}

function texts(result: CanonicalRecord, kind: FactKind): string[] {
  return result.facts.filter((fact) => fact.kind === kind).map((fact) => fact.text)
}

const FAILURE =
  'pty_read → Error: migration 0008_delivery_attempts failed | cause: column "attempt_count" of relation "deliveries" already exists'

describe("extractCanonicalRecord: an OpenCode GPT-5 episode", () => {
  it("has the files, the spec, the issue and its URL as identifiers", () => {
    expect(texts(record(), "identifier")).toEqual(
      expect.arrayContaining([
        SPEC_PATH,
        "src/delivery/retry-config.ts",
        "src/delivery/retry-worker.ts",
        "PLAT-1234",
        "https://linear.app/acme/issue/PLAT-1234",
        "npm run migrate",
      ]),
    )
  })

  it("has the setting lines the patch added", () => {
    expect(texts(record(), "identifier")).toEqual(
      expect.arrayContaining(["export const MAX_ATTEMPTS = 6", "export const BACKOFF_BASE_MS = 500", 'export const SIGNATURE_HEADER = "X-Relay-Signature"']),
    )
  })

  it("pins the attached spec's rule lines as spec constraints, each once", () => {
    const result = record()
    const specs = result.facts.filter((fact) => fact.kind === "constraint" && fact.text.startsWith("spec: "))
    expect(specs.map((fact) => fact.text)).toEqual([
      "spec: A receiver gets at most 6 attempts per delivery.",
      "spec: Every delivery must be signed with HMAC-SHA256 over the raw body.",
      "spec: Never retry a delivery that got a 4xx answer.",
      // The fetched page's requirement and limit bind the work too (binding-doc-rules); its tag comes later.
      "spec: Batch receive requires queue-client 3.4.0 or later.",
      "spec: The visibility timeout defaults to 30 seconds and can be raised to 12 hours.",
    ])
    for (const fact of specs.filter((entry) => !/Batch receive|visibility timeout/.test(entry.text))) {
      expect(fact).toMatchObject({ retention: "PIN", source: { messageIds: ["u1"] } })
    }
    for (const fact of specs.filter((entry) => /Batch receive|visibility timeout/.test(entry.text))) {
      expect(fact).toMatchObject({ retention: "PIN", source: { messageIds: ["a1"] } })
    }
  })

  it("pins no spec constraint with the rules that find them switched off", () => {
    const messages = episode()
    const result = extractCanonicalRecord({
      compartmentId: "c7",
      messages,
      tagOf: tagMessages(messages),
      recognizers: recognizersWithout(["spec-lists", "doc-rule-lines", "binding-doc-rules"]),
    })
    expect(texts(result, "constraint").filter((fact) => fact.startsWith("spec: "))).toEqual([])
  })

  it("records the pty failure with its cause, stripped, and no other failure", () => {
    const result = record()
    expect(texts(result, "failure")).toEqual([FAILURE])
    expect(result.toolCalls.map((call) => [call.tool, call.status])).toEqual([
      ["webfetch", "ok"],
      ["apply_patch", "ok"],
      ["pty_spawn", "ok"],
      ["pty_read", "error"],
      ["linear_create_issue", "ok"],
    ])
  })

  it("keeps the attached spec's document lines for DENSE", () => {
    expect(record().attachments).toEqual([
      {
        tag: 1,
        name: SPEC_PATH,
        lines: [
          "- Every delivery must be signed with HMAC-SHA256 over the raw body.",
          "- Never retry a delivery that got a 4xx answer.",
          "A receiver gets at most 6 attempts per delivery.",
        ],
      },
    ])
  })

  it("holds the episode as the model saw it in FULL", () => {
    const full = record().full ?? ""
    expect(full).toContain(`patchText: ${PATCH}`)
    expect(full).toContain('00007|   cause: column "attempt_count" of relation "deliveries" already exists')
    expect(full).not.toContain(ESC)
  })
})

describe("renderTiers: an OpenCode GPT-5 episode", () => {
  it("shows DENSE the tool results with their kept lines and added lines", () => {
    const dense = renderTiers(record()).dense ?? ""
    expect(dense).toContain(
      [
        "- §3§ webfetch https://docs.example.dev/queue/visibility (ok)",
        "  The visibility timeout defaults to 30 seconds and can be raised to 12 hours.",
        "  Batch receive requires queue-client 3.4.0 or later.",
      ].join("\n"),
    )
    expect(dense).toContain(
      [
        "- §5§ apply_patch src/delivery/retry-config.ts, src/delivery/retry-worker.ts (ok)",
        "  src/delivery/retry-config.ts:",
        "    + export const MAX_ATTEMPTS = 6",
        "    + export const BACKOFF_BASE_MS = 500",
        '    + export const SIGNATURE_HEADER = "X-Relay-Signature"',
        "  src/delivery/retry-worker.ts:",
        '    + import { BACKOFF_BASE_MS, MAX_ATTEMPTS } from "./retry-config.js"',
      ].join("\n"),
    )
    expect(dense).toContain("- §7§ pty_read (error)")
    expect(dense).toContain(`Failures:\n- ${FAILURE}`)
    expect(dense).toContain('- §8§ linear_create_issue (ok)\n  {"id":"4e1f0c2a-7b3d-4a5e-9c8f-0d1e2f3a4b5c","identifier":"PLAT-1234"')
    expect(dense).toContain(`Attached:\n- §1§ ${SPEC_PATH}\n  - Every delivery must be signed with HMAC-SHA256 over the raw body.`)
  })

  it("shows DENSE no line that no recognizer kept, and no escape code", () => {
    const dense = renderTiers(record()).dense ?? ""
    for (const line of ["Messages are delivered in no particular order.", "Deliveries are grouped by tenant for reporting.", "at async main", "PID: 51234"]) {
      expect(dense).not.toContain(line)
    }
    // The error block keeps the first frame of its stack (where it was thrown), not the rest.
    expect(dense).toContain("at runMigration (scripts/migrate.js:41:11)")
    expect(dense).not.toMatch(/\u001b|\[3\dm|\d{5}\|/)
  })

  // A command's last two non-empty lines are kept; for the opencode-pty tools those were the plugin's framing
  // (`(End of buffer - total 7 lines)`, `</pty_output>`, `</pty_spawned>`), which the pty row now names as framing.
  it("spends no DENSE line on the pty plugin's framing", () => {
    const dense = renderTiers(record()).dense ?? ""
    expect(dense).not.toMatch(/<\/pty_output>|<\/pty_spawned>|\(End of buffer/)
  })

  it("shows COMPACT the failure and identifiers, but no raw output line and no line a pin says", () => {
    const compact = renderTiers(record()).compact ?? ""
    expect(compact).toContain(FAILURE)
    expect(compact).toContain("PLAT-1234")
    expect(compact).toContain("export const MAX_ATTEMPTS = 6")
    // A limit the fetched page stated is pinned (in the ledger at every tier), so COMPACT does not note it again.
    expect(compact).not.toContain("Noted:")
    expect(compact).not.toContain("The visibility timeout defaults to 30 seconds")
    for (const raw of [
      "Tool results:",
      "Attached:",
      "+ ",
      "Status: running",
      "(End of buffer",
      '"identifier":"PLAT-1234"',
    ]) {
      expect(compact).not.toContain(raw)
    }
  })

  it("renders the same bytes for the same episode", () => {
    expect(renderTiers(record(episode()))).toEqual(renderTiers(record(episode())))
  })
})

describe("extractCanonicalRecord: a spec the model reads with OpenCode's read tool", () => {
  it("pins the items of its rules list, read through the line numbers", () => {
    const messages = [
      userMessage({ id: "u1", parts: [text("u1-t", "read the delivery spec and follow it")] }),
      assistantMessage({ id: "a1", parts: [tool("a1-r", "read", completed({ filePath: SPEC_PATH }, SPEC))] }),
    ]
    expect(texts(record(messages), "constraint")).toEqual(
      expect.arrayContaining([
        "spec: Every delivery must be signed with HMAC-SHA256 over the raw body.",
        "spec: Never retry a delivery that got a 4xx answer.",
      ]),
    )
  })
})
