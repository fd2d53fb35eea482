import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Temp directories made with `mkdtempSync`; `cleanup()` removes every one of them (call it in `afterEach`). */
export type TempDirs = {
  make(prefix: string): string
  cleanup(): void
}

/** Creates an empty set of temp directories. */
export function createTempDirs(): TempDirs {
  const made: string[] = []
  return {
    make(prefix) {
      const dir = mkdtempSync(join(tmpdir(), `mc-${prefix}-`))
      made.push(dir)
      return dir
    },
    cleanup() {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** An isolated home: `HOME` and every `XDG_*` base directory point into one fresh temp directory. */
export type TempHome = {
  root: string
  home: string
  configHome: string
  dataHome: string
  env: Record<string, string>
}

/** Makes a temp home under `dirs`; the directories exist and are empty. */
export function createTempHome(dirs: TempDirs): TempHome {
  const root = dirs.make("home")
  const home = join(root, "home")
  const configHome = join(root, "xdg-config")
  const dataHome = join(root, "xdg-data")
  const cacheHome = join(root, "xdg-cache")
  const stateHome = join(root, "xdg-state")
  for (const dir of [home, configHome, dataHome, cacheHome, stateHome]) mkdirSync(dir)
  return {
    root,
    home,
    configHome,
    dataHome,
    env: {
      HOME: home,
      XDG_CONFIG_HOME: configHome,
      XDG_DATA_HOME: dataHome,
      XDG_CACHE_HOME: cacheHome,
      XDG_STATE_HOME: stateHome,
    },
  }
}
