/**
 * The rows of the private-channel LP (docs/lp.md, "The private-channel LP"): variables C[x][w] (index x*m + w) for n
 * secrets and m outputs, C >= 0, each row summing to 1, and for every constrained pair {x, x'} and output w both
 *   C[x][w] - e^(exponent) C[x'][w] <= 0  and  C[x'][w] - e^(exponent) C[x][w] <= 0,
 * optimising sum_{x,w} cost[x*m + w] C[x][w]: its size, the factors (capped at e^MAX_EXPONENT), the full model and
 * the orbit model, and the lift of a grid's columns into P. How it is solved: channel/private-channel-lp.ts.
 */
import type { Domain } from '../../metric/domain';
import { type LpOptions, checkCancelled } from '../solver/lp-options';
import { SparseLp } from '../solver/sparse-model';
import type { PairOrbits } from './orbit-reduction';
import type { PrivacyConstraintGraph } from './privacy-constraint-graph';
import { GridTableLifter, type Lifter } from './privacy-repair';

/** What the model's rows are built from: n secrets, m outputs, the objective (at x*m + w), its sense, its name. */
export interface ChannelShape {
  n: number;
  m: number;
  cost: Float64Array;
  sense: 'minimize' | 'maximize';
  what: string;
}

/**
 * Largest exponent eps*d put into a constraint row. e^30 ~ 1e13 keeps the
 * coefficients inside HiGHS' accepted range (large_matrix_value 1e15) and the
 * LP well scaled. A capped row C[x][w] <= e^30 C[x'][w] is stronger than the
 * required e^(eps d), so the mechanism stays eps*d-private; it can only cost
 * optimality where the optimum would want ratios beyond 1e13, i.e. entries
 * far below the solver's 1e-10 tolerance.
 */
export const MAX_EXPONENT = 30;

/** Variables, rows and nonzeros of the LP for n secrets, m outputs and `pairs` constrained pairs. */
export function privateChannelLpSize(
  n: number,
  m: number,
  pairs: number,
): { variables: number; rows: number; nonzeros: number } {
  return { variables: n * m, rows: n + 2 * pairs * m, nonzeros: n * m + 4 * pairs * m };
}

/**
 * The all-pairs lift of a grid by direct products with a table of factors by offset (privacy-repair.ts
 * GridTableLifter) when the graph is the exact model: every pair at e^min(eps d, MAX_EXPONENT), or all but those
 * implied by an equally long path (which the direct pairs' lift satisfies through that path, to rounding). The same
 * lift as the max-product Dijkstra over the pair rows, without streaming them for every column.
 */
export function metricLifter(domain: Domain, eps: number, graph: PrivacyConstraintGraph): Lifter | undefined {
  if (!domain.structure.grid) return undefined;
  if (graph.mode !== 'exact' && graph.mode !== 'all-pairs') return undefined;
  return new GridTableLifter(domain, eps, MAX_EXPONENT);
}

/** Each pair's factor e^min(exponent, MAX_EXPONENT). */
export function edgeFactors(graph: PrivacyConstraintGraph): Float64Array {
  const f = new Float64Array(graph.exponent.length);
  for (let e = 0; e < f.length; e++) f[e] = Math.exp(Math.min(graph.exponent[e]!, MAX_EXPONENT));
  return f;
}

/** The full LP; with graph null only the row sums (the base for constraint generation). */
export function buildFullLp(
  p: ChannelShape,
  graph: PrivacyConstraintGraph | null,
  size: { variables: number; rows: number; nonzeros: number },
  options?: LpOptions,
): SparseLp {
  const { n, m } = p;
  const lp = new SparseLp(n * m, size.rows, size.nonzeros);
  lp.sense = p.sense;
  lp.colCost.set(p.cost);
  const ones = new Float64Array(m).fill(1);
  const idx = new Int32Array(m);
  for (let x = 0; x < n; x++) {
    for (let w = 0; w < m; w++) idx[w] = x * m + w;
    lp.addRow(1, 1, idx, ones);
  }
  if (!graph) return lp;
  const fE = edgeFactors(graph);
  const E = graph.from.length;
  for (let e = 0; e < E; e++) {
    const a = graph.from[e]!;
    const b = graph.to[e]!;
    const f = fE[e]!;
    for (let w = 0; w < m; w++) {
      lp.addRow2(-Infinity, 0, a * m + w, 1, b * m + w, -f);
      lp.addRow2(-Infinity, 0, b * m + w, 1, a * m + w, -f);
    }
    if ((e & 1023) === 1023) checkCancelled(options, `building ${p.what}`);
  }
  return lp;
}

/**
 * The LP restricted to orbit-constant channels (see orbit-reduction.ts): one
 * variable per orbit, one row sum per point orbit, and each privacy row
 * C[a][w] <= f C[b][w] mapped to orbits and deduplicated (keeping the
 * smallest f). The orbit rows are the constraints of the images g(E) of the
 * constraint graph too, a superset of E, so the guarantee is unchanged.
 */
export function buildOrbitLp(
  p: ChannelShape,
  graph: PrivacyConstraintGraph,
  orbits: PairOrbits,
  options?: LpOptions,
): SparseLp {
  const { n, m } = p;
  const V = orbits.count;
  const E = graph.from.length;
  const { orbitOf, pointOrbit } = orbits;
  const fE = edgeFactors(graph);
  const best = new Map<number, number>();
  for (let e = 0; e < E; e++) {
    const a = graph.from[e]!;
    const b = graph.to[e]!;
    const f = fE[e]!;
    for (let w = 0; w < m; w++) {
      const oa = orbitOf[a * m + w]!;
      const ob = orbitOf[b * m + w]!;
      if (oa === ob) continue; // v <= f v with f >= 1: vacuous
      const k1 = oa * V + ob;
      const k2 = ob * V + oa;
      const f1 = best.get(k1);
      if (f1 === undefined || f < f1) best.set(k1, f);
      const f2 = best.get(k2);
      if (f2 === undefined || f < f2) best.set(k2, f);
    }
    if ((e & 1023) === 1023) checkCancelled(options, `building ${p.what}`);
  }
  const lp = new SparseLp(V, best.size + n, 2 * best.size + n * m);
  lp.sense = p.sense;
  for (let i = 0; i < n * m; i++) lp.colCost[orbitOf[i]!]! += p.cost[i]!;
  const coef = new Float64Array(V);
  const touched = new Int32Array(m);
  const seen = new Uint8Array(n);
  for (let x = 0; x < n; x++) {
    if (seen[pointOrbit[x]!]) continue;
    seen[pointOrbit[x]!] = 1;
    let k = 0;
    for (let w = 0; w < m; w++) {
      const o = orbitOf[x * m + w]!;
      if (coef[o] === 0) touched[k++] = o;
      coef[o]! += 1;
    }
    const idx = touched.slice(0, k);
    const val = new Float64Array(k);
    for (let t = 0; t < k; t++) {
      val[t] = coef[idx[t]!]!;
      coef[idx[t]!] = 0;
    }
    lp.addRow(1, 1, idx, val);
  }
  for (const [key, f] of best) {
    const oa = Math.floor(key / V);
    const ob = key - oa * V;
    lp.addRow2(-Infinity, 0, oa, 1, ob, -f);
  }
  return lp;
}
