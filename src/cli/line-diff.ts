/**
 * A unified-style diff of two small texts (config files), line by line: `-` lines only in `before`, `+` lines only
 * in `after`, and up to `context` unchanged lines around each change. Longest common subsequence; O(n·m), meant for
 * files of a few hundred lines. Pure.
 */
export function lineDiff(options: { file: string; before: string | null; after: string; context?: number }): string[] {
  const context = options.context ?? 2
  const a = options.before === null ? [] : splitLines(options.before)
  const b = splitLines(options.after)
  const ops = diffOps(a, b)
  const changed = ops.map((op) => op.kind !== " ")
  const near = (index: number): boolean => changed.slice(Math.max(0, index - context), index + context + 1).some(Boolean)
  const lines = [`--- ${options.before === null ? "/dev/null" : options.file}`, `+++ ${options.file}`]
  let skipped = false
  ops.forEach((op, index) => {
    if (op.kind !== " " || near(index)) {
      if (skipped) lines.push("@@")
      skipped = false
      lines.push(`${op.kind}${op.line}`)
    } else skipped = true
  })
  return lines
}

type Op = { kind: " " | "-" | "+"; line: string }

function diffOps(a: readonly string[], b: readonly string[]): Op[] {
  // lengths[i][j]: the LCS length of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      const row = lengths[i] as number[]
      row[j] = a[i] === b[j] ? ((lengths[i + 1] as number[])[j + 1] as number) + 1 : Math.max((lengths[i + 1] as number[])[j] as number, row[j + 1] as number)
    }
  }
  const ops: Op[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i] as string })
      i += 1
      j += 1
    } else if (((lengths[i + 1] as number[])[j] as number) >= ((lengths[i] as number[])[j + 1] as number)) {
      ops.push({ kind: "-", line: a[i] as string })
      i += 1
    } else {
      ops.push({ kind: "+", line: b[j] as string })
      j += 1
    }
  }
  for (; i < a.length; i += 1) ops.push({ kind: "-", line: a[i] as string })
  for (; j < b.length; j += 1) ops.push({ kind: "+", line: b[j] as string })
  return ops
}

function splitLines(text: string): string[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n")
  if (lines.at(-1) === "") lines.pop()
  return lines
}
