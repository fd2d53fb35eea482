/**
 * The scripted session: five user turns over the scratch repository, 67 model calls in all, once or in two rounds
 * (the same five turns again in the same session). Every configuration gets exactly these replies in this order
 * (the mock picks a step by the turn it is in and how many main requests of that turn it has answered), so
 * differences in the requests come from OpenCode and the plugin alone. Paths are relative to the project, so the
 * replies are byte-identical across sandboxes; every edit reads its file earlier in the same turn, because OpenCode
 * refuses to edit a file the session has not read.
 */
import { functionName, rateLine } from "./scratch-repository.js"

/** A scripted model reply: one tool call, or the text that ends the turn. */
export type ScriptedReply =
  { kind: "tool"; name: string; args: Record<string, unknown> } | { kind: "text"; text: string }

/** One user turn: the words `opencode run` is given, and the model's replies in order (the last one is text). */
export type ScriptedTurn = { prompt: string[]; steps: ScriptedReply[] }

const read = (filePath: string): ScriptedReply => ({ kind: "tool", name: "read", args: { filePath } })
const bash = (command: string, description: string): ScriptedReply => ({
  kind: "tool",
  name: "bash",
  args: { command, description },
})
/**
 * OpenCode's grep lists files in the order ripgrep's parallel walk finds them, which varies from run to run, so every
 * grep call names a single file through `include`; searches across files go through bash and `sort`.
 */
const grep = (pattern: string, path: string, include: string): ScriptedReply => ({
  kind: "tool",
  name: "grep",
  args: { pattern, path, include },
})
const glob = (pattern: string): ScriptedReply => ({ kind: "tool", name: "glob", args: { pattern } })
const edit = (filePath: string, oldString: string, newString: string): ScriptedReply => ({
  kind: "tool",
  name: "edit",
  args: { filePath, oldString, newString },
})
const write = (filePath: string, content: string): ScriptedReply => ({
  kind: "tool",
  name: "write",
  args: { filePath, content },
})
const text = (body: string): ScriptedReply => ({ kind: "text", text: body })

/**
 * What one round of the script changes. The second round repeats the first's steps on other helpers and files, so
 * its edits find what they replace in the repository the first round left: every helper index is shifted (by a
 * multiple of 6, so an edited TODO lands on a helper that has one), the change log and the index module are new
 * files (a `write` may replace only a file the turn has read), and the README edit starts from the first round's
 * wording.
 */
export type ScriptRound = {
  release: string
  shift: number
  changes: string
  index: string
  readme: { from: string; to: string }
}

export const FIRST_ROUND: ScriptRound = {
  release: "1.4.1",
  shift: 0,
  changes: "docs/changes.md",
  index: "src/index.ts",
  readme: { from: "rounding is still truncation", to: "rounding is half to even" },
}

export const SECOND_ROUND: ScriptRound = {
  release: "1.4.2",
  shift: 12,
  changes: "docs/changes-1.4.2.md",
  index: "src/modules.ts",
  readme: { from: "rounding is half to even", to: "rounding is half to even everywhere" },
}

/** The script's turns for `rounds` rounds (1 or 2), in order. */
export function scriptedRounds(rounds: 1 | 2): ScriptedTurn[] {
  return [FIRST_ROUND, SECOND_ROUND].slice(0, rounds).flatMap((round) => scriptedSession(round))
}

const todo = (module: string, index: number): string =>
  `  // TODO(${module}-${index}): round half to even, as finance asked`
const rounded = (round: ScriptRound, module: string, index: number): string =>
  `  // ${module}-${index}: rounds half to even since ${round.release}`
/** An edit of a rate line; the newline keeps `* 2` from also matching `* 21`. */
const halfEven = (filePath: string, line: string): ScriptedReply =>
  edit(filePath, `${line}\n`, `${line} // half to even via roundHalfEven\n`)

const changes = (round: ScriptRound): string =>
  [
    "# Changes",
    "",
    `## ${round.release}`,
    "",
    `- currency: rounding is half to even (currency-${3 + round.shift}, currency-${9 + round.shift}).`,
    "- currency: a test for the capped total.",
    `- audit: rate of helper ${5 + round.shift} goes through roundHalfEven.`,
    "",
  ].join("\n")

const INDEX = [
  'export * as accounts from "./accounts.js"',
  'export * as ledger from "./ledger.js"',
  'export * as invoices from "./invoices.js"',
  'export * as currency from "./currency.js"',
  'export * as reports from "./reports.js"',
  'export * as audit from "./audit.js"',
  'export * as storage from "./storage.js"',
  'export * as scheduler from "./scheduler.js"',
  "",
].join("\n")

const currencyTest = (round: ScriptRound): string =>
  [
    'describe("currency", () => {',
    `  it("keeps the cap of ${functionName("currency", 3 + round.shift)}", () => {`,
    `    expect(${functionName("currency", 3 + round.shift)}([], 5)).toBe(0)`,
    "  })",
  ].join("\n")

const COMMIT = "git -c user.email=bench@example.invalid -c user.name=bench commit -qm 'Round half to even'"

