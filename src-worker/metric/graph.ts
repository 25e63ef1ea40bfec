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
export function graphDomain(
  labels: readonly string[],
  edges: ReadonlyArray<readonly [number, number]>,
  spec?: string,
  readAs?: string,
): Domain {
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
    for (const x of [a, b])
      if (!Number.isInteger(x) || x < 0 || x >= n)
        invalid(`graph edge ${k}: node index ${String(x)} is not in 0..${n - 1}`);
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
    description: `graph of ${n} nodes and ${from.length} edges${readAs ? ` (${readAs})` : ''}, shortest-path distance`,
    n,
    label: (i) => labels[i]!,
    distance: (i, j) => hopDistance(dist[i * n + j]!),
    structure: {
      edges: { from, to, weight: new Float64Array(from.length).fill(1) },
    },
  };
}

/**
 * A parsed edge-list file: node labels (in order of first appearance), edges as index pairs, and how its lines were
 * split.
 */
interface EdgeList {
  labels: string[];
  edges: [number, number][];
  separator: 'comma' | 'whitespace';
}

/** A number with a fraction or an exponent (120.5, .5, 1e3): a measurement, never a node name. */
const MEASUREMENT = /^[+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)$/;

/**
 * The lines of a whitespace-separated edge list (networkx's write_edgelist,
 * SNAP: `a b` or `a<TAB>b`, '#' comments, networkx's empty attribute `{}`
 * after the pair ignored), or null when the text is not one: a line holds a
 * comma, or at most half of the lines split into two names.
 */
function whitespaceRows(text: string): { fields: string[]; line: number }[] | null {
  const rows: { fields: string[]; line: number }[] = [];
  let pairs = 0;
  let line = 0;
  for (const raw of text.split('\n')) {
    line++;
    const t = raw.trim();
    if (t === '' || t.startsWith('#')) continue;
    if (t.includes(',')) return null;
    let fields = t.split(/[ \t]+/);
    if (fields.length === 3 && fields[2] === '{}') fields = fields.slice(0, 2);
    if (fields.length === 2) pairs++;
    rows.push({ fields, line });
  }
  return pairs * 2 > rows.length ? rows : null;
}

/**
 * Whether no node lies on two of the edges (at least two): the rows of a two-column table (user,password; key,value),
 * not a graph.
 */
function sharesNoNode(n: number, edges: ReadonlyArray<readonly [number, number]>): boolean {
  if (edges.length < 2) return false;
  const seen = new Uint8Array(n);
  for (const [a, b] of edges) {
    if (seen[a] || seen[b]) return false;
    seen[a] = seen[b] = 1;
  }
  return true;
}

/** Longest node name of an edge-list file (characters). */
const MAX_NODE_NAME_CHARS = 200;

/** Header words recognised in the first row of an edge-list file. */
const HEADER_WORDS = new Set([
  'from',
  'to',
  'source',
  'target',
  'src',
  'dst',
  'node',
  'node1',
  'node2',
  'u',
  'v',
  'a',
  'b',
  'head',
  'tail',
]);

/**
 * Parse an edge list: one edge `a,b` per line (CSV), or `a b` / `a<TAB>b`
 * (whitespace-separated, networkx's and SNAP's format: chosen when no line
 * holds a comma and most lines are two names); node names, labels taken in
 * order of first appearance. Optional header: a first row whose fields are
 * both header words (from,to / source,target / src,dst / u,v / a,b /
 * node1,node2 ...). Blank lines and lines starting with '#' are skipped.
 * A line with a single name declares an isolated node. Anything else (three
 * fields, an empty name, a self-loop, a name over MAX_NODE_NAME_CHARS or
 * with control characters, a name that is a decimal measurement such as
 * 120.5) is a MechError 'invalid-input' naming the line.
 * A file that is not mostly edges (no edge, or more single-name lines than
 * edges: a key, a password file, a config file) is refused as a whole: its
 * lines would otherwise come back as node labels; so is a two-column table
 * whose edges share no node (user,password rows). No message quotes the file.
 */
export function parseEdgeList(text: string, source = 'edge list'): EdgeList {
  const spaced = whitespaceRows(text);
  const rows = spaced ?? readCsvRows(text, source);
  const shape = spaced ? "'a b' (two node names separated by whitespace)" : "'a,b' (two node names)";
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
    if (f.length > 2)
      invalid(`${source}, line ${row.line}: expected ${shape}, got ${f.length} fields`, { line: row.line });
    if (f.some((x) => x === '')) invalid(`${source}, line ${row.line}: empty node name`, { line: row.line });
    if (f.some((x) => x.length > MAX_NODE_NAME_CHARS))
      invalid(`${source}, line ${row.line}: a node name is longer than ${MAX_NODE_NAME_CHARS} characters`, {
        line: row.line,
      });
    if (f.some((x) => /\p{Cc}/u.test(x)))
      invalid(`${source}, line ${row.line}: a node name holds a control character`, { line: row.line });
    if (f.some((x) => MEASUREMENT.test(x)))
      invalid(
        `${source}, line ${row.line}: a node name is a decimal number with a fraction or an exponent (a measurement, not a node); node names are words or whole numbers`,
        { line: row.line },
      );
    if (f.length === 1) {
      singles++;
      node(f[0]!);
      return;
    }
    if (f[0] === f[1])
      invalid(`${source}, line ${row.line}: self-loop (both fields name the same node)`, { line: row.line });
    edges.push([node(f[0]!), node(f[1]!)]);
  });
  if (labels.length === 0) invalid(`${source}: no edges or nodes found`);
  if (edges.length === 0 || singles > edges.length)
    invalid(
      `${source}: does not read as an edge list: ${edges.length} line${edges.length === 1 ? '' : 's'} name an edge (two names) and ${singles} a single node (an edge list is one edge per line; a line with one name declares an isolated node beside the edges)`,
    );
  if (sharesNoNode(labels.length, edges))
    invalid(
      `${source}: does not read as a graph: its ${edges.length} edges share no node (every line pairs two names seen nowhere else), as the rows of a two-column table do`,
    );
  return { labels, edges, separator: spaced ? 'whitespace' : 'comma' };
}

/** graph:FILE domain from edge-list text (spec records the file name). */
export function graphDomainFromEdgeList(text: string, file: string): Domain {
  const { labels, edges, separator } = parseEdgeList(text, file);
  try {
    return graphDomain(
      labels,
      edges,
      `graph:${file}`,
      `read as an edge list separated by ${separator === 'comma' ? 'commas' : 'whitespace'}`,
    );
  } catch (e) {
    if (e instanceof MechError && e.code === 'too-large')
      throw new MechError('too-large', `${file}: ${e.message}`, e.detail);
    throw e;
  }
}
