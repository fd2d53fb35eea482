/** Renders rows as a plain-text table with a header, right-aligning columns whose values are all numbers. */
export function formatTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string[] {
  const cells = [header.map(String), ...rows.map((row) => row.map(String))]
  const numeric = header.map((_, column) => rows.length > 0 && rows.every((row) => typeof row[column] === "number"))
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? "").length)))
  const line = (row: readonly string[]): string =>
    row
      .map((cell, column) => (numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd()
  return [line(cells[0] ?? []), widths.map((width) => "-".repeat(width)).join("  "), ...cells.slice(1).map(line)]
}
