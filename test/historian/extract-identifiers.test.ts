import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  extractIdentifiers,
  findIdentifierSpans,
  findPathSpans,
  isPathLike,
  MAX_IDENTIFIER_CHARS,
  mayHoldSpace,
} from "../../src/historian/extract-identifiers.js"

/** Texts made of the characters and pieces the matchers look at (run characters, quotes, URLs, file names). */
const trickyText = fc
  .array(
    fc.constantFrom("a", "Z", "0", "_", "~", "@", ".", "/", "+", "-", "<", " ", "\n", "`", "'", '"', "§", "Makefile", "Gemfile-",
      "CMakeLists.txt", ".ts", "src/", "https://x.io/", "1.2.3", "#fff", "snake_case", "camelCase", "a b"),
    { maxLength: 40 },
  )
  .map((pieces) => pieces.join(""))

describe("extractIdentifiers", () => {
  it.each([
    ["a relative path", "edit src/libponyc/expr/match.c next", "src/libponyc/expr/match.c"],
    ["a file name", "open numpy_handler.py at the raise", "numpy_handler.py"],
    ["an absolute path", "cd into /usr/lib/llvm-14/cmake", "/usr/lib/llvm-14/cmake"],
    [
      "a quoted path with spaces",
      "'/Users/me/Screenshot 2025-11-21 at 01.27.21.png'",
      "/Users/me/Screenshot 2025-11-21 at 01.27.21.png",
    ],
    ["a Makefile location", "make: *** [Makefile:192: build] Error 2", "Makefile"],
    ["a scoped package", "Module '\"@mariozechner/pi-tui\"' has no member", "@mariozechner/pi-tui"],
    ["a semantic version", "bump 0.7.29 to 0.8.0", "0.8.0"],
    ["a v-prefixed version", "git tag v0.8.0", "v0.8.0"],
    ["a short hash", "the task bd0afab finished", "bd0afab"],
    ["a hash that ends a sentence", "compare it with the base commit 3f9c2a17d. Then run the tests", "3f9c2a17d"],
    ["a colour", "accent #8abeb7 please", "#8abeb7"],
    ["a bare hex colour", "md link is actually f0c674", "f0c674"],
    ["an error code", "error TS2305: Module has no exported member", "TS2305"],
    ["a flake8 code", "- E999 SyntaxError: unmatched ')'", "E999"],
    ["a backticked command", "Stale builds need `mix compile --force` first.", "mix compile --force"],
    [
      "a quoted config key",
      'Search "terminal.integrated.minimumContrastRatio" in settings',
      "terminal.integrated.minimumContrastRatio",
    ],
    ["a quoted type name", "has no exported member 'EditorTheme'.", "EditorTheme"],
    ["a snake_case name", "call set_cap_and_ephemeral on the capture", "set_cap_and_ephemeral"],
    ["a SCREAMING_CASE name", "the TK_MATCH_CAPTURE case", "TK_MATCH_CAPTURE"],
    ["a camelCase name", "set minimumContrastRatio to 1", "minimumContrastRatio"],
    ["a PascalCase name", "the TruncatedText component", "TruncatedText"],
    ["a dotted member", "import Phoenix.ConnTest first", "Phoenix.ConnTest"],
  ])("finds %s", (_, text, expected) => {
    expect(extractIdentifiers(text)).toContain(expected)
  })

  it.each([
    ["numbers in prose", "It took 2.5 seconds and 3.14 tries, about 1.5x faster."],
    ["a two-part version without v", "Python 3.11 works"],
    ["a time of day", "at 21:41:05.928 it logged"],
    ["an IP address and a UID", "host 127.0.0.1 and uid 1.2.840.10008.1.2.1"],
    ["an abbreviation", "e.g. this and i.e. that"],
    ["word pairs with a slash", "and/or true/false 1/2"],
    ["a URL", "see https://example.com/a/b/c.png now"],
    ["a data URL", "data:image/png;base64,AAAA"],
    ["a short plain backticked word", "the `src` folder and `make`"],
    ["a brand name", "on GitHub with JavaScript"],
    ["a hex word without digits", "the facade is deface"],
    ["a closing XML tag", "</uploaded_files>"],
  ])("ignores %s", (_, text) => {
    expect(extractIdentifiers(text)).toEqual([])
  })

  it("skips strings longer than MAX_IDENTIFIER_CHARS", () => {
    const long = `/tmp/${"a".repeat(MAX_IDENTIFIER_CHARS)}.ts`
    expect(extractIdentifiers(`see ${long}`)).toEqual([])
  })

  it("returns each identifier once, in order of appearance", () => {
    expect(extractIdentifiers("src/a.ts then src/b.ts then src/a.ts")).toEqual(["src/a.ts", "src/b.ts"])
  })

  it("finds only paths, packages, versions, hashes and codes in a command", () => {
    const command = 'cd /w && apt-get install -y libgtest-dev && echo "myValue" > out.txt'
    expect(extractIdentifiers(command, "command")).toEqual(["/w", "libgtest-dev", "out.txt"])
  })

  it("finds code names in source text an edit wrote", () => {
    const code =
      "if(ast_id(pattern_type) == TK_ISO) pattern_type = set_cap_and_ephemeral(pattern_type, TK_TRN, TK_EPHEMERAL);"
    expect(extractIdentifiers(code, "code")).toEqual([
      "ast_id",
      "pattern_type",
      "TK_ISO",
      "set_cap_and_ephemeral",
      "TK_TRN",
      "TK_EPHEMERAL",
    ])
  })
})

