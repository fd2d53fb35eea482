/**
 * What holds a V8 heap snapshot's memory, by dominator: the object that, once gone, takes the most with it. Made for
 * `bench/memory-phases.ts` under Node, which writes a snapshot after its replays when `BENCH_SNAPSHOT` names a file:
 *
 *   BENCH_SNAPSHOT=/tmp/replays.heapsnapshot BENCH_CALLS=2 node --expose-gc --import tsx bench/memory-phases.ts
 *   npx tsx bench/heap-holders.ts /tmp/replays.heapsnapshot
 *
 * Prints the self size by kind (strings, arrays, objects by constructor), then the dominator tree under the session
 * the runtime's registry holds: each node's children grouped by the edge that reaches them and their constructor, with
 * their retained size (weak edges do not retain). A group of many (the memo's entries, the ledger's compartments)
 * shows what its members hold, summed.
 */
import { readFileSync } from "node:fs"

type Snapshot = {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } }
  nodes: number[]
  edges: number[]
  strings: string[]
}

const file = process.argv[2]
if (file === undefined) throw new Error("usage: tsx bench/heap-holders.ts <file.heapsnapshot> [MB shown at least]")
const shownFrom = Number(process.argv[3] ?? 0.25) * 1_048_576
const heap = JSON.parse(readFileSync(file, "utf8")) as Snapshot
const meta = heap.snapshot.meta
const nodeWidth = meta.node_fields.length
const edgeWidth = meta.edge_fields.length
const field = { type: meta.node_fields.indexOf("type"), name: meta.node_fields.indexOf("name"), self: meta.node_fields.indexOf("self_size"), edges: meta.node_fields.indexOf("edge_count") }
const edgeField = { type: meta.edge_fields.indexOf("type"), name: meta.edge_fields.indexOf("name_or_index"), to: meta.edge_fields.indexOf("to_node") }
const nodeTypes = meta.node_types[0]
const edgeTypes = meta.edge_types[0]
const { nodes, edges, strings } = heap
const count = nodes.length / nodeWidth
const at = (node: number, offset: number): number => nodes[node * nodeWidth + offset] ?? 0
const typeOf = (node: number): string => nodeTypes[at(node, field.type)] ?? "?"
const nameOf = (node: number): string => strings[at(node, field.name)] ?? "?"
const kindOf = (node: number): string => (typeOf(node) === "object" || typeOf(node) === "closure" ? `${typeOf(node)}:${nameOf(node)}` : typeOf(node))
const firstEdge = new Uint32Array(count + 1)
for (let node = 0; node < count; node += 1) firstEdge[node + 1] = (firstEdge[node] ?? 0) + at(node, field.edges) * edgeWidth
const ignored = new Set([edgeTypes.indexOf("weak"), edgeTypes.indexOf("shortcut")])
/** The nodes an edge-walk reaches from `node`, with the edge's offset, weak edges left out. */
function* targets(node: number): Generator<[number, number]> {
  for (let edge = firstEdge[node] ?? 0; edge < (firstEdge[node + 1] ?? 0); edge += edgeWidth) {
    if (!ignored.has(edges[edge + edgeField.type] ?? -1)) yield [(edges[edge + edgeField.to] ?? 0) / nodeWidth, edge]
  }
}

const bySelf = new Map<string, number>()
for (let node = 0; node < count; node += 1) bySelf.set(kindOf(node), (bySelf.get(kindOf(node)) ?? 0) + at(node, field.self))
const mb = (bytes: number): string => (bytes / 1_048_576).toFixed(2).padStart(8)
process.stdout.write(`self size by kind (MB)\n${[...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([kind, size]) => `${mb(size)}  ${kind}`).join("\n")}\n\n`)

