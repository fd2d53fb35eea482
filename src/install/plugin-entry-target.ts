import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, isAbsolute, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** The npm name of this package, as a `plugin` entry, a Pi `npm:` source or a `package.json` names it. */
/** One entry of a host's plugin list and the file that lists it. */
export type PluginEntry = { file: string; entry: string }

export const PACKAGE_NAME = "magic-context"

/** What a host's plugin entry loads: an npm package by name, or a file or folder on disk. */
export type EntryTarget = { kind: "package"; name: string; spec: string } | { kind: "path"; path: string }

/**
 * What an entry of a `plugin` list points at. Paths and `file:` URLs resolve against the folder of the config file
 * that lists them (OpenCode's rule and Pi's); `npm:` sources (Pi) and bare names are packages. Pure.
 */
export function entryTarget(entry: string, configDir: string): EntryTarget {
  if (entry.startsWith("file:")) {
    try {
      return { kind: "path", path: fileURLToPath(entry) }
    } catch {
      return { kind: "path", path: resolve(configDir, entry.slice("file:".length)) }
    }
  }
  if (entry.startsWith(".") || isAbsolute(entry)) return { kind: "path", path: resolve(configDir, entry) }
  const spec = entry.startsWith("npm:") ? entry.slice("npm:".length) : entry
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0)
  return { kind: "package", name: at === -1 ? spec : spec.slice(0, at), spec }
}

/**
 * The key two entries share when the host loads them once: OpenCode drops an entry whose package name or resolved
 * file it already has (a `file://` URL and the plain path of the same file are one entry; a package folder and the
 * `dist/index.js` inside it are two, and load the plugin twice).
 */
export function loadKey(target: EntryTarget): string {
  return target.kind === "package" ? `npm:${target.name}` : `path:${target.path.replace(/\/+$/, "")}`
}

/**
 * The root of the package a path belongs to (the nearest folder upwards with a `package.json`), with its name; null
 * when there is none. Reads the disk.
 */
export function packageOf(path: string): { root: string; name: string | null; manifest: Record<string, unknown> } | null {
  let dir = existsSync(path) && statSync(path).isDirectory() ? path : dirname(path)
  for (;;) {
    const manifestFile = join(dir, "package.json")
    if (existsSync(manifestFile)) {
      try {
        const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, unknown>
        return { root: dir, name: typeof manifest["name"] === "string" ? manifest["name"] : null, manifest }
      } catch {
        return { root: dir, name: null, manifest: {} }
      }
    }
    const parent = dirname(dir)
    if (parent === dir) return null
    dir = parent
  }
}

/**
 * True when the entry loads magic-context: the package by name, or a path inside a package named magic-context
 * (whatever the folder is called: `opencode plugin <checkout>` writes the checkout's folder). A path that no longer
 * exists counts when it is spelled with the package's name (`…/magic-context/dist/index.js`). Reads the disk.
 */
export function loadsMagicContext(target: EntryTarget): boolean {
  if (target.kind === "package") return target.name === PACKAGE_NAME
  if (packageOf(target.path)?.name === PACKAGE_NAME) return true
  return !existsSync(target.path) && target.path.includes(PACKAGE_NAME)
}

/** Which of the package's entry points a host loads: OpenCode's server plugin, OpenCode's TUI plugin, Pi's extension. */
export type ExportName = "." | "./tui" | "pi"

/**
 * The file a path entry makes the host import: the file itself, or for a package folder its entry point for
 * `exportName` ("." for the server plugin, "./tui" for OpenCode's TUI, the `pi.extensions` of a Pi package).
 */
export function entryModule(path: string, exportName: ExportName): string {
  if (!existsSync(path) || !statSync(path).isDirectory()) return path
  const manifest = packageOf(path)?.manifest ?? {}
  if (exportName === "pi") {
    const pi = manifest["pi"] as { extensions?: unknown } | undefined
    const first = Array.isArray(pi?.extensions) ? pi.extensions[0] : undefined
    return resolve(path, typeof first === "string" ? first : "extensions")
  }
  const exportsField = manifest["exports"]
  const exported = typeof exportsField === "object" && exportsField !== null ? (exportsField as Record<string, unknown>)[exportName] : undefined
  const target =
    typeof exported === "string"
      ? exported
      : typeof exported === "object" && exported !== null && typeof (exported as Record<string, unknown>)["default"] === "string"
        ? ((exported as Record<string, unknown>)["default"] as string)
        : exportName === "." && typeof manifest["main"] === "string"
          ? manifest["main"]
          : "index.js"
  return resolve(path, target)
}

/** Why the host cannot load an entry for magic-context, with the fix in one line; null when it can. Reads the disk. */
export function unloadableReason(options: {
  target: EntryTarget
  configDir: string
  exportName: ExportName
  /** OpenCode's cache folder; null for Pi, whose npm packages live in node_modules folders. */
  cacheDir: string | null
}): { problem: string; fix: string } | null {
  const { target } = options
  if (target.kind === "package") {
    const { cacheDir } = options
    if ((cacheDir !== null && installedInCache(cacheDir, target.name)) || resolvableFrom(options.configDir, target.name)) return null
    const where = cacheDir === null ? "installed where Pi looks for it" : `in OpenCode's plugin cache (${join(cacheDir, "packages")}) nor installed where the config is`
    const host = cacheDir === null ? "Pi" : "OpenCode"
    return {
      problem: `the package "${target.name}" is ${cacheDir === null ? "not " : "neither "}${where}; it is not published on npm yet, so ${host} starts without it`,
      fix: "point the entry at a checkout or an installed tarball: run `magic-context setup` from there (the README's install section)",
    }
  }
  if (!existsSync(target.path)) {
    return {
      problem: `the entry points at ${target.path}, which does not exist`,
      fix: "fix the path, or run `magic-context setup` from a checkout or an installed tarball to write a working entry",
    }
  }
  const module = entryModule(target.path, options.exportName)
  if (existsSync(module)) return null
  const root = packageOf(target.path)?.root ?? target.path
  return {
    problem: `the entry points at ${target.path}, which has no build (${module} is missing)`,
    fix: `build it: cd ${root} && npm ci (or npm run build)`,
  }
}

/** True when OpenCode's plugin cache holds the package (`<cache>/packages/<name>@<version or latest>/node_modules/<name>`). */
function installedInCache(cacheDir: string, name: string): boolean {
  const packages = join(cacheDir, "packages")
  if (!existsSync(packages)) return false
  return readdirSync(packages)
    .filter((folder) => folder === name || folder.startsWith(`${name}@`))
    .some((folder) => existsSync(join(packages, folder, "node_modules", name, "package.json")))
}

/** True when a node_modules folder at or above `dir` holds the package (how Node and Bun resolve a bare name). */
function resolvableFrom(dir: string, name: string): boolean {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, "node_modules", name, "package.json"))) return true
    if (dirname(current) === current) return false
  }
}

/** OpenCode's cache folder: `$XDG_CACHE_HOME/opencode`, by default `~/.cache/opencode`. */
export function openCodeCacheDir(env: Record<string, string | undefined>): string {
  const xdg = env["XDG_CACHE_HOME"]
  return join(xdg && xdg.length > 0 ? xdg : join(env["HOME"] ?? "~", ".cache"), "opencode")
}