describe("findIdentifierSpans", () => {
  it("reports verbatim, non-overlapping slices", () => {
    const text = "Run `npm test` on src/a.ts (v1.2.3)"
    const spans = findIdentifierSpans(text)
    expect(spans.map((span) => span.text)).toEqual(["npm test", "src/a.ts", "v1.2.3"])
    for (const span of spans) expect(text.slice(span.start, span.end)).toBe(span.text)
  })
})

describe("findPathSpans", () => {
  it("finds what matching every run of path characters and keeping the path-like ones finds", () => {
    // The definition: one match per run of path characters, ending at its last word character or slash.
    const everyRun = /(?<![\w@~.\/+<-])[~\w@.\/+-]*[\w\/]/g
    const urls = /\b(?:https?|ftp|file|wss?):\/\/[^\s<>"'`)\]]+|\bdata:[\w/+.-]+;base64,[A-Za-z0-9+/=]*/g
    fc.assert(
      fc.property(trickyText, (text) => {
        const blocked = [...text.matchAll(urls)].map((match) => ({ start: match.index, end: match.index + match[0].length }))
        const expected = [...text.matchAll(everyRun)]
          .filter((match) => isPathLike(match[0]))
          .map((match) => ({ text: match[0], start: match.index, end: match.index + match[0].length }))
          .filter((span) => !blocked.some((url) => span.start < url.end && url.start < span.end))
        expect(findPathSpans(text)).toEqual(expected)
      }),
      { numRuns: 3_000 },
    )
  })

  it("finds a well-known file name without a dot, and skips plain words", () => {
    expect(findPathSpans("edit the Makefile- and Dockerfile, not Makefiles or words").map((span) => span.text)).toEqual([
      "Makefile",
      "Dockerfile",
    ])
  })
})

describe("mayHoldSpace", () => {
  it("is true for every text that has a span holding a space", () => {
    fc.assert(
      fc.property(trickyText, fc.constantFrom("prose" as const, "command" as const, "code" as const), (text, mode) => {
        const spaced = findIdentifierSpans(text, mode).some((span) => span.text.includes(" "))
        if (spaced) expect(mayHoldSpace(text)).toBe(true)
      }),
      { numRuns: 3_000 },
    )
    expect(mayHoldSpace("open '/Users/me/My File.png' now")).toBe(true)
    expect(findIdentifierSpans("open '/Users/me/My File.png' now").map((span) => span.text)).toEqual(["/Users/me/My File.png"])
    expect(mayHoldSpace("plain words and src/a.ts")).toBe(false)
  })
})

describe("isPathLike", () => {
  it.each([
    ["src/a.ts", true],
    ["/tmp", true],
    ["./build", true],
    ["packages/tui/src", true],
    ["README.md", true],
    ["CMakeLists.txt", true],
    ["Theme.fg/bg", false],
    ["and/or", false],
    ["--set-upstream", false],
    ["2025/11/21", false],
  ])("isPathLike(%j) is %s", (token, expected) => {
    expect(isPathLike(token)).toBe(expected)
  })
})
