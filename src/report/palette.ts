/**
 * The Okabe–Ito palette, ordered for lines and areas on white: yellow comes last because it is faint as a thin line,
 * and black second to last so it is not confused with the axes and reference lines in charts with few series.
 */
export const OKABE_ITO = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#D55E00",
  "#CC79A7",
  "#56B4E9",
  "#000000",
  "#F0E442",
] as const

/** The colour of the series at `index`; after eight series the palette repeats. */
export function paletteColor(index: number): string {
  const size = OKABE_ITO.length
  return OKABE_ITO[((Math.trunc(index) % size) + size) % size] ?? OKABE_ITO[0]
}
