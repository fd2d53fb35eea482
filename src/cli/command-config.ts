import { writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseCommandArgs } from "./parse-command-args.js"
import { GENERATED_FILES, configExampleJsonc, configJsonSchema, configReferenceMarkdown } from "../config/generate-config-docs.js"
import { getPath, leafPaths } from "../config/json-path.js"
import { isConfigError } from "../config/load-config.js"
import { readConfigFiles } from "../config/read-config-files.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { formatTable } from "../report/format-table.js"

export const CONFIG_HELP = `magic-context config [--json] [--config FILE] [--directory DIR]
magic-context config --schema
magic-context config --write-generated

Prints the effective configuration for a project and where each value came from (a file, or "default"),
followed by any problem found in the files. --schema prints the JSON Schema of magic-context.jsonc.
--write-generated rewrites the files generated from the schema (JSON Schema, docs/configuration.md, the
example file) in the package.`

/** `magic-context config`. */
export async function commandConfig(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    options: {
      json: { type: "boolean" },
      schema: { type: "boolean" },
      "write-generated": { type: "boolean" },
      config: { type: "string" },
      directory: { type: "string" },
      help: { type: "boolean" },
    },
  })
  if (parsed.values.help) {
    io.stdout(CONFIG_HELP)
    return EXIT.ok
  }
  if (parsed.values.schema) {
    io.stdout(configJsonSchema().trimEnd())
    return EXIT.ok
  }
  if (parsed.values["write-generated"]) {
    const root = packageRoot()
    const contents: Record<keyof typeof GENERATED_FILES, string> = {
      jsonSchema: configJsonSchema(),
      reference: configReferenceMarkdown(),
      example: configExampleJsonc(),
    }
    for (const [key, relative] of Object.entries(GENERATED_FILES)) {
      writeFileSync(join(root, relative), contents[key as keyof typeof GENERATED_FILES])
      io.stdout(`wrote ${relative}`)
    }
    return EXIT.ok
  }
  const loaded = readConfigFiles({
    directory: parsed.values.directory ?? io.cwd,
    explicitFile: parsed.values.config,
    env: io.env,
  })
  if (parsed.values.json) {
    io.stdout(JSON.stringify({ config: loaded.config, sources: loaded.sources, diagnostics: loaded.diagnostics }, null, 2))
    return loaded.diagnostics.some(isConfigError) ? EXIT.problem : EXIT.ok
  }
  io.stdout(
    loaded.files.length > 0
      ? `config files (lowest precedence first): ${loaded.files.map((location) => location.file).join(", ")}`
      : "no config file found; every key has its default",
  )
  io.stdout("")
  // Walk the config's own paths: a model pattern such as "openai/gpt-4.1" holds a dot, so a dotted key cannot be split.
  const rows = leafPaths(loaded.config)
    .map((path) => ({ path, key: path.join(".") }))
    .filter(({ key }) => key in loaded.sources)
    .map(({ path, key }) => [key, JSON.stringify(getPath(loaded.config, path)), loaded.sources[key] ?? "default"])
  for (const line of formatTable(["key", "value", "source"], rows)) io.stdout(line)
  if (loaded.diagnostics.length > 0) {
    io.stderr("")
    for (const diagnostic of loaded.diagnostics) io.stderr(diagnostic.message)
  }
  if (loaded.diagnostics.some(isConfigError)) return EXIT.problem
  return EXIT.ok
}

/** The package root (two levels above this compiled file: dist/cli/ or src/cli/). */
export function packageRoot(): string {
  return dirname(dirname(dirname(fileURLToPath(import.meta.url))))
}
