import type { Domain } from '../../../src-worker/metric/domain';
import { seededRandom } from '../../../src-shared/numeric/seeded-random';

/** A custom Domain from a full distance matrix (tests only). */
export function matrixDomain(d: number[][], spec = 'custom'): Domain {
  const n = d.length;
  return {
    kind: 'custom',
    spec,
    description: spec,
    n,
    label: (i) => String(i),
    distance: (i, j) => d[i]![j]!,
    structure: {},
  };
}

/** Deterministic PRNG (mulberry32). */
export const rng = seededRandom;

/** Shortest-path metric of a random connected weighted graph with integer weights 1..maxW. */
export function randomGraphMetric(n: number, seed: number, maxW = 3): number[][] {
  const r = rng(seed);
  const d = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 0 : Infinity)));
  for (let i = 1; i < n; i++) {
    const j = Math.floor(r() * i); // spanning tree keeps it connected
    const w = 1 + Math.floor(r() * maxW);
    d[i]![j] = d[j]![i] = w;
  }
  for (let e = 0; e < n; e++) {
    const i = Math.floor(r() * n);
    const j = Math.floor(r() * n);
    if (i === j) continue;
    const w = 1 + Math.floor(r() * maxW);
    if (w < d[i]![j]!) d[i]![j] = d[j]![i] = w;
  }
  for (let k = 0; k < n; k++)
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) if (d[i]![k]! + d[k]![j]! < d[i]![j]!) d[i]![j] = d[i]![k]! + d[k]![j]!;
  return d;
}

/** Euclidean metric of random points in the unit square (irrational ratios: float arithmetic). */
export function randomEuclideanMetric(n: number, seed: number): number[][] {
  const r = rng(seed);
  const p = Array.from({ length: n }, () => [r() * 2, r() * 2] as const);
  return p.map((a) => p.map((b) => Math.hypot(a[0] - b[0], a[1] - b[1])));
}

/** Largest ln(C[x][y] / C[x'][y]) / d(x, x') over all pairs (SPEC §4), computed directly. */
export function effectiveEpsilon(C: number[][], d: (i: number, j: number) => number): number {
  let worst = 0;
  const n = C.length;
  const m = C[0]!.length;
  for (let x = 0; x < n; x++)
    for (let x2 = 0; x2 < n; x2++) {
      if (x === x2) continue;
      for (let y = 0; y < m; y++) {
        const a = C[x]![y]!;
        const b = C[x2]![y]!;
        if (a === 0) continue;
        if (b === 0) return Infinity;
        worst = Math.max(worst, Math.log(a / b) / d(x, x2));
      }
    }
  return worst;
}
