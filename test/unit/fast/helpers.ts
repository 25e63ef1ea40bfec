import type { Domain } from '../../../src-worker/metric/domain';

/**
 * A product domain V^u over a small factor domain with an additive metric
 * (Hamming when the factor is a clique), built here as a stand-in for the
 * database/Hamming domains other engineers own; it exposes the same
 * structure.product contract (coordinate 0 most significant).
 */
export function productDomain(factor: Domain, u: number, combine: 'sum' | 'max' = 'sum'): Domain {
  const v = factor.n;
  const n = v ** u;
  const digits = (i: number): number[] => {
    const d = new Array<number>(u);
    for (let k = u - 1; k >= 0; k--) {
      d[k] = i % v;
      i = Math.floor(i / v);
    }
    return d;
  };
  return {
    kind: 'database',
    spec: `test-product:${factor.spec}^${u}`,
    description: 'test product domain',
    n,
    label: (i) => digits(i).map((x) => factor.label(x)).join(''),
    distance: (i, j) => {
      const a = digits(i);
      const b = digits(j);
      let s = 0;
      for (let k = 0; k < u; k++) {
        const d = factor.distance(a[k]!, b[k]!);
        s = combine === 'sum' ? s + d : Math.max(s, d);
      }
      return s;
    },
    structure: { product: { factor, power: u, combine } },
  };
}

export function maxRelDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let err = 0;
  let mx = 0;
  for (let i = 0; i < a.length; i++) {
    err = Math.max(err, Math.abs(a[i]! - b[i]!));
    mx = Math.max(mx, Math.abs(a[i]!), Math.abs(b[i]!));
  }
  return mx === 0 ? err : err / mx;
}

export function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/**
 * The discrete metric on N points with only its ball sizes (no edge list:
 * cliqueDomain lists N(N-1)/2 edges, 3 GiB at N = 20000).
 */
export function bareClique(N: number): Domain {
  return {
    kind: 'clique',
    spec: `bare-clique:${N}`,
    description: 'discrete metric, ball sizes only',
    n: N,
    label: (i) => `c${i}`,
    distance: (i, j) => (i === j ? 0 : 1),
    structure: { ballSizes: { radius: Float64Array.from([0, 1]), count: Float64Array.from([1, N - 1]) } },
  };
}
