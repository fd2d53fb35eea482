import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONFIG_HELP } from "../../src/cli/command-config.js"
import { DOCTOR_HELP } from "../../src/cli/command-doctor.js"
import { REPLAY_HELP } from "../../src/cli/command-replay.js"
import { commandNames, mainHelp } from "../../src/cli/main.js"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { REPO_ROOT } from "../e2e/harness/opencode-harness.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()
let home: TempHome
let cwd: string

beforeAll(() => {
  home = createTempHome(dirs)
  cwd = dirs.make("cwd")
})

afterAll(() => {
  dirs.cleanup()
})

const run = (...args: string[]) => runCliCaptured(args, { env: home.env, cwd })

describe("mainHelp", () => {
  it("lists every command with its summary and an example", () => {
    const help = mainHelp()
    expect(help).toContain("usage: magic-context <command> [options]")
    expect(help).toMatch(/^ {2}replay {2}run the engine over a recorded transcript/m)
    expect(help).toMatch(/^ {2}doctor {2}check the install/m)
    expect(help).toMatch(/^ {2}config {2}print the effective config/m)
    expect(help).toContain("magic-context <command> --help")
  })
})

describe("runCli", () => {
  it.each([["--help"], ["-h"], ["help"]])("prints the help for %s and exits 0", async (flag) => {
    const { code, io } = await run(flag)
    expect(code).toBe(0)
    expect(io.out).toEqual([mainHelp()])
    expect(io.err).toEqual([])
  })

  it("prints the help on stderr and exits 2 without a command", async () => {
    const { code, io } = await run()
    expect(code).toBe(2)
    expect(io.out).toEqual([])
    expect(io.stderrText()).toBe(mainHelp())
  })

  it.each([["--version"], ["-v"], ["version"]])("prints the package's version for %s and exits 0", async (flag) => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
    const { code, io } = await run(flag)
    expect(code).toBe(0)
    expect(io.out).toEqual([`magic-context ${version}`])
  })

  it.each([
    ["replay", REPLAY_HELP],
    ["doctor", DOCTOR_HELP],
  ])("prints %s's help for -h and --help, whatever else is given, and exits 0", async (command, help) => {
    for (const flag of ["-h", "--help"]) {
      const { code, io } = await run(command, "--bogus", flag)
      expect(code).toBe(0)
      expect(io.out).toEqual([help])
    }
  })

  it("suggests the command a slip of the keyboard meant", async () => {
    const { code, io } = await run("replya", "x.jsonl")
    expect(code).toBe(2)
    expect(io.stderrText()).toBe(`unknown command "replya" (did you mean "replay"?)\n\n${mainHelp()}`)
  })

  it("names an unknown command, prints the help and exits 2", async () => {
    const { code, io } = await run("frobnicate", "--json")
    expect(code).toBe(2)
    expect(io.out).toEqual([])
    expect(io.stderrText()).toBe(`unknown command "frobnicate"\n\n${mainHelp()}`)
  })

  it.each([
    ["config", CONFIG_HELP],
    ["doctor", DOCTOR_HELP],
    ["replay", REPLAY_HELP],
  ])("refuses an unknown flag of %s with exit 2 and that command's help", async (command, help) => {
    const { code, io } = await run(command, "--bogus")
    expect(code).toBe(2)
    expect(io.out).toEqual([])
    expect(io.stderrText()).toBe(`unknown option --bogus\n\n${help}`)
  })

  it.each(commandNames())("suggests the option of %s an unknown one is a slip away from", async (command) => {
    const { code, io } = await run(command, "--hepl")
    expect(code).toBe(2)
    expect(io.out).toEqual([])
    expect(io.stderrText().split("\n\n")[0]).toBe("unknown option --hepl (did you mean --help?)")
  })

  it.each([
    ["replay", "--windw", "--window"],
    ["replay", "--fixed-token", "--fixed-tokens"],
    ["status", "--directroy", "--directory"],
    ["doctor", "--direcotry", "--directory"],
  ])("takes %s %s for %s", async (command, given, meant) => {
    const { code, io } = await run(command, given, "1")
    expect(code).toBe(2)
    expect(io.stderrText().split("\n\n")[0]).toBe(`unknown option ${given} (did you mean ${meant}?)`)
  })

  it.each([
    ["config", "--config"],
    ["doctor", "--directory"],
    ["replay", "--db"],
  ])("refuses %s %s without its value with exit 2", async (command, flag) => {
    const { code, io } = await run(command, flag)
    expect(code).toBe(2)
    expect(io.stderrText()).toContain(flag)
  })

  it.each([
    ["config", CONFIG_HELP],
    ["doctor", DOCTOR_HELP],
    ["replay", REPLAY_HELP],
  ])("prints the help of %s for --help and exits 0", async (command, help) => {
    const { code, io } = await run(command, "--help")
    expect(code).toBe(0)
    expect(io.out).toEqual([help])
  })
})
