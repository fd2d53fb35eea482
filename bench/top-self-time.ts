/** The parts of a V8 CPU profile (`Profiler.stop`) the summary reads. */
export type CpuProfile = {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[]
  samples: number[]
  timeDeltas: number[]
}

/** Self time per function (name and source location), largest first, as a share of the profile's samples. */
export function topSelfTime(profile: CpuProfile, count: number): { name: string; location: string; share: number }[] {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]))
  const parents = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
  // The profiler's own start and stop calls (node:inspector) are not the code measured.
  const isProfiler = (id: number): boolean => {
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parents.get(cursor)) {
      if (byNode.get(cursor)?.callFrame.url === "node:inspector") return true
    }
    return false
  }
  const totals = new Map<string, { name: string; location: string; time: number }>()
  let all = 0
  profile.samples.forEach((id, index) => {
    const time = profile.timeDeltas[index] ?? 0
    const frame = byNode.get(id)?.callFrame
    if (!frame || isProfiler(id)) return
    all += time
    const name = frame.functionName || "(anonymous)"
    if (name === "(idle)" || name === "(program)") return
    const file = frame.url.replace(/^file:\/\//, "").replace(/^.*\/(src|bench|node_modules)\//, "$1/")
    // Line numbers of files tsx compiled in memory do not match the source: name the file only.
    const location = file === "" ? "(native)" : file
    const key = `${name} ${location}`
    const entry = totals.get(key) ?? { name, location, time: 0 }
    entry.time += time
    totals.set(key, entry)
  })
  return [...totals.values()]
    .sort((left, right) => right.time - left.time)
    .slice(0, count)
    .map((entry) => ({ name: entry.name, location: entry.location, share: all === 0 ? 0 : (entry.time / all) * 100 }))
}

/** Self time per source file (native code and the tokenizer's wasm grouped), largest first, as a share. */
export function selfTimeByFile(profile: CpuProfile, count: number): { file: string; share: number }[] {
  const byFile = new Map<string, number>()
  let total = 0
  for (const entry of topSelfTime(profile, Number.POSITIVE_INFINITY)) {
    const file = entry.location.startsWith("wasm://") ? "tiktoken (wasm)" : entry.name === "(garbage collector)" ? "(garbage collector)" : entry.location
    byFile.set(file, (byFile.get(file) ?? 0) + entry.share)
    total += entry.share
  }
  return [...byFile]
    .sort((left, right) => right[1] - left[1])
    .slice(0, count)
    .map(([file, share]) => ({ file, share: total === 0 ? 0 : (share / total) * 100 }))
}
