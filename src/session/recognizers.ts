/**
 * Every named rule that decides what a tier keeps: the fact recognizers of the canonical record and of DENSE, and
 * the rows of the host tool table. Each has a one-line reason and the fixture transcripts it was tuned on
 * (`developedOn`), so the Lab can switch any one off (`lab --without NAME`: what does it buy?) and score every
 * transcript without the rules tuned on it (`lab --folds`: does it generalize?). Pure data; imports nothing.
 */

/** A rule and why it exists; `developedOn` names the transcripts (file names) it was tuned on. */
export type RecognizerInfo = { reason: string; developedOn: readonly string[] }

/**
 * Rules tuned on the pooled fixtures after seeing which of their probes were lost: they count as seen on every
 * transcript of both original sets.
 */
const POOLED_FIXTURES: readonly string[] = [
  "pi-sonnet45-large-session.jsonl",
  "claudecode-opus46-spotter-gqc.jsonl",
  "openhands-llama4-ponyc.jsonl",
  "sweagent-gpt4-pydicom-1458.traj",
  "pi-ledger-webhooks.jsonl",
  "pi-harvest-httpx.jsonl",
  "claudecode-logship-leak.jsonl",
  "pi-kvgate-watch.jsonl",
]
/** Rules written from a description of sessions the project cannot see, tested on hand-written inputs only. */
const UNSEEN: readonly string[] = []
/** Widenings of rules first written blind, made after seeing what the OpenCode-shaped synthetic sessions lost. */
const OPENCODE: readonly string[] = ["opencode-quayside-berths.json", "opencode-shelfwise-notices.json", "opencode-verdant-irrigation.json"]

