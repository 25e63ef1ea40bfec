import { invalid } from '../../../src-shared/errors';
import { edgesIfAvailable } from '../../metric/shortest-paths';
import type { Domain, WeightedEdges } from '../../metric/domain';
import { greedySpanner } from './greedy-spanner';

/**
 * Which pairs of secrets carry d-privacy constraints in an LP (docs/lp.md, "Privacy models"):
 *  - 'edges': the domain's own graph (line, ring, graphs, Manhattan/Chebyshev
 *    grids), whose shortest-path metric is d, so edge constraints imply all pairs;
 *  - 'spanner': a greedy spanner of dilation delta with eps/delta on its edges
 *    (sound, see greedy-spanner.ts; optimal only up to the dilation);
 *  - 'exact': the greedy spanner with delta = 1, i.e. only pairs not implied
 *    by an equally long path; equivalent to all pairs, usually far fewer;
 *  - 'all-pairs': every pair at finite distance;
 *  - 'auto': edges when the domain has them, a delta-spanner on Euclidean
 *    grids, otherwise 'exact'.
 */
export type ConstraintMode = 'auto' | 'edges' | 'spanner' | 'exact' | 'all-pairs';

export const DEFAULT_SPANNER_DELTA = 1.1;

export interface PrivacyConstraintGraph {
  from: Int32Array;
  to: Int32Array;
  /** Exponent of each pair's constraint: C[x][w] <= e^(exponent) C[x'][w] both ways. */
  exponent: Float64Array;
  mode: Exclude<ConstraintMode, 'auto'>;
  /** Dilation used (1 for edges, exact, all pairs). */
  delta: number;
}

/** Dilations for which the greedy spanner of a Euclidean grid is its 8-neighbour graph (see gridSpanner). */
export const GRID_SPANNER_DELTAS = { min: 1.09, max: 1.4 };

/**
 * The greedy delta-spanner of a Euclidean grid (square cells) for delta in GRID_SPANNER_DELTAS, built in O(n)
 * instead of the greedy's O(n^2) pairs (5.4 s on 50 x 50): it is the 8-neighbour graph. The greedy takes pairs by
 * length. Every unit pair is taken (any other path is at least 2 steps long) and every diagonal (the two-step path,
 * 2 steps, is over 1.4 sqrt 2 = 1.98). Then every pair of offsets 0 <= a <= b has a path of (b - a) + a sqrt 2
 * steps through them, at most 1.0824 times its length (the worst direction is a / b = tan 22.5 degrees), within
 * 1.09, so no longer pair is taken. Edges in the greedy's order (by length, then pair), weights from the domain's
 * own distance: the same arrays (test: greedy-spanner.test.ts). null where this does not apply.
 */
export function gridSpanner(domain: Domain, delta: number): WeightedEdges | null {
  const g = domain.structure.grid;
  if (!g || g.metric !== 'euclidean' || !(delta >= GRID_SPANNER_DELTAS.min && delta <= GRID_SPANNER_DELTAS.max))
    return null;
  const { rows, cols } = g;
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < rows * cols; i++) {
    const r = Math.floor(i / cols);
    const c = i % cols;
    if (c + 1 < cols) (from.push(i), to.push(i + 1));
    if (r + 1 < rows) (from.push(i), to.push(i + cols));
  }
  for (let i = 0; i < rows * cols; i++) {
    const r = Math.floor(i / cols);
    const c = i % cols;
    if (r + 1 >= rows) continue;
    if (c > 0) (from.push(i), to.push(i + cols - 1));
    if (c + 1 < cols) (from.push(i), to.push(i + cols + 1));
  }
  const weight = Float64Array.from(from, (a, k) => domain.distance(a, to[k]!));
  return { from: Int32Array.from(from), to: Int32Array.from(to), weight };
}

export function privacyConstraintGraph(
  domain: Domain,
  eps: number,
  mode: ConstraintMode = 'auto',
  delta = DEFAULT_SPANNER_DELTA,
): PrivacyConstraintGraph {
  let m: Exclude<ConstraintMode, 'auto'>;
  if (mode === 'auto') {
    if (edgesIfAvailable(domain)) m = 'edges';
    else if (domain.structure.grid?.metric === 'euclidean') m = 'spanner';
    else m = 'exact';
  } else m = mode;
  const dist = (i: number, j: number): number => domain.distance(i, j);
  if (m === 'edges') {
    const e = domain.structure.edges;
    if (!e) invalid(`domain ${domain.spec} has no graph edges; use constraints 'spanner', 'exact' or 'all-pairs'`);
    const exponent = new Float64Array(e.weight.length);
    for (let k = 0; k < exponent.length; k++) exponent[k] = eps * e.weight[k]!;
    return { from: e.from, to: e.to, exponent, mode: m, delta: 1 };
  }
  if (m === 'spanner' || m === 'exact') {
    const dl = m === 'exact' ? 1 : delta;
    const s = gridSpanner(domain, dl) ?? greedySpanner(domain.n, dist, dl);
    const exponent = new Float64Array(s.weight.length);
    for (let k = 0; k < exponent.length; k++) exponent[k] = (eps / dl) * s.weight[k]!;
    return { from: s.from, to: s.to, exponent, mode: m, delta: dl };
  }
  if (m !== 'all-pairs')
    invalid(`unknown constraint mode '${String(mode)}' (auto, edges, spanner, exact or all-pairs)`);
  const n = domain.n;
  const f: number[] = [];
  const t: number[] = [];
  const x: number[] = [];
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const d = dist(i, j);
      if (d === Infinity) continue; // fully distinguishable: no constraint
      f.push(i);
      t.push(j);
      x.push(eps * d);
    }
  return { from: Int32Array.from(f), to: Int32Array.from(t), exponent: Float64Array.from(x), mode: m, delta: 1 };
}