// Post order from the root, then immediate dominators (Cooper, Harvey and Kennedy's iteration).
const postIndex = new Int32Array(count).fill(-1)
const order: number[] = []
const seen = new Uint8Array(count)
const stack: [number, Generator<[number, number]>][] = [[0, targets(0)]]
seen[0] = 1
while (stack.length > 0) {
  const top = stack[stack.length - 1] as [number, Generator<[number, number]>]
  const next = top[1].next()
  if (next.done) {
    stack.pop()
    postIndex[top[0]] = order.length
    order.push(top[0])
    continue
  }
  const [target] = next.value
  if (seen[target] === 1) continue
  seen[target] = 1
  stack.push([target, targets(target)])
}
const predecessors: { from: number; edge: number }[][] = Array.from({ length: count }, () => [])
for (const node of order) for (const [target, edge] of targets(node)) predecessors[target]?.push({ from: node, edge })
const dominator = new Int32Array(count).fill(-1)
dominator[0] = 0
for (let changed = true; changed; ) {
  changed = false
  for (let index = order.length - 2; index >= 0; index -= 1) {
    const node = order[index] as number
    let found = -1
    for (const { from } of predecessors[node] ?? []) {
      if (dominator[from] === -1) continue
      let a = from
      let b = found
      if (b !== -1) {
        while (a !== b) {
          while ((postIndex[a] ?? 0) < (postIndex[b] ?? 0)) a = dominator[a] ?? 0
          while ((postIndex[b] ?? 0) < (postIndex[a] ?? 0)) b = dominator[b] ?? 0
        }
      }
      found = a
    }
    if (dominator[node] !== found) {
      dominator[node] = found
      changed = true
    }
  }
}
const retained = new Float64Array(count)
const children = new Map<number, number[]>()
for (const node of order) {
  retained[node] = (retained[node] ?? 0) + at(node, field.self)
  if (node === 0) continue
  const parent = dominator[node] ?? 0
  retained[parent] = (retained[parent] ?? 0) + (retained[node] ?? 0)
  const siblings = children.get(parent)
  if (siblings === undefined) children.set(parent, [node])
  else siblings.push(node)
}
/** The name of the edge by which `node`'s dominator reaches it ("?" when it reaches it only through others). */
function edgeName(node: number): string {
  const edge = predecessors[node]?.find(({ from }) => from === dominator[node])?.edge
  if (edge === undefined) return "?"
  const type = edgeTypes[edges[edge + edgeField.type] ?? 0]
  return type === "element" || type === "hidden" ? "[i]" : (strings[edges[edge + edgeField.name] ?? 0] ?? "?")
}
const groupOf = (node: number): string => `${edgeName(node)} ${typeOf(node) === "string" ? "string" : kindOf(node)}`
function print(node: number, depth: number, indent: string): void {
  const groups = new Map<string, number[]>()
  for (const child of children.get(node) ?? []) {
    const group = groups.get(groupOf(child))
    if (group === undefined) groups.set(groupOf(child), [child])
    else group.push(child)
  }
  const sized = [...groups].map(([group, members]) => ({ group, members, size: members.reduce((sum, member) => sum + (retained[member] ?? 0), 0) }))
  for (const { group, members, size } of sized.sort((a, b) => b.size - a.size)) {
    if (size < shownFrom) break
    process.stdout.write(`${indent}${mb(size)} MB  x${members.length}  ${group}\n`)
    if (depth === 0) continue
    if (members.length === 1) print(members[0] as number, depth - 1, `${indent}  `)
    else {
      const held = new Map<string, number>()
      for (const member of members) for (const child of children.get(member) ?? []) held.set(groupOf(child), (held.get(groupOf(child)) ?? 0) + (retained[child] ?? 0))
      for (const [inner, innerSize] of [...held].sort((a, b) => b[1] - a[1]).slice(0, 8)) if (innerSize >= shownFrom / 2) process.stdout.write(`${indent}    each holds ${mb(innerSize)} MB  ${inner}\n`)
    }
  }
}
process.stdout.write(`reachable ${mb(retained[0] ?? 0)} MB\n\nthe largest holders\n`)
print(0, 2, "")
// The sessions: the values of the registry's map.
const registry = order.find((node) => nameOf(node) === "Map" && edgeName(node) === "sessions")
for (const table of children.get(registry ?? -1) ?? []) {
  for (const session of children.get(table) ?? []) {
    process.stdout.write(`\na session (${mb(retained[session] ?? 0)} MB)\n`)
    print(session, 6, "")
  }
}
