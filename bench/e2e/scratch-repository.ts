/**
 * The scratch git repository the benchmark's session works on: a small invoicing service written out
 * deterministically, so every configuration starts from byte-identical files and the tools return real output.
 */

/** The modules under `src/`, each with a test under `test/`. */
export const MODULES = [
  "accounts",
  "ledger",
  "invoices",
  "currency",
  "reports",
  "audit",
  "storage",
  "scheduler",
] as const

export type ModuleName = (typeof MODULES)[number]

const NOUNS = ["invoice", "payment", "refund", "credit", "deposit", "transfer", "fee", "rebate", "charge", "balance"]
const VERBS = ["total", "settle", "round", "collect", "reconcile", "post", "split", "merge", "verify", "archive"]

/** Functions per module; about 60 tokens each, so a module is about 2,000 tokens. */
const FUNCTIONS_PER_MODULE = 32

/** Every file of the repository, by path relative to its root. */
export function scratchRepositoryFiles(): Record<string, string> {
  const files: Record<string, string> = {
    "README.md": readme(),
    "docs/notes.md": notes(),
    "package.json": `${JSON.stringify({ name: "ledger-service", version: "1.4.0", type: "module" }, null, 2)}\n`,
  }
  MODULES.forEach((module, index) => {
    files[`src/${module}.ts`] = moduleSource(module, index)
    files[`test/${module}.test.ts`] = moduleTest(module, index)
  })
  return files
}

/** The exported name of a module's function `index` (e.g. `settleInvoiceCurrency3`). */
export function functionName(module: ModuleName, index: number): string {
  const verb = VERBS[(index * 3 + module.length) % VERBS.length] as string
  const noun = NOUNS[(index * 7 + module.length * 2) % NOUNS.length] as string
  return `${verb}${capitalize(noun)}${capitalize(module)}${index}`
}

/** The line of function `index` that multiplies by its rate; the session's edits rewrite some of these. */
export function rateLine(module: ModuleName, index: number): string {
  const kind = NOUNS[(index + module.length) % NOUNS.length] as string
  return `    if (entry.kind === "${kind}") total += entry.amount * ${index + 1}`
}

function moduleSource(module: ModuleName, moduleIndex: number): string {
  const lines = [
    `// ${module}.ts: the ${module} part of the ledger service.`,
    `import type { Entry } from "./ledger.js"`,
    "",
    `export const ${module.toUpperCase()}_VERSION = "1.${moduleIndex}.0"`,
    "",
  ]
  for (let index = 0; index < FUNCTIONS_PER_MODULE; index += 1) {
    const name = functionName(module, index)
    const noun = NOUNS[(index + module.length) % NOUNS.length] as string
    lines.push(`/** ${capitalize(module)} helper ${index}: the ${noun} total of a batch, capped at the limit. */`)
    lines.push(`export function ${name}(entries: Entry[], limit = ${(index + 1) * 125}): number {`)
    lines.push("  let total = 0")
    lines.push("  for (const entry of entries) {")
    lines.push(rateLine(module, index))
    lines.push("  }")
    if ((index + moduleIndex) % 6 === 0)
      lines.push(`  // TODO(${module}-${index}): round half to even, as finance asked`)
    lines.push("  return Math.min(total, limit)")
    lines.push("}")
    lines.push("")
  }
  return lines.join("\n")
}

function moduleTest(module: ModuleName, moduleIndex: number): string {
  const lines = [`import { describe, expect, it } from "vitest"`]
  const names = [0, 1, 2, 3].map((index) => functionName(module, index + moduleIndex))
  lines.push(`import { ${names.join(", ")} } from "../src/${module}.js"`, "", `describe("${module}", () => {`)
  names.forEach((name, index) => {
    const noun = NOUNS[(index + moduleIndex + module.length) % NOUNS.length] as string
    lines.push(`  it("caps the ${noun} total of ${name}", () => {`)
    lines.push(`    expect(${name}([{ kind: "${noun}", amount: 1000 }], 10)).toBe(10)`)
    lines.push("  })")
  })
  lines.push("})", "")
  return lines.join("\n")
}

function readme(): string {
  const lines = ["# ledger-service", "", "Invoicing and ledger helpers. Modules:", ""]
  for (const module of MODULES) lines.push(`- \`src/${module}.ts\`: ${module} helpers and their rates.`)
  lines.push(
    "",
    "Run the tests with `npm test`. Rates are integers; rounding is still truncation (see docs/notes.md).",
    "",
  )
  return lines.join("\n")
}

function notes(): string {
  const lines = ["# Notes", ""]
  for (let index = 0; index < 40; index += 1) {
    const noun = NOUNS[index % NOUNS.length] as string
    const verb = VERBS[(index * 3) % VERBS.length] as string
    lines.push(
      `${index + 1}. Finance wants the ${noun} flow to ${verb} before the nightly run; owner: team ${index % 4}.`,
    )
  }
  lines.push("")
  return lines.join("\n")
}

function capitalize(word: string): string {
  return `${word.charAt(0).toUpperCase()}${word.slice(1)}`
}
