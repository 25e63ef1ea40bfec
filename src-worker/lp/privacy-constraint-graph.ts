import { invalid } from '../../src-shared/errors';
import { edgesIfAvailable } from '../metric/shortest-paths';
import type { Domain } from '../metric/domain';
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

export function privacyConstraintGraph(domain: Domain, eps: number, mode: ConstraintMode = 'auto', delta = DEFAULT_SPANNER_DELTA): PrivacyConstraintGraph {
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
    const s = greedySpanner(domain.n, dist, dl);
    const exponent = new Float64Array(s.weight.length);
    for (let k = 0; k < exponent.length; k++) exponent[k] = (eps / dl) * s.weight[k]!;
    return { from: s.from, to: s.to, exponent, mode: m, delta: dl };
  }
  if (m !== 'all-pairs') invalid(`unknown constraint mode '${String(mode)}' (auto, edges, spanner, exact or all-pairs)`);
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
