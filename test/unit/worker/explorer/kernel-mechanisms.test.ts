import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { exactCombination } from '../../../../src-worker/explorer/exact-arithmetic';
import { kernelChannel, kernelMechanism } from '../../../../src-worker/explorer/kernel-channel';
import { enumerateKernelMechanisms, type KernelProgress } from '../../../../src-worker/explorer/kernel-mechanisms';
import {
  privatePosteriorVertices,
  vertexOf,
  type PosteriorVertices,
} from '../../../../src-worker/explorer/posterior-vertices';
import { validateChannel } from '../../../../src-worker/mechanism/channel';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import type { Domain } from '../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { ringDomain } from '../../../../src-worker/metric/ring';
import {
  effectiveEpsilon,
  matrixDomain,
  randomEuclideanMetric,
  randomGraphMetric,
} from '../../support/metrics-for-tests';

const LN2 = Math.LN2;

/**
 * How many subsets of 0..items-1 of each size 1..n pass accept (bySize[0] stays 0): the brute-force references'
 * enumeration.
 */
function countSubsetsBySize(items: number, n: number, accept: (pick: readonly number[]) => boolean): number[] {
  const bySize = new Array<number>(n + 1).fill(0);
  const pick: number[] = [];
  const rec = (start: number): void => {
    if (pick.length > 0 && accept(pick)) bySize[pick.length]!++;
    if (pick.length === n) return;
    for (let i = start; i < items; i++) {
      pick.push(i);
      rec(i + 1);
      pick.pop();
    }
  };
  rec(0);
  return bySize;
}

/** Reference: every vertex subset of size <= n, exact solve, all weights > 0. */
function bruteForceKernelCount(pv: PosteriorVertices): number[] {
  const rays = pv.exactRays!;
  const ones = new Array<bigint>(pv.n).fill(1n);
  return countSubsetsBySize(rays.length, pv.n, (pick) => {
    const w = exactCombination(
      pick.map((i) => rays[i]!),
      ones,
    );
    return w !== null && w.every(([num]) => num > 0n);
  });
}

/** Float reference for non-integral metrics: least squares on every subset of size <= n. */
function bruteForceKernelCountFloat(pv: PosteriorVertices, tol = 1e-9): number[] {
  const n = pv.n;
  const test = (pick: readonly number[]): boolean => {
    const s = pick.length;
    // Normal equations G w = V^T u with G = V^T V (s x s).
    const g = Array.from({ length: s }, (_, a) => {
      const row = Array.from({ length: s }, (_, b) => dot(vertexOf(pv, pick[a]!), vertexOf(pv, pick[b]!)));
      row.push(vertexOf(pv, pick[a]!).reduce((x, y) => x + y, 0) / n);
      return row;
    });
    for (let c = 0; c < s; c++) {
      let p = c;
      for (let i = c + 1; i < s; i++) if (Math.abs(g[i]![c]!) > Math.abs(g[p]![c]!)) p = i;
      if (Math.abs(g[p]![c]!) < 1e-13) return false; // dependent
      [g[p], g[c]] = [g[c]!, g[p]!];
      for (let i = 0; i < s; i++) {
        if (i === c) continue;
        const f = g[i]![c]! / g[c]![c]!;
        for (let j = c; j <= s; j++) g[i]![j]! -= f * g[c]![j]!;
      }
    }
    const w = g.map((row, i) => row[s]! / row[i]!);
    if (!w.every((x) => x > tol)) return false;
    for (let x = 0; x < n; x++) {
      let r = -1 / n;
      for (let k = 0; k < s; k++) r += w[k]! * vertexOf(pv, pick[k]!)[x]!;
      if (Math.abs(r) > 1e-10) return false; // u not in the span
    }
    return true;
  };
  return countSubsetsBySize(pv.count, n, test);
}