/** One round of the session, turn by turn. */
export function scriptedSession(round: ScriptRound): ScriptedTurn[] {
  /** A helper index of the first round, shifted to this round's helper. */
  const at = (index: number): number => index + round.shift
  return [
    {
      prompt: ["survey", "the", "ledger", "service", "and", "list", "its", "modules"],
      steps: [
        bash("ls -R src test docs", "List the repository"),
        read("README.md"),
        glob("src/*.ts"),
        read("src/ledger.ts"),
        read("src/accounts.ts"),
        bash("grep -rn 'TODO(' src | sort", "List the TODOs"),
        read("src/invoices.ts"),
        bash("wc -l src/*.ts test/*.ts", "Count lines"),
        read("src/currency.ts"),
        grep("export function", "src", "currency.ts"),
        read("docs/notes.md"),
        bash("git log --format=%s", "Show history"),
        read("src/reports.ts"),
        text(
          "SURVEY-DONE. The service has eight modules (accounts, ledger, invoices, currency, reports, audit, " +
            "storage, scheduler), each a set of capped total helpers with integer rates and a small vitest file. " +
            "Rounding is truncation everywhere; the TODOs ask for half-to-even rounding.",
        ),
      ],
    },
    {
      prompt: ["make", "currency", "round", "half", "to", "even", "and", "note", "the", "change"],
      steps: [
        read("src/currency.ts"),
        edit("src/currency.ts", todo("currency", at(3)), rounded(round, "currency", at(3))),
        bash("git diff --stat", "Diff summary"),
        read("test/currency.test.ts"),
        edit("test/currency.test.ts", 'describe("currency", () => {', currencyTest(round)),
        grep("TODO\\(currency", "src", "currency.ts"),
        edit("src/currency.ts", todo("currency", at(9)), rounded(round, "currency", at(9))),
        bash("git diff src/currency.ts", "Show the currency diff"),
        read("src/audit.ts"),
        halfEven("src/audit.ts", rateLine("audit", at(5))),
        read("src/storage.ts"),
        write(round.changes, changes(round)),
        bash("git status --short", "Status"),
        text(
          `FIX-DONE. currency-${at(3)} and currency-${at(9)} now round half to even, the currency test checks ` +
            `the cap, audit helper ${at(5)} goes through roundHalfEven, and ${round.changes} records it under ` +
            `${round.release}.`,
        ),
      ],
    },
    {
      prompt: ["apply", "the", "same", "rounding", "to", "reports", "and", "invoices"],
      steps: [
        read("src/reports.ts"),
        grep("limit = 1[0-9][0-9][0-9]", "src", "reports.ts"),
        read("src/scheduler.ts"),
        halfEven("src/reports.ts", rateLine("reports", at(2))),
        read("test/reports.test.ts"),
        bash("grep -c 'export function' src/*.ts", "Count helpers"),
        read("src/invoices.ts"),
        halfEven("src/invoices.ts", rateLine("invoices", at(7))),
        bash("git diff --stat", "Diff summary"),
        read(round.changes),
        edit(
          round.changes,
          "- audit: rate",
          `- reports, invoices: helpers ${at(2)} and ${at(7)} round half to even.\n- audit: rate`,
        ),
        glob("test/*.test.ts"),
        read("test/ledger.test.ts"),
        text(
          `REPORTS-DONE. reports helper ${at(2)} and invoices helper ${at(7)} round half to even; ` +
            "the change log lists both.",
        ),
      ],
    },
    {
      prompt: ["finish", "scheduler", "storage", "and", "accounts", "and", "add", "an", "index"],
      steps: [
        read("src/scheduler.ts"),
        halfEven("src/scheduler.ts", rateLine("scheduler", at(11))),
        read("src/storage.ts"),
        edit("src/storage.ts", todo("storage", at(6)), rounded(round, "storage", at(6))),
        bash("grep -n TODO src/*.ts | head -40", "Remaining TODOs"),
        read("src/accounts.ts"),
        halfEven("src/accounts.ts", rateLine("accounts", at(1))),
        read("src/ledger.ts"),
        grep("Entry", "src", "ledger.ts"),
        bash("git diff | head -60", "Show the diff"),
        write(round.index, INDEX),
        read(round.index),
        text(`SCHEDULER-DONE. scheduler, storage and accounts are done and ${round.index} re-exports every module.`),
      ],
    },
    {
      prompt: ["wrap", "up", "update", "the", "readme", "and", "commit"],
      steps: [
        bash("git status --short", "Status"),
        bash("git diff --stat", "Diff summary"),
        read(round.changes),
        edit(round.changes, `## ${round.release}\n`, `## ${round.release} (rounding)\n`),
        read("README.md"),
        edit("README.md", round.readme.from, round.readme.to),
        bash("grep -rln 'half to even' src docs README.md | sort", "Files with the new rounding"),
        bash(`git add -A && ${COMMIT} && git log --format=%s`, "Commit"),
        bash("git show --stat --format=%s HEAD", "Show the commit"),
        read("src/currency.ts"),
        bash("wc -l src/*.ts", "Count lines"),
        text(
          `WRAP-DONE. Committed 'Round half to even'; README and ${round.changes} describe the new rounding.`,
        ),
      ],
    },
  ]
}
