/** Sizes and colours every chart shares, so the Lab's charts read as one set. */
export const CHART_STYLE = {
  width: 800,
  height: 450,
  fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif",
  titleSize: 16,
  labelSize: 13,
  tickSize: 11,
  legendSize: 12,
  pointLabelSize: 11,
  textColor: "#222222",
  mutedTextColor: "#555555",
  axisColor: "#888888",
  gridColor: "#e6e6e6",
  referenceColor: "#444444",
  background: "#ffffff",
} as const
