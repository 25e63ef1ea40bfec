import { MechError, invalid } from '../../src-shared/errors';
import type { Domain } from './domain';
import { readCsvRows } from './read-csv';
import { bfsAllPairs, hopDistance } from './shortest-paths';

/**
 * Graph domain (SPEC §1): labelled nodes and an unweighted undirected edge
 * list; d = shortest-path length by BFS, Infinity between components. All
 * pairs are computed once into one dense Int32Array (refused with
 * 'too-large' over the dense-memory limit). Duplicate edges are merged;
 * self-loops are rejected (they say nothing about distances and usually mean
 * a typo).
 */
export function graphDomain(labels: readonly string[], edges: ReadonlyArray<readonly [number, number]>, spec?: string): Domain {
  const n = labels.length;
  if (n === 0) invalid('a graph domain needs at least one node');
  const seenLabel = new Map<string, number>();
  labels.forEach((l, i) => {
    if (seenLabel.has(l)) invalid(`graph node label '${l}' appears twice (nodes ${seenLabel.get(l)} and ${i})`);
    seenLabel.set(l, i);
  });
  const keys = new Set<number>();
  const f: number[] = [];
  const t: number[] = [];
  edges.forEach(([a, b], k) => {
    for (const x of [a, b]) if (!Number.isInteger(x) || x < 0 || x >= n) invalid(`graph edge ${k}: node index ${String(x)} is not in 0..${n - 1}`);
    if (a === b) invalid(`graph edge ${k}: self-loop on '${labels[a]}'`);
    const lo = Math.min(a, b);
    const hi = Math.max(a, b);
    const key = lo * n + hi;
    if (keys.has(key)) return;
    keys.add(key);
    f.push(lo);
    t.push(hi);
  });
  const from = Int32Array.from(f);
  const to = Int32Array.from(t);
  const dist = bfsAllPairs(n, from, to, `distance matrix of the ${n}-node graph`);
  const specText = spec ?? `graph of ${n} nodes`;
  return {
    kind: 'graph',
    spec: specText,
    description: `graph of ${n} nodes and ${from.length} edges, shortest-path distance`,
    n,
    label: (i) => labels[i]!,
    distance: (i, j) => hopDistance(dist[i * n + j]!),
    structure: {
      edges: { from, to, weight: new Float64Array(from.length).fill(1) },
    },
  };
}

/** A parsed edge-list file: node labels (in order of first appearance) and edges as index pairs. */
export interface EdgeList {
  labels: string[];
  edges: [number, number][];
}

/** Longest node name of an edge-list file (characters). */
export const MAX_NODE_NAME_CHARS = 200;

/** Header words recognised in the first row of an edge-list file. */
const HEADER_WORDS = new Set(['from', 'to', 'source', 'target', 'src', 'dst', 'node', 'node1', 'node2', 'u', 'v', 'a', 'b', 'head', 'tail']);

/**
 * Parse an edge-list CSV: one edge `a,b` per line (node names; labels are
 * taken in order of first appearance). Optional header: a first row whose
 * fields are both header words (from,to / source,target / src,dst / u,v /
 * a,b / node1,node2 ...). Blank lines and lines starting with '#' are skipped.
 * A line with a single name declares an isolated node. Anything else (three
 * fields, an empty name, a self-loop, a name over MAX_NODE_NAME_CHARS or
 * with control characters) is a MechError 'invalid-input' naming the line.
 * A file that is not mostly edges (no edge, or more single-name lines than
 * edges: a key, a password file, a config file) is refused as a whole: its
 * lines would otherwise come back as node labels. No message quotes the file.
 */
export function parseEdgeList(text: string, source = 'edge list'): EdgeList {
  const rows = readCsvRows(text, source);
  const labels: string[] = [];
  const index = new Map<string, number>();
  const edges: [number, number][] = [];
  let singles = 0;
  const node = (name: string): number => {
    let i = index.get(name);
    if (i === undefined) {
      i = labels.length;
      labels.push(name);
      index.set(name, i);
    }
    return i;
  };
  rows.forEach((row, r) => {
    const f = row.fields;
    if (r === 0 && f.length === 2 && f.every((x) => HEADER_WORDS.has(x.toLowerCase()))) return;
    if (f.length > 2) invalid(`${source}, line ${row.line}: expected 'a,b' (two node names), got ${f.length} fields`, { line: row.line });
    if (f.some((x) => x === '')) invalid(`${source}, line ${row.line}: empty node name`, { line: row.line });
    if (f.some((x) => x.length > MAX_NODE_NAME_CHARS))
      invalid(`${source}, line ${row.line}: a node name is longer than ${MAX_NODE_NAME_CHARS} characters`, { line: row.line });
    if (f.some((x) => /\p{Cc}/u.test(x))) invalid(`${source}, line ${row.line}: a node name holds a control character`, { line: row.line });
    if (f.length === 1) {
      singles++;
      node(f[0]!);
      return;
    }
    if (f[0] === f[1]) invalid(`${source}, line ${row.line}: self-loop (both fields name the same node)`, { line: row.line });
    edges.push([node(f[0]!), node(f[1]!)]);
  });
  if (labels.length === 0) invalid(`${source}: no edges or nodes found`);
  if (edges.length === 0 || singles > edges.length)
    invalid(
      `${source}: does not read as an edge list: ${edges.length} line${edges.length === 1 ? '' : 's'} name an edge (two names) and ${singles} a single node (an edge list is one edge per line; a line with one name declares an isolated node beside the edges)`,
    );
  return { labels, edges };
}

/** graph:FILE domain from edge-list text (spec records the file name). */
export function graphDomainFromEdgeList(text: string, file: string): Domain {
  const { labels, edges } = parseEdgeList(text, file);
  try {
    return graphDomain(labels, edges, `graph:${file}`);
  } catch (e) {
    if (e instanceof MechError && e.code === 'too-large') throw new MechError('too-large', `${file}: ${e.message}`, e.detail);
    throw e;
  }
}
