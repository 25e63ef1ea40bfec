import { MechError } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { doubleDescription, type ConeArithmetic } from './double-description';
import { exactRank, normaliseIntVector, ratioToNumber } from './exact-arithmetic';
import {
  privatePosteriorConstraints,
  type ConstraintOptions,
  type ExplorerArithmetic,
  type PrivatePosteriorConstraints,
} from './private-posterior-constraints';
import { checkCancelled } from '../numeric/cancel';

/**
 * Vertices of the polytope of eps*d-private posteriors (SPEC §6) by the double
 * description method, then verified vertex by vertex.
 *
 * Arithmetic: exact (BigInt integer rays) when every e^(eps d) is a
 * recognisable rational, e.g. eps = ln 2 on integral metrics, or when the
 * distances share a common unit (powers of the rounded base, see
 * powerRatios in private-posterior-constraints); otherwise (e.g. Euclidean
 * distances with sqrt 2) float
 * with the tolerances below, followed by a verification that every reported
 * point is feasible and has n - 1 linearly independent tight constraints
 * (within VERIFY_TOL), and that no two coincide.
 */

/** Float sign test: |a.x| <= DD_FLOAT_TOL * sum_j |a_j x_j| counts as tight. */
const DD_FLOAT_TOL = 1e-10;
/** Float pivot tolerance of the algebraic adjacency test (rows scaled to max |entry| = 1). */
const DD_RANK_TOL = 1e-9;
/**
 * Float verification tolerance, relative (feasibility, tightness and duplicates: to the size of the terms; rank pivots:
 * rows scaled to max 1).
 */
const VERIFY_TOL = 1e-9;

export interface PosteriorVertices {
  spec: string;
  n: number;
  eps: number;
  arithmetic: ExplorerArithmetic;
  /** Exact mode: 'rational' (true polytope) or 'rounded' (powers of the rounded base e^(eps unit)). */
  exactBase: 'rational' | 'rounded' | null;
  count: number;
  /** count x n, row-major; each row a distribution (sums to 1). Sorted lexicographically. */
  vertices: Float64Array;
  /** Exact mode: the same vertices as primitive integer vectors (vertex = ray / sum(ray)). */
  exactRays: bigint[][] | null;
  /** Indices of the constraints tight at each vertex. */
  tight: number[][];
  constraints: PrivatePosteriorConstraints;
  stats: { constraints: number; peakRays: number; ms: number; droppedInVerification: number };
  /** Accuracy caveats for the user (float mode dropping points, ...). */
  warnings: string[];
}

interface VertexOptions extends ConstraintOptions {
  signal?: AbortSignal;
  maxRays?: number;
  /** See DoubleDescriptionOptions.algebraicAbove. */
  algebraicAbove?: number;
  /** Per added constraint (those that cut the cone): done of m constraints, current ray count. */
  onProgress?: (p: { done: number; of: number; rays: number }) => void;
}

export function vertexOf(v: PosteriorVertices, i: number): Float64Array {
  return v.vertices.subarray(i * v.n, (i + 1) * v.n);
}

function floatArithmetic(sys: PrivatePosteriorConstraints): ConeArithmetic<Float64Array> {
  const { n, m, rows } = sys;
  const dot = (c: number, r: Float64Array): [number, number] => {
    let v = 0;
    let s = 0;
    for (let j = 0; j < n; j++) {
      const t = rows[c * n + j]! * r[j]!;
      v += t;
      s += Math.abs(t);
    }
    return [v, s];
  };
  return {
    n,
    m,
    unit: (i) => {
      const e = new Float64Array(n);
      e[i] = 1;
      return e;
    },
    sign: (c, r) => {
      const [v, s] = dot(c, r);
      return Math.abs(v) <= DD_FLOAT_TOL * s ? 0 : v > 0 ? 1 : -1;
    },
    combine: (c, rp, rm) => {
      const vp = dot(c, rp)[0];
      const vm = dot(c, rm)[0];
      const out = new Float64Array(n);
      let sum = 0;
      for (let j = 0; j < n; j++) {
        let x = vp * rm[j]! - vm * rp[j]!;
        if (x < 0) x = 0; // both rays lie in the orthant: only rounding can make x < 0
        out[j] = x;
        sum += x;
      }
      for (let j = 0; j < n; j++) out[j]! /= sum;
      return out;
    },
    rank: (cs) => floatRank(rows, cs, n, DD_RANK_TOL),
  };
}

function exactArithmetic(sys: PrivatePosteriorConstraints): ConeArithmetic<bigint[]> {
  const { n, m } = sys;
  const rows = sys.intRows!;
  const dot = (c: number, r: bigint[]): bigint => {
    const a = rows[c]!;
    let v = 0n;
    for (let j = 0; j < n; j++) if (a[j] !== 0n) v += a[j]! * r[j]!;
    return v;
  };
  return {
    n,
    m,
    unit: (i) => {
      const e = new Array<bigint>(n).fill(0n);
      e[i] = 1n;
      return e;
    },
    sign: (c, r) => {
      const v = dot(c, r);
      return v > 0n ? 1 : v < 0n ? -1 : 0;
    },
    combine: (c, rp, rm) => {
      const vp = dot(c, rp);
      const vm = dot(c, rm);
      const out = new Array<bigint>(n);
      for (let j = 0; j < n; j++) out[j] = vp * rm[j]! - vm * rp[j]!;
      return normaliseIntVector(out);
    },
    rank: (cs) =>
      exactRank(
        cs.map((c) => rows[c]!),
        n,
      ),
  };
}

