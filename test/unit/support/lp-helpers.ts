/**
 * Small local references for the LP tests (independent of the mechanism and
 * measure modules): TG, RR and exponential channels from their SPEC §2
 * formulas, an expected loss with optimal remap (SPEC §3), and a brute-force
 * privacy check over all pairs (SPEC §4).
 */
import { expect } from 'vitest';
import type { OptimalMechanism } from '../../../src-worker/lp/optimal/optimal-mechanism';
import type { DenseChannel } from '../../../src-worker/mechanism/channel';
import type { Domain } from '../../../src-worker/metric/domain';

/** The row-major entries of a solved (dense) channel. */
export const data = (m: { channel: unknown }): Float64Array => (m.channel as DenseChannel).matrix.data;
/** The LP objective an optimal mechanism reports. */
export const obj = (m: OptimalMechanism): number => m.facts.solve.objective;

/** Weights scaled to sum to 1 (a prior). */
export function normalised(w: number[]): Float64Array {
  const s = w.reduce((a, b) => a + b, 0);
  return Float64Array.from(w, (v) => v / s);
}

export function tgChannel(N: number, eps: number): Float64Array {
  const a = Math.exp(-eps);
  const C = new Float64Array(N * N);
  for (let y = 0; y < N; y++)
    for (let z = 0; z < N; z++) {
      let v = ((1 - a) / (1 + a)) * a ** Math.abs(y - z);
      if (z === 0) v = a ** y / (1 + a);
      if (z === N - 1) v = a ** (N - 1 - y) / (1 + a);
      C[y * N + z] = v;
    }
  return C;
}

export function rrChannel(n: number, eps: number): Float64Array {
  const e = Math.exp(eps);
  const C = new Float64Array(n * n).fill(1 / (e + n - 1));
  for (let i = 0; i < n; i++) C[i * n + i] = e / (e + n - 1);
  return C;
}

export function exponentialChannel(domain: Domain, eps: number): Float64Array {
  const n = domain.n;
  const C = new Float64Array(n * n);
  for (let x = 0; x < n; x++) {
    let s = 0;
    for (let y = 0; y < n; y++) s += C[x * n + y] = Math.exp((-eps * domain.distance(x, y)) / 2);
    for (let y = 0; y < n; y++) C[x * n + y] = C[x * n + y]! / s;
  }
  return C;
}

/** U_l[pi > C] = sum_y min_w sum_x pi_x C[x][y] loss(w, x), guesses w over `guesses` values. */
export function remappedLoss(
  C: Float64Array,
  n: number,
  m: number,
  pi: ArrayLike<number>,
  loss: (w: number, x: number) => number,
  guesses = n,
): number {
  let total = 0;
  for (let y = 0; y < m; y++) {
    let best = Infinity;
    for (let w = 0; w < guesses; w++) {
      let s = 0;
      for (let x = 0; x < n; x++) s += pi[x]! * C[x * m + y]! * loss(w, x);
      if (s < best) best = s;
    }
    total += best;
  }
  return total;
}

/** Direct expected loss sum_x pi_x sum_w C[x][w] loss(w, x). */
export function directLoss(
  C: Float64Array,
  n: number,
  m: number,
  pi: ArrayLike<number>,
  loss: (w: number, x: number) => number,
): number {
  let s = 0;
  for (let x = 0; x < n; x++) for (let w = 0; w < m; w++) s += pi[x]! * C[x * m + w]! * loss(w, x);
  return s;
}

/** Largest ratio C[x][y] / (e^(eps d(x,x')) C[x'][y]) over all pairs and columns (<= 1 when private). */
export function worstPrivacyRatio(C: Float64Array, domain: Domain, m: number, eps: number): number {
  const n = domain.n;
  let worst = 0;
  for (let x = 0; x < n; x++)
    for (let xp = 0; xp < n; xp++) {
      if (x === xp) continue;
      const f = Math.exp(eps * domain.distance(x, xp));
      for (let y = 0; y < m; y++) {
        const a = C[x * m + y]!;
        const b = C[xp * m + y]!;
        if (a === 0) continue;
        const r = b === 0 ? Infinity : a / (f * b);
        if (r > worst) worst = r;
      }
    }
  return worst;
}

/**
 * The channel an LP returned is what it claims, recomputed here: its direct expected loss (dist: the domain's
 * distance, bin: 0/1) is its objective, and it is eps*d-private over all pairs (brute force).
 */
export function expectChannelMatchesLp(
  m: OptimalMechanism,
  g: Domain,
  eps: number,
  pi: ArrayLike<number>,
  loss: 'dist' | 'bin',
  what: string,
): void {
  const n = g.n;
  const lossFn =
    loss === 'dist' ? (w: number, x: number) => g.distance(w, x) : (w: number, x: number) => (w === x ? 0 : 1);
  expect(Math.abs(directLoss(data(m), n, n, pi, lossFn) - obj(m)), what).toBeLessThan(1e-12);
  expect(worstPrivacyRatio(data(m), g, n, eps), what).toBeLessThanOrEqual(1 + 1e-9);
}