export const RECOGNIZERS = {
  "edit-setting-lines": { reason: "a value an edit assigned (PORT=3100) is asked for exactly later", developedOn: POOLED_FIXTURES },
  "commit-hash": { reason: "the [branch hash] of a commit names where a fix landed", developedOn: POOLED_FIXTURES },
  "search-hits": { reason: "the first path:line hits of a search say where something is", developedOn: POOLED_FIXTURES },
  "spec-lists": { reason: "items under a rules heading of a document are constraints for all later work", developedOn: POOLED_FIXTURES },
  "error-cause": { reason: "an error's cause is often a few lines below its first line", developedOn: UNSEEN },
  "error-answer": { reason: "a completed call whose output is an error answer (HTTP 4xx/5xx, invalid key) failed", developedOn: UNSEEN },
  "doc-rule-lines": { reason: "lines of a read, fetched or attached document that state rules (must, never, only)", developedOn: UNSEEN },
  "doc-limit-lines": { reason: "lines that state defaults, limits, timeouts and quotas are asked for exactly", developedOn: UNSEEN },
  "doc-version-lines": { reason: "lines that state versions and compatibility decide what may be used", developedOn: UNSEEN },
  "doc-decision-lines": { reason: "lines that state a decision or recommendation (instead of, deprecated, because)", developedOn: UNSEEN },
  "code-setting-lines": { reason: "settings a read file or code block assigns (const TIMEOUT = 30) are asked for exactly", developedOn: UNSEEN },
  "id-lines": { reason: "lines carrying ids a tool returned (PLAT-1234, UUIDs, hashes, URLs) are referred to later", developedOn: UNSEEN },
  "result-summaries": { reason: "test, build and lint summaries (3 failed, 12 passed) are the state of the work", developedOn: UNSEEN },
  "edit-added-lines": { reason: "an edit's added lines are what the file now says", developedOn: UNSEEN },
  "code-blocks": { reason: "a code block in the assistant's text (a plan's schema) is what later work follows", developedOn: UNSEEN },
  "long-user-rules": { reason: "rule lines of a long user message (a plan handoff) bind the agent like short directives", developedOn: UNSEEN },
  "rule-words-wide": { reason: "cannot, may not, no new and not permitted state a rule as surely as must not does", developedOn: OPENCODE },
  "quantity-limits": { reason: "a number with a unit (30 days, 50 requests) states a limit even without a limit word", developedOn: OPENCODE },
  "rule-sentences": {
    reason: "a long line is judged sentence by sentence, and a long message's list item is one point kept whole",
    developedOn: OPENCODE,
  },
  "typed-settings": { reason: "a setting declared with modifiers and a type (public val TIMEOUT: Int = 30) is a setting too", developedOn: OPENCODE },
  "more-document-lines": { reason: "a read or fetched document keeps 10 DENSE lines, not 6: a reference states more facts than a command prints", developedOn: OPENCODE },
  "first-stack-frame": { reason: "an error's first stack frame says where it was thrown; the frames below it repeat the stack", developedOn: OPENCODE },
  "long-user-decisions": {
    reason: "a long user message (a handoff) records decisions and rejected approaches with their reasons",
    developedOn: ["opencode-verdant-irrigation.json", "opencode-shelfwise-notices.json"],
  },
  "labelled-ids": {
    reason: "a tool's `… ID: value` line names what later calls pass back (a library id, a record key)",
    developedOn: ["opencode-quayside-berths.json"],
  },
  "compact-key-lines": {
    reason: "an episode's first error causes, rules and limits of tool output stay in COMPACT as a line each",
    developedOn: ["opencode-quayside-berths.json", "opencode-shelfwise-notices.json", "opencode-verdant-irrigation.json"],
  },
  "so-reason": {
    reason: "'A, so the B' argues for the decision before it: the decision keeps it as its reason",
    developedOn: ["pi-harvest-httpx.jsonl"],
  },
  "reasoned-sentences": {
    reason: "a statement that gives its own reason (because, so that, ', so the') records why the work is as it is",
    developedOn: ["opencode-quayside-berths.json", "opencode-shelfwise-notices.json"],
  },
  "located-findings": {
    reason: "a statement that points at a file and line while naming a defect says where the bug is",
    developedOn: ["opencode-quayside-berths.json"],
  },
  "grep-hits": {
    reason: "a grep run through a shell lists hits like a search tool, and a hit with its line says what the code says there",
    developedOn: ["pi-sonnet45-large-session.jsonl"],
  },
  "binding-doc-rules": {
    reason: "the limits and rules of a fetched page or loaded instructions bind later work like an attached document's",
    developedOn: ["opencode-quayside-berths.json", "opencode-shelfwise-notices.json"],
  },
  "definition-hits": {
    reason: "of a search's hits, the one that declares the name (function, class, const) is where it is defined",
    developedOn: ["pi-ledger-webhooks.jsonl"],
  },
  "code-comments": {
    reason: "a source file's code states no rules or limits (`require X`, `max-height: 100px`); its comments may",
    developedOn: ["claudecode-opus46-spotter-gqc.jsonl"],
  },
  "failure-location": {
    reason: "a test runner prints where the failing test is (path:line) on its own line just above the assertion",
    developedOn: ["opencode-verdant-irrigation.json"],
  },
  "echoed-key-lines": {
    reason: "of more key lines than COMPACT holds, those whose distinctive words the agent's own text repeats are the ones it acted on",
    developedOn: ["opencode-quayside-berths.json", "opencode-shelfwise-notices.json"],
  },
  "tool-ids": { reason: "ids a tool returned (an issue key, a record id) are identifiers for later steps", developedOn: UNSEEN },
  "reference-lines": {
    reason: "a reference's commands with their options, signatures, return shapes and headings are reused by exact spelling",
    developedOn: UNSEEN,
  },
  "reader-instructions": {
    reason: "a line telling its reader what to keep or how to summarize is no fact about the work, whatever words it uses",
    developedOn: UNSEEN,
  },
  "held-actions": {
    reason: "a sentence of a long message that holds an action back until the user says so binds like never",
    developedOn: UNSEEN,
  },
  "question-answers": {
    reason: "a user's answer through a host's question tool is their decision, binding like a typed message",
    developedOn: UNSEEN,
  },
  "declined-approaches": {
    reason: "'I don't want to rely on X', 'I'd rather not …' turns an approach down as surely as a rejection verb",
    developedOn: ["opencode-hollybank-reminders.json"],
  },
  "conceded-alternatives": {
    reason: "'X would help …, but …' grants an option its merit and turns it down for the reason after 'but'",
    developedOn: ["pi-1-larchway-arrivals.jsonl"],
  },
  "announced-findings": {
    reason: "'That's it: …', 'Found it: …' announce what the cause turned out to be and state it after the colon",
    developedOn: ["pi-1-larchway-arrivals.jsonl"],
  },
  "stated-trade-offs": {
    reason: "'The downside is …: …', 'The trade-off: …' state the consequence a decision accepted, part of its reason",
    developedOn: ["claudecode-logship-leak.jsonl"],
  },
  "resolved-locations": {
    reason: "a place the agent names by file name (client.py:88) is the file a call of the episode gave the path of",
    developedOn: ["pi-kvgate-watch.jsonl"],
  },
  "dotnet-locations": {
    reason: ".NET prints a frame's place as `in path:line 36`; it is a location, named in that spelling",
    developedOn: ["opencode-shelfwise-notices.json"],
  },
  "whole-reasons": {
    reason: "a decision that gives its own reason is quoted whole in COMPACT up to 280 characters: a cut lands in the clause it justifies",
    developedOn: ["opencode-quayside-berths.json"],
  },
  "reasoning-plans": {
    reason: "a plan the agent lays out only in its reasoning is what it then carries out; the answer does not repeat it",
    developedOn: UNSEEN,
  },
  "reasoning-design": {
    reason: "a reasoning sentence whose code names the episode's later edits and commands take up is the design they carry out",
    developedOn: ["claudecode-opus46-spotter-gqc.jsonl"],
  },
  "stated-identifiers": {
    reason: "a path a command wrote and a program's version stamp in its output are named exactly by later steps",
    developedOn: ["opencode-wavecrest-episodes.json"],
  },
  "whole-version-stamps": {
    reason: "a short version stamp line is named whole later: its build, commit and platform go with the version",
    developedOn: ["pi-1-larchway-arrivals.jsonl"],
  },
  "shell-documents": {
    reason: "a page fetched with curl, a prose file or a --help text printed is content: the errors it documents are not the call's",
    developedOn: ["pi-1-larchway-arrivals.jsonl"],
  },
  "prefixed-ids": {
    reason: "a type-prefixed id an API or CLI lists (tn_7QH2M4, cus_NffrFeUfNV2Hib) is passed back exactly by later calls",
    developedOn: ["pi-1-larchway-arrivals.jsonl"],
  },
  "hard-rules-first": {
    reason: "of more rule lines than a document may pin, those that bind with a value (must not exceed 250 MiB) go before advice",
    developedOn: ["opencode-wavecrest-episodes.json"],
  },
  "varied-shapes": {
    reason: "past three lines of one shape (a manifest's requires, a listing's rows), a line of another shape is kept first",
    developedOn: ["pi-kvgate-watch.jsonl", "pi-1-larchway-arrivals.jsonl", "opencode-wavecrest-episodes.json"],
  },
  "printed-page-lines": {
    reason: "a page printed through the shell is a document: it keeps as many DENSE lines as a read page, not a command's four",
    developedOn: ["pi-1-larchway-arrivals.jsonl"],
  },
  "negative-results": {
    reason: "an empty file, a search with no match or a status command that printed nothing is a fact the agent acts on",
    developedOn: UNSEEN,
  },
  "recall-by-reference": {
    reason: "a rare name the recent conversation repeats from a condensed episode points at the source line it came from",
    developedOn: UNSEEN,
  },
} as const satisfies Record<string, RecognizerInfo>

export type RecognizerName = keyof typeof RECOGNIZERS

/** Which rules are on. The engine runs with all of them; the Lab switches some off. */
export type Recognizers = { on(name: string): boolean }

export const ALL_RECOGNIZERS: Recognizers = { on: () => true }

/** The rules tuned on a transcript (by file name, `#N` ignored): what its leave-one-out fold switches off. */
export function rulesTunedOn(transcriptFile: string): string[] {
  const name = transcriptFile.replace(/#.*$/, "").split("/").at(-1) ?? transcriptFile
  return Object.entries(RECOGNIZERS as Record<string, RecognizerInfo>)
    .filter(([, info]) => info.developedOn.includes(name))
    .map(([rule]) => rule)
}

/** All rules but the named ones. */
export function recognizersWithout(names: Iterable<string>): Recognizers {
  const off = new Set(names)
  return off.size === 0 ? ALL_RECOGNIZERS : { on: (name) => !off.has(name) }
}
