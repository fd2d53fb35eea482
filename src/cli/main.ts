import { commandConfig, CONFIG_HELP } from "./command-config.js"
import { commandDoctor, DOCTOR_HELP } from "./command-doctor.js"
import { commandLab, LAB_HELP } from "./command-lab.js"
import { commandReplay, REPLAY_HELP } from "./command-replay.js"
import { commandSetup, SETUP_HELP } from "./command-setup.js"
import { commandShow, SHOW_HELP } from "./command-show.js"
import { commandStatus, STATUS_HELP } from "./command-status.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { closestName } from "../config/closest-name.js"
import { packageVersion } from "./package-version.js"

const COMMANDS: Record<string, { run: (io: CliIo) => Promise<ExitCode>; summary: string; help: string }> = {
  replay: { run: commandReplay, summary: "run the engine over a recorded transcript, print per-turn composition", help: REPLAY_HELP },
  show: { run: commandShow, summary: "the prompt the engine sends at one model call (episodes by tier, pins, drops); --html a report", help: SHOW_HELP },
  lab: { run: commandLab, summary: "the Context Lab: probe survival per policy and window, tier quality, session ecology", help: LAB_HELP },
  status: { run: commandStatus, summary: "the status report of a stored session (what /ctx-status shows)", help: STATUS_HELP },
  doctor: { run: commandDoctor, summary: "check the install: OpenCode entry, config, database, tokenizer, compaction", help: DOCTOR_HELP },
  setup: { run: commandSetup, summary: "add magic-context to opencode.json with the recommended settings (--dry-run shows the diff)", help: SETUP_HELP },
  config: { run: commandConfig, summary: "print the effective config and where each value came from", help: CONFIG_HELP },
}

/** The commands `magic-context` runs, in the order the help lists them. */
export function commandNames(): string[] {
  return Object.keys(COMMANDS)
}

/** The top-level help text. */
export function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length))
  return [
    "magic-context: progressive-fidelity context management for OpenCode",
    "",
    "usage: magic-context <command> [options]",
    "",
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    "",
    "magic-context <command> --help shows a command's options; magic-context --version the version.",
    "Example: magic-context replay fixtures/opencode-session/session.json",
  ].join("\n")
}

/** Runs the CLI; returns the exit code. Usage errors exit 2, a command that found a problem exits 1. */
export async function runCli(io: CliIo): Promise<ExitCode> {
  const [name, ...rest] = io.args
  if (!name) {
    io.stderr(mainHelp())
    return EXIT.usage
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.stdout(mainHelp())
    return EXIT.ok
  }
  if (name === "--version" || name === "-v" || name === "version") {
    io.stdout(`magic-context ${packageVersion()}`)
    return EXIT.ok
  }
  const command = COMMANDS[name]
  if (!command) {
    const near = closestName(name, Object.keys(COMMANDS))
    io.stderr(`unknown command "${name}"${near ? ` (did you mean "${near}"?)` : ""}\n\n${mainHelp()}`)
    return EXIT.usage
  }
  // `-h` is every command's short help flag, whatever options it declares.
  if (rest.includes("-h") || rest.includes("--help")) {
    io.stdout(command.help)
    return EXIT.ok
  }
  try {
    return await command.run({ ...io, args: rest })
  } catch (error) {
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
      io.stderr(`${error.message}\n\n${command.help}`)
      return EXIT.usage
    }
    throw error
  }
}