describe('kernel mechanisms (SPEC §6)', () => {
  for (const [name, dom, eps] of [
    ['grid 2x2 euclidean, eps 1.1', gridDomain(2, 2), 1.1],
    ['random euclidean n=4, eps 1', matrixDomain(randomEuclideanMetric(4, 5)), 1],
    ['random euclidean n=4, eps 2.5', matrixDomain(randomEuclideanMetric(4, 9)), 2.5],
  ] as const) {
    it(`float arithmetic (non-integral metric) agrees with a least-squares brute force: ${name}`, () => {
      const pv = privatePosteriorVertices(dom, eps);
      expect(pv.arithmetic).toBe('float');
      const r = enumerateKernelMechanisms(pv);
      expect(r.bySize).toEqual(bruteForceKernelCountFloat(pv));
      expect(r.count).toBeGreaterThan(0);
      expect(r.warnings).toEqual([]);
    });
  }

  it('line, eps = ln 2: 1, 2, 11, 187 kernel mechanisms for N = 2..5 (SPEC §7)', () => {
    const res = [2, 3, 4, 5].map((N) => enumerateKernelMechanisms(privatePosteriorVertices(lineDomain(N), LN2)));
    expect(res.map((r) => r.count)).toEqual([1, 2, 11, 187]);
    // Of which full-size (n linearly independent vertices): 1, 1, 8, 157.
    expect(res.map((r) => r.bySize[r.n])).toEqual([1, 1, 8, 157]);
    expect(res[1]!.bySize).toEqual([0, 0, 1, 1]);
    for (const r of res) expect(r.arithmetic).toBe('exact');
  });

  it('capacities from the basic solutions match SPEC §7 (line and discrete metric, eps = ln 2)', () => {
    const mult = [4 / 3, 5 / 3, 2, 7 / 3];
    const add = [1 / 3, 1 / 2, 2 / 3, 3 / 4];
    [2, 3, 4, 5].forEach((N, i) => {
      const r = enumerateKernelMechanisms(privatePosteriorVertices(lineDomain(N), LN2));
      expect(r.multiplicativeCapacity).toBeCloseTo(mult[i]!, 12);
      expect(r.additiveCapacity).toBeCloseTo(add[i]!, 12);
      // Closed form (N(1-alpha) + 2 alpha)/(1+alpha), alpha = 1/2 (SPEC §6).
      expect(r.multiplicativeCapacity).toBeCloseTo((N * 0.5 + 1) / 1.5, 12);
    });
    const discrete = [4 / 3, 3 / 2, 8 / 5, 5 / 3];
    [2, 3, 4, 5].forEach((n, i) => {
      const r = enumerateKernelMechanisms(privatePosteriorVertices(cliqueDomain(n), LN2));
      expect(r.multiplicativeCapacity).toBeCloseTo(discrete[i]!, 12);
      expect(r.additiveCapacity).toBeCloseTo(1 - n / (1 + (n - 1) * 2), 12);
    });
  });

  it('discrete metric, eps = ln 2: 1, 5, 41, 1291 kernel mechanisms for n = 2..5 (recorded)', () => {
    const res = [2, 3, 4, 5].map((n) => enumerateKernelMechanisms(privatePosteriorVertices(cliqueDomain(n), LN2)));
    expect(res.map((r) => r.count)).toEqual([1, 5, 41, 1291]);
    // n = 3: the hexagon's two alternating triangles and its three long diagonals.
    expect(res[1]!.bySize).toEqual([0, 0, 3, 2]);
  });

  const exactCases: [string, Domain, number][] = [
    ['line 4', lineDomain(4), LN2],
    ['line 5', lineDomain(5), LN2],
    ['ring 4', ringDomain(4), LN2],
    ['ring 5 (eps ln 3/2)', ringDomain(5), Math.log(1.5)],
    ['clique 4', cliqueDomain(4), LN2],
    ['grid 2x2 manhattan', gridDomain(2, 2, 1, 'manhattan'), LN2],
    ['random graph metric n=4', matrixDomain(randomGraphMetric(4, 7)), LN2],
    ['random graph metric n=5', matrixDomain(randomGraphMetric(5, 11, 2)), LN2],
  ];
  for (const [name, dom, eps] of exactCases) {
    it(`pruned search agrees with brute force over all subsets: ${name}`, () => {
      const pv = privatePosteriorVertices(dom, eps);
      expect(pv.arithmetic).toBe('exact');
      const r = enumerateKernelMechanisms(pv);
      expect(r.bySize).toEqual(bruteForceKernelCount(pv));
      expect(r.count).toBeGreaterThan(0);
      // The float path (no exact re-checks) finds the same counts here.
      const rf = enumerateKernelMechanisms(privatePosteriorVertices(dom, eps, { arithmetic: 'float' }));
      expect(rf.arithmetic).toBe('float');
      expect(rf.bySize).toEqual(r.bySize);
    });
  }

  it('exact on powers of the rounded base and float agree for an irrational eps', () => {
    const a = enumerateKernelMechanisms(privatePosteriorVertices(lineDomain(5), 0.7));
    const b = enumerateKernelMechanisms(privatePosteriorVertices(lineDomain(5), 0.7, { arithmetic: 'float' }));
    expect(a.arithmetic).toBe('exact');
    expect(b.arithmetic).toBe('float');
    expect(a.bySize).toEqual(b.bySize);
    expect(a.multiplicativeCapacity).toBeCloseTo(b.multiplicativeCapacity, 10);
    const alpha = Math.exp(-0.7);
    expect(a.multiplicativeCapacity).toBeCloseTo((5 * (1 - alpha) + 2 * alpha) / (1 + alpha), 10);
  });

  it('stays exact at large eps * d (entries spanning 1e-35..1): line 5 at eps 20, line 4 at eps 40, clique 4 at eps 20, agree with brute force', () => {
    for (const [dom, eps] of [
      [lineDomain(5), 20],
      [lineDomain(4), 40],
      [cliqueDomain(4), 20],
    ] as const) {
      const pv = privatePosteriorVertices(dom, eps);
      expect(pv.arithmetic).toBe('exact');
      const r = enumerateKernelMechanisms(pv);
      expect(r.bySize).toEqual(bruteForceKernelCount(pv));
      expect(r.warnings).toEqual([]);
    }
    // Generic eps: line 5 has 195 kernel mechanisms; eps = ln 2 is special (187).
    expect(enumerateKernelMechanisms(privatePosteriorVertices(lineDomain(5), 20)).count).toBe(195);
  });

  const channelCases: [string, Domain, number][] = [
    ['line 5, ln 2', lineDomain(5), LN2],
    ['ring 4, eps 0.8', ringDomain(4), 0.8],
    ['line 4, eps 0.3', lineDomain(4), 0.3],
    ['clique 4, ln 2', cliqueDomain(4), LN2],
    ['grid 2x2 euclidean, eps 1.1', gridDomain(2, 2), 1.1],
  ];
  for (const [name, dom, eps] of channelCases) {
    it(`every kernel mechanism is a valid eps*d-private channel whose uniform-prior posteriors are its vertices: ${name}`, () => {
      const pv = privatePosteriorVertices(dom, eps);
      const r = enumerateKernelMechanisms(pv, { collect: true });
      expect(r.mechanisms!.length).toBe(r.count);
      expect(r.truncated).toBe(false);
      const n = dom.n;
      let worstWeightSum = 0;
      let worstPosterior = 0;
      let worstEps = 0;
      let minGram = Infinity;
      for (const km of r.mechanisms!) {
        expect(km.weights.every((w) => w > 0)).toBe(true);
        worstWeightSum = Math.max(worstWeightSum, Math.abs(km.weights.reduce((a, b) => a + b, 0) - 1));
        const ch = kernelChannel(pv, km, dom);
        validateChannel(ch, 'kernel mechanism');
        const C = Array.from({ length: n }, (_, x) => Array.from(ch.matrix.row(x)));
        worstEps = Math.max(
          worstEps,
          effectiveEpsilon(C, (a, b) => dom.distance(a, b)),
        );
        // Posterior of column k under the uniform prior: C[x][k] / sum_x C[x][k] = v_k.
        for (let k = 0; k < km.vertices.length; k++) {
          const col = C.map((row) => row[k]!);
          const p = col.reduce((a, b) => a + b, 0);
          const v = vertexOf(pv, km.vertices[k]!);
          for (let x = 0; x < n; x++) worstPosterior = Math.max(worstPosterior, Math.abs(col[x]! / p - v[x]!));
        }
        // Linear independence of the chosen vertices: their Gram determinant is nonzero.
        minGram = Math.min(
          minGram,
          Math.abs(
            gramDet(km.vertices.length, (i, j) => dot(vertexOf(pv, km.vertices[i]!), vertexOf(pv, km.vertices[j]!))),
          ),
        );
      }
      expect(worstWeightSum).toBeLessThan(1e-12);
      expect(worstEps).toBeLessThanOrEqual(eps * (1 + 1e-9));
      expect(worstEps).toBeGreaterThan(0);
      expect(worstPosterior).toBeLessThan(1e-12);
      expect(minGram).toBeGreaterThan(1e-14);
      // The best multiplicative kernel attains the reported capacity.
      const best = kernelChannel(pv, r.bestMultiplicative!);
      let sum = 0;
      for (let y = 0; y < best.cols; y++) {
        let mx = 0;
        for (let x = 0; x < n; x++) mx = Math.max(mx, best.matrix.get(x, y));
        sum += mx;
      }
      expect(sum).toBeCloseTo(r.multiplicativeCapacity, 12);
      expect(kernelMechanism(pv, r.mechanisms![0]!, dom).guaranteedEpsilon).toBe(eps);
    });
  }

  it('edge cases: one point, and a metric with every pair fully distinguishable (identity is the only kernel)', () => {
    const one = enumerateKernelMechanisms(privatePosteriorVertices(lineDomain(1), 1));
    expect([one.count, one.multiplicativeCapacity, one.additiveCapacity]).toEqual([1, 1, 0]);
    const inf = matrixDomain([
      [0, Infinity, Infinity],
      [Infinity, 0, Infinity],
      [Infinity, Infinity, 0],
    ]);
    const pv = privatePosteriorVertices(inf, 1);
    expect(pv.count).toBe(3);
    const r = enumerateKernelMechanisms(pv, { collect: true });
    expect(r.bySize).toEqual([0, 0, 0, 1]);
    expect(r.multiplicativeCapacity).toBe(3);
    expect(r.additiveCapacity).toBe(1);
    const ch = kernelChannel(pv, r.mechanisms![0]!);
    for (let x = 0; x < 3; x++)
      for (let y = 0; y < 3; y++)
        expect(ch.matrix.get(x, y)).toBeCloseTo(ch.colLabels[y] === `v${[2, 1, 0][x]}` ? 1 : 0, 14);
  });

  it('maxCollect truncates the list but not the count', () => {
    const r = enumerateKernelMechanisms(privatePosteriorVertices(lineDomain(5), LN2), {
      collect: true,
      maxCollect: 10,
    });
    expect(r.count).toBe(187);
    expect(r.mechanisms!.length).toBe(10);
    expect(r.truncated).toBe(true);
  });

  it('reports progress and honours cancellation and the size limit with typed MechErrors', () => {
    const pv = privatePosteriorVertices(cliqueDomain(5), LN2);
    const seen: KernelProgress[] = [];
    const r = enumerateKernelMechanisms(pv, { onProgress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)).toEqual({ examined: r.examined, upperBound: r.upperBound, found: 1291 });
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.examined).toBeGreaterThanOrEqual(seen[i - 1]!.examined);

    const ac = new AbortController();
    let err: unknown;
    try {
      enumerateKernelMechanisms(pv, { signal: ac.signal, onProgress: () => ac.abort() });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MechError);
    expect((err as MechError).code).toBe('cancelled');

    const pre = new AbortController();
    pre.abort();
    expect(() => enumerateKernelMechanisms(pv, { signal: pre.signal })).toThrow(/cancelled/);

    try {
      enumerateKernelMechanisms(pv, { maxSubsets: 1000 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(MechError);
      expect((e as MechError).code).toBe('too-large');
      expect((e as MechError).message).toMatch(/clique:5.*up to 174436 vertex subsets.*limit of 1000/);
    }
    // line 7 (64 vertices) is refused under the default limit.
    try {
      enumerateKernelMechanisms(privatePosteriorVertices(lineDomain(7), LN2));
      expect.unreachable();
    } catch (e) {
      expect((e as MechError).code).toBe('too-large');
    }
    expect(() => kernelChannel(pv, { vertices: Int32Array.of(0, 99), weights: Float64Array.of(0.5, 0.5) })).toThrow(
      /vertex index 99/,
    );
    expect(() => kernelChannel(pv, { vertices: Int32Array.of(0, 1), weights: Float64Array.of(1, 0) })).toThrow(
      /not positive/,
    );
  });
});

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function gramDet(k: number, g: (i: number, j: number) => number): number {
  const a = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (_, j) => g(i, j)));
  let det = 1;
  for (let c = 0; c < k; c++) {
    let p = c;
    for (let i = c + 1; i < k; i++) if (Math.abs(a[i]![c]!) > Math.abs(a[p]![c]!)) p = i;
    if (a[p]![c] === 0) return 0;
    if (p !== c) {
      [a[p], a[c]] = [a[c]!, a[p]!];
      det = -det;
    }
    det *= a[c]![c]!;
    for (let i = c + 1; i < k; i++) {
      const f = a[i]![c]! / a[c]![c]!;
      for (let j = c; j < k; j++) a[i]![j]! -= f * a[c]![j]!;
    }
  }
  return det;
}
