#!/usr/bin/env node
// Prints the slowest test files of one or more vitest reports, ten by default:
// `node scripts/slowest-tests.mjs [--top N] REPORT.json...`. A report is either what scripts/file-times-reporter.mjs
// writes (each file's whole time: import, setup, tests and every hook) or vitest's JSON report
// (`--reporter=json --outputFile.json=FILE`), whose file time runs from the first test's start to the last test's end
// and so leaves out a `beforeAll` (where most end-to-end files run their scenario). A file run in two reports is
// listed twice, each with its report's name. `.ci/run` prints them at the end.
import { readFileSync } from "node:fs"
import { basename, relative } from "node:path"

const args = process.argv.slice(2)
const topAt = args.indexOf("--top")
const top = topAt === -1 ? 10 : Number(args[topAt + 1])
const reports = topAt === -1 ? args : args.filter((_, index) => index !== topAt && index !== topAt + 1)
if (reports.length === 0 || !Number.isInteger(top) || top < 1) {
  console.error("usage: node scripts/slowest-tests.mjs [--top N] REPORT.json...")
  process.exit(2)
}

const files = reports.flatMap((report) => {
  const json = JSON.parse(readFileSync(report, "utf8"))
  const name = basename(report, ".json")
  if (json.fileTimes === true) return json.files.map((entry) => ({ ...entry, report: name }))
  return (json.testResults ?? []).map((result) => ({
    file: relative(process.cwd(), result.name),
    report: name,
    seconds: (result.endTime - result.startTime) / 1000,
    status: result.status,
    tests: (result.assertionResults ?? []).length,
  }))
})
const slowest = [...files].sort((a, b) => b.seconds - a.seconds || (a.file < b.file ? -1 : 1)).slice(0, top)
const total = files.reduce((sum, entry) => sum + entry.seconds, 0)
console.log(`The ${slowest.length} slowest of ${files.length} test files (${total.toFixed(1)} s summed over files):`)
for (const entry of slowest) {
  console.log(`${entry.seconds.toFixed(1).padStart(8)} s  ${entry.file} (${entry.tests} tests, ${entry.status}, ${entry.report})`)
}
