import { readConfigFiles } from "../config/read-config-files.js"
import type { Config } from "../config/schema.js"
import { encodingForModel } from "../tokens/encoding-for-model.js"
import type { TokenCounterPool } from "../tokens/tiktoken-counter.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { CliIo } from "./cli-io.js"

/** The config a Lab command runs with: the usual files plus `--config`, each diagnostic printed to stderr. */
export function loadLabConfig(io: CliIo, explicitFile: string | undefined): Config {
  const loaded = readConfigFiles({ directory: io.cwd, explicitFile, env: io.env })
  for (const diagnostic of loaded.diagnostics) io.stderr(diagnostic.message)
  return loaded.config
}

/**
 * The Lab's token counter: the configured encoding, else the default family's. One counter for every transcript, so
 * token figures compare across them.
 */
export function labCounter(pool: TokenCounterPool, config: Config): TokenCounter {
  return pool.counterFor(encodingForModel({ settings: config.tokenizer }))
}
