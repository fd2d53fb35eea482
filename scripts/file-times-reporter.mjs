// A vitest reporter that writes each test file's whole time to a JSON file: `--reporter=./scripts/file-times-reporter.mjs`
// with MAGIC_CONTEXT_FILE_TIMES=<path> (nothing is written without it). A file's time is what its worker spent on it:
// preparing the environment, importing (collecting) the file, the setup files and running its tests with every hook.
// Vitest's JSON reporter counts only from the first test's start to the last test's end, so a file whose `beforeAll`
// runs the scenario (most end-to-end files) shows there a fraction of its time. scripts/slowest-tests.mjs reads both.
import { writeFileSync } from "node:fs"
import { relative } from "node:path"

export default class FileTimesReporter {
  onInit(vitest) {
    this.root = vitest.config.root
    this.started = Date.now()
  }

  onTestRunEnd(testModules) {
    const path = process.env["MAGIC_CONTEXT_FILE_TIMES"]
    if (!path) return
    const files = testModules.map((testModule) => {
      const diagnostic = testModule.diagnostic()
      const milliseconds = diagnostic.prepareDuration + diagnostic.collectDuration + diagnostic.setupDuration + diagnostic.duration
      return {
        file: relative(this.root, testModule.moduleId),
        project: testModule.project.name,
        seconds: Math.round(milliseconds) / 1000,
        status: testModule.state(),
        tests: [...testModule.children.allTests()].length,
      }
    })
    writeFileSync(path, `${JSON.stringify({ fileTimes: true, wallSeconds: (Date.now() - this.started) / 1000, files }, null, 2)}\n`)
  }
}