/** Float rank of the given rows of an n-column matrix, pivots below tol counted as zero. */
function floatRank(rowsFlat: Float64Array, which: number[], n: number, tol = VERIFY_TOL): number {
  const a = which.map((c) => rowsFlat.slice(c * n, (c + 1) * n));
  let rank = 0;
  for (let col = 0; col < n && rank < a.length; col++) {
    let p = -1;
    let best = tol;
    for (let i = rank; i < a.length; i++) {
      const v = Math.abs(a[i]![col]!);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (p < 0) continue;
    [a[rank], a[p]] = [a[p]!, a[rank]!];
    const pr = a[rank]!;
    for (let i = rank + 1; i < a.length; i++) {
      const f = a[i]![col]! / pr[col]!;
      if (f !== 0) for (let j = col; j < n; j++) a[i]![j]! -= f * pr[j]!;
    }
    rank++;
  }
  return rank;
}

export function privatePosteriorVertices(domain: Domain, eps: number, options: VertexOptions = {}): PosteriorVertices {
  const t0 = performance.now();
  const sys = privatePosteriorConstraints(domain, eps, options);
  const { n, m } = sys;
  checkCancelled(options.signal, 'vertex enumeration cancelled');
  const ddOpts = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.maxRays ? { maxRays: options.maxRays } : {}),
    ...(options.algebraicAbove !== undefined ? { algebraicAbove: options.algebraicAbove } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
  const items: { x: Float64Array; ray: bigint[] | null; tight: number[] }[] = [];
  let dropped = 0;
  let peakRays: number;
  if (sys.arithmetic === 'exact') {
    const res = doubleDescription(exactArithmetic(sys), ddOpts);
    peakRays = res.peakRays;
    const seen = new Set<string>();
    for (const ray of res.rays) {
      const key = ray.join(',');
      if (seen.has(key)) throw new MechError('internal', 'vertex enumeration produced a duplicate vertex (exact mode)');
      seen.add(key);
      // Exact verification: feasible, and the tight constraints have rank n - 1.
      const tight: number[] = [];
      for (let c = 0; c < m; c++) {
        const a = sys.intRows![c]!;
        let v = 0n;
        for (let j = 0; j < n; j++) v += a[j]! * ray[j]!;
        if (v < 0n)
          throw new MechError(
            'internal',
            `vertex enumeration produced an infeasible point (violates ${sys.describe(c)})`,
          );
        if (v === 0n) tight.push(c);
      }
      if (
        exactRank(
          tight.map((c) => sys.intRows![c]!),
          n,
        ) !==
        n - 1
      ) {
        throw new MechError('internal', 'vertex enumeration produced a point that is not a vertex (exact mode)');
      }
      let sum = 0n;
      for (const v of ray) sum += v;
      const x = new Float64Array(n);
      for (let j = 0; j < n; j++) x[j] = ratioToNumber(ray[j]!, sum);
      items.push({ x, ray, tight });
    }
  } else {
    const res = doubleDescription(floatArithmetic(sys), ddOpts);
    peakRays = res.peakRays;
    for (const x of res.rays) {
      // Relative tests (scale of the terms), so that tiny coordinates at large
      // eps * d are judged as precisely as large ones.
      const tight: number[] = [];
      let feasible = true;
      for (let c = 0; c < m; c++) {
        let v = 0;
        let scale = 0;
        for (let j = 0; j < n; j++) {
          const t = sys.rows[c * n + j]! * x[j]!;
          v += t;
          scale += Math.abs(t);
        }
        if (v < -VERIFY_TOL * scale) feasible = false;
        if (Math.abs(v) <= VERIFY_TOL * scale) tight.push(c);
      }
      const dup = items.some((it) => {
        for (let j = 0; j < n; j++)
          if (Math.abs(it.x[j]! - x[j]!) > VERIFY_TOL * Math.max(Math.abs(it.x[j]!), Math.abs(x[j]!))) return false;
        return true;
      });
      if (!feasible || dup || floatRank(sys.rows, tight, n) !== n - 1) {
        dropped++;
        continue;
      }
      items.push({ x, ray: null, tight });
    }
  }
  items.sort((a, b) => {
    for (let j = 0; j < n; j++) if (a.x[j] !== b.x[j]) return a.x[j]! - b.x[j]!;
    return 0;
  });
  const vertices = new Float64Array(items.length * n);
  items.forEach((it, i) => vertices.set(it.x, i * n));
  return {
    spec: domain.spec,
    n,
    eps,
    arithmetic: sys.arithmetic,
    exactBase: sys.exactBase,
    count: items.length,
    vertices,
    exactRays: sys.arithmetic === 'exact' ? items.map((it) => it.ray!) : null,
    tight: items.map((it) => it.tight),
    constraints: sys,
    stats: { constraints: m, peakRays, ms: performance.now() - t0, droppedInVerification: dropped },
    warnings:
      dropped > 0
        ? [
            `float arithmetic: ${dropped} candidate point(s) failed verification and were dropped; at this eps * d the vertex list may be incomplete (tolerance ${VERIFY_TOL})`,
          ]
        : [],
  };
}
