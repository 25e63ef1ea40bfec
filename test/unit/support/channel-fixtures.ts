/** Test-only channels and domains built from the SPEC formulas (independent of the mechanism code). */
import { Matrix } from '../../../src-worker/linalg/matrix';
import { DenseChannel, type RowSource } from '../../../src-worker/mechanism/channel';
import type { Domain } from '../../../src-worker/metric/domain';

/** Randomised response on n labels (SPEC §2): e^eps/(e^eps+n-1) on the diagonal. */
export function rr(n: number, eps: number): DenseChannel {
  const e = Math.exp(eps);
  const m = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m.set(i, j, (i === j ? e : 1) / (e + n - 1));
  return new DenseChannel(m);
}

/** "Anti" randomised response: the diagonal minimised, 1/(1+(n-1)e^eps) (attains the additive capacity). */
export function antiRR(n: number, eps: number): DenseChannel {
  const e = Math.exp(eps);
  const m = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m.set(i, j, (i === j ? 1 : e) / (1 + (n - 1) * e));
  return new DenseChannel(m);
}

/** Truncated geometric on 0..k (SPEC §2). */
export function tg(k: number, alpha: number): DenseChannel {
  const n = k + 1;
  const m = new Matrix(n, n);
  for (let y = 0; y < n; y++)
    for (let z = 0; z < n; z++) {
      let v: number;
      if (z === 0) v = alpha ** y / (1 + alpha);
      else if (z === k) v = alpha ** (k - y) / (1 + alpha);
      else v = ((1 - alpha) / (1 + alpha)) * alpha ** Math.abs(y - z);
      m.set(y, z, v);
    }
  return new DenseChannel(m);
}

/** Deterministic pseudo-random numbers in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

export function randomChannel(n: number, m: number, seed: number): DenseChannel {
  const r = rng(seed);
  const mat = new Matrix(n, m);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < m; j++) {
      const v = r() + 0.01;
      mat.set(i, j, v);
      s += v;
    }
    for (let j = 0; j < m; j++) mat.set(i, j, mat.get(i, j) / s);
  }
  return new DenseChannel(mat);
}

export function randomPrior(n: number, seed: number): Float64Array {
  const r = rng(seed);
  const p = Float64Array.from({ length: n }, () => r() + 0.05);
  const s = p.reduce((a, b) => a + b, 0);
  return p.map((v) => v / s);
}

/** A RowSource that generates rows from a function: not a DenseChannel, to prove the streaming paths. */
export function implicit(rows: number, cols: number, entry: (i: number, j: number) => number): RowSource {
  return {
    rows,
    cols,
    row(i, out) {
      for (let j = 0; j < cols; j++) out[j] = entry(i, j);
      return out;
    },
    rowLabel: (i) => String(i),
    colLabel: (j) => String(j),
  };
}

/**
 * Product domain V^u over a factor domain (coordinate 0 most significant),
 * d = sum (or max) of per-coordinate distances; over cliqueDomain(v) with
 * 'sum' this is the Hamming metric on databases. Written here because the
 * database domain belongs to another engineer.
 */
export function productDomain(factor: Domain, u: number, combine: 'sum' | 'max' = 'sum'): Domain {
  const v = factor.n;
  const n = v ** u;
  // digit k of i in base v, coordinate 0 most significant
  const digits = (i: number): number[] => Array.from({ length: u }, (_, k) => Math.floor(i / v ** (u - 1 - k)) % v);
  return {
    kind: 'database',
    spec: `test-product:${factor.spec}^${u}:${combine}`,
    description: `test product of ${u} copies of ${factor.spec}`,
    n,
    label: (i) =>
      digits(i)
        .map((k) => factor.label(k))
        .join(''),
    distance: (i, j) => {
      let s = 0;
      for (let k = 0; k < u; k++) {
        const d = factor.distance(i % v, j % v);
        s = combine === 'sum' ? s + d : Math.max(s, d);
        i = Math.floor(i / v);
        j = Math.floor(j / v);
      }
      return s;
    },
    structure: { product: { factor, power: u, combine } },
  };
}

/**
 * The product prior p x p x ... x p (u factors) on V^u, coordinate 0 most significant, entry by entry:
 * pi(x) = p[x_0] p[x_1] ... p[x_(u-1)] (multiplied in that order, as the engine's Kronecker build does).
 */
export function productPrior(p: ArrayLike<number>, u: number): Float64Array {
  const v = p.length;
  return Float64Array.from({ length: v ** u }, (_, i) => {
    let prob = 1;
    for (let scale = v ** (u - 1); scale >= 1; scale /= v) prob *= p[Math.floor(i / scale) % v]!;
    return prob;
  });
}

/** a, a', b, c on a line with a = a' (a pseudometric): Phi has two equal rows, so it is singular. */
export function twinDomain(): Domain {
  const pos = [0, 0, 1, 2];
  return {
    kind: 'custom',
    spec: 'twins',
    description: "a, a', b, c on a line with a = a'",
    n: 4,
    label: (i) => ['a', "a'", 'b', 'c'][i]!,
    distance: (i, j) => Math.abs(pos[i]! - pos[j]!),
    structure: {},
  };
}

/** Custom domain from a symmetric distance table (no validation: tests may build degenerate ones). */
export function tableDomain(d: number[][], labels?: string[]): Domain {
  const n = d.length;
  return {
    kind: 'custom',
    spec: `test-table:${n}`,
    description: 'test table metric',
    n,
    label: (i) => (labels ? labels[i]! : `p${i}`),
    distance: (i, j) => d[i]![j]!,
    structure: {},
  };
}
