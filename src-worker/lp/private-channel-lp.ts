import { MechError } from '../errors';
import type { Domain } from '../metric/domain';
import { assertLpFits } from './memory-estimate';
import { type LpOptions, checkCancelled, progress } from './lp-options';
import { type ConstraintMode, type PrivacyConstraintGraph, DEFAULT_SPANNER_DELTA, privacyConstraintGraph } from './privacy-constraint-graph';
import { SparseLp, solveSparseLp } from './sparse-model';

/**
 * The LP over d-private channels shared by the optimal mechanism (SPEC §2)
 * and the capacities (SPEC §6): variables C[x][w] (index x*m + w) for n
 * secrets and m outputs, C >= 0, each row summing to 1, and for every
 * constrained pair {x, x'} and output w both
 *   C[x][w] - e^(exponent) C[x'][w] <= 0  and  C[x'][w] - e^(exponent) C[x][w] <= 0,
 * optimising sum_{x,w} cost[x*m + w] C[x][w].
 */
export interface PrivateChannelProblem {
  domain: Domain;
  eps: number;
  /** Number of outputs m. */
  outputs: number;
  /** Objective coefficient of C[x][w] at x*m + w. */
  cost: Float64Array;
  sense: 'minimize' | 'maximize';
  constraints?: ConstraintMode;
  delta?: number;
  what: string;
}

export interface PrivateChannelSolution {
  /** Row-major n x m channel (negative rounding clamped to 0, rows renormalised). */
  channel: Float64Array;
  objective: number;
  graph: PrivacyConstraintGraph;
  variables: number;
  constraints: number;
  nonzeros: number;
  buildMs: number;
  solveMs: number;
  /** Largest relative excess of C[x][w] / (e^(exponent) C[x'][w]) over 1 on constrained pairs (0 when all hold). */
  maxConstraintViolation: number;
  iterations: number;
}

/** Variables, rows and nonzeros of the LP for n secrets, m outputs and `pairs` constrained pairs. */
export function privateChannelLpSize(n: number, m: number, pairs: number): { variables: number; rows: number; nonzeros: number } {
  return { variables: n * m, rows: n + 2 * pairs * m, nonzeros: n * m + 4 * pairs * m };
}

export async function solvePrivateChannelLp(p: PrivateChannelProblem, options?: LpOptions): Promise<PrivateChannelSolution> {
  const { domain, eps, outputs: m, cost } = p;
  const n = domain.n;
  if (!Number.isInteger(m) || m < 1) throw new MechError('invalid-input', `${p.what}: the output set must have at least one element, got ${m}`);
  if (cost.length !== n * m) throw new MechError('internal', `${p.what}: cost has ${cost.length} entries, expected ${n * m}`);
  const mode = p.constraints ?? 'auto';
  // Refuse early: even the constraint-free part, or all pairs, may not fit.
  assertLpFits(n * m, n, n * m, p.what);
  if (mode === 'all-pairs') {
    const s = privateChannelLpSize(n, m, (n * (n - 1)) / 2);
    assertLpFits(s.variables, s.rows, s.nonzeros, p.what);
  }
  const t0 = performance.now();
  progress(options, 0, `building the privacy constraint graph of ${domain.spec}`);
  const graph = privacyConstraintGraph(domain, eps, mode, p.delta ?? DEFAULT_SPANNER_DELTA);
  const E = graph.from.length;
  const size = privateChannelLpSize(n, m, E);
  assertLpFits(size.variables, size.rows, size.nonzeros, p.what);
  checkCancelled(options, `building ${p.what}`);
  progress(options, 0.1, `building ${p.what}: ${size.variables} variables, ${size.rows} constraints`);

  const lp = new SparseLp(n * m, size.rows, size.nonzeros);
  lp.sense = p.sense;
  lp.colCost.set(cost);
  const ones = new Float64Array(m).fill(1);
  const idx = new Int32Array(m);
  for (let x = 0; x < n; x++) {
    for (let w = 0; w < m; w++) idx[w] = x * m + w;
    lp.addRow(1, 1, idx, ones);
  }
  for (let e = 0; e < E; e++) {
    const a = graph.from[e]!;
    const b = graph.to[e]!;
    const f = Math.exp(graph.exponent[e]!);
    for (let w = 0; w < m; w++) {
      lp.addRow2(-Infinity, 0, a * m + w, 1, b * m + w, -f);
      lp.addRow2(-Infinity, 0, b * m + w, 1, a * m + w, -f);
    }
    if ((e & 1023) === 1023) checkCancelled(options, `building ${p.what}`);
  }
  const buildMs = performance.now() - t0;
  checkCancelled(options, `building ${p.what}`);

  const sol = await solveSparseLp(lp, p.what, options);
  progress(options, 0.9, `extracting the channel of ${p.what}`);
  const C = sol.colValue;
  // Tidy solver rounding. On a connected constraint graph a private column is
  // either all zero or all positive; a column holding zeros whose largest entry
  // is below the solver tolerance is rounding noise: zero it (else 1e-18 next
  // to an exact 0 would read as an infinite privacy ratio).
  const NOISE = 1e-9;
  for (let w = 0; w < m; w++) {
    let mx = 0;
    let hasZero = false;
    for (let x = 0; x < n; x++) {
      const v = C[x * m + w]!;
      if (v <= 0) hasZero = true;
      else if (v > mx) mx = v;
    }
    if (hasZero && mx < NOISE) for (let x = 0; x < n; x++) C[x * m + w] = 0;
  }
  for (let x = 0; x < n; x++) {
    let s = 0;
    for (let w = 0; w < m; w++) {
      const v = C[x * m + w]!;
      if (v < 0) C[x * m + w] = 0;
      else s += v;
    }
    if (!(s > 0)) throw new MechError('internal', `${p.what}: the solver returned an empty row for ${domain.label(x)}`);
    for (let w = 0; w < m; w++) C[x * m + w] = C[x * m + w]! / s;
  }
  let viol = 0;
  for (let e = 0; e < E; e++) {
    const a = graph.from[e]!;
    const b = graph.to[e]!;
    const f = Math.exp(graph.exponent[e]!);
    for (let w = 0; w < m; w++) {
      const ca = C[a * m + w]!;
      const cb = C[b * m + w]!;
      const r1 = ca > f * cb ? (cb === 0 ? Infinity : ca / (f * cb) - 1) : 0;
      const r2 = cb > f * ca ? (ca === 0 ? Infinity : cb / (f * ca) - 1) : 0;
      if (r1 > viol) viol = r1;
      if (r2 > viol) viol = r2;
    }
  }
  progress(options, 1, `${p.what} solved`);
  return {
    channel: C,
    objective: sol.objective,
    graph,
    variables: size.variables,
    constraints: size.rows,
    nonzeros: size.nonzeros,
    buildMs,
    solveMs: sol.solveMs + sol.loadMs,
    maxConstraintViolation: viol,
    iterations: sol.iterations,
  };
}
