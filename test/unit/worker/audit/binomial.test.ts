import { describe, expect, it } from 'vitest';
import { betaInc, binomialLower, binomialUpper, lnGamma } from '../../../../src-worker/audit/binomial';

/** P(X >= k) for X ~ Bin(n, p), summed term by term (small n). */
function tailAtLeast(k: number, n: number, p: number): number {
  let s = 0;
  for (let j = k; j <= n; j++)
    s += Math.exp(lnGamma(n + 1) - lnGamma(j + 1) - lnGamma(n - j + 1) + j * Math.log(p) + (n - j) * Math.log1p(-p));
  return s;
}

describe('exact binomial bounds (Clopper-Pearson)', () => {
  it('ln Gamma and I_x(a, b) match closed forms', () => {
    expect(lnGamma(10)).toBeCloseTo(Math.log(362880), 12);
    expect(lnGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 12);
    expect(betaInc(0.3, 1, 1)).toBeCloseTo(0.3, 14);
    // I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b
    expect(betaInc(0.7, 5, 1)).toBeCloseTo(0.7 ** 5, 13);
    expect(betaInc(0.2, 1, 7)).toBeCloseTo(1 - 0.8 ** 7, 13);
    // symmetry I_x(a, b) = 1 - I_(1-x)(b, a), both branches of the fraction
    expect(betaInc(0.9, 30, 4) + betaInc(0.1, 4, 30)).toBeCloseTo(1, 13);
  });

  it('the lower bound is where the upper tail equals alpha; the upper where the lower tail does', () => {
    for (const [k, n] of [
      [3, 10],
      [17, 40],
      [1, 25],
      [59, 60],
    ] as const) {
      const lo = binomialLower(k, n, 0.025);
      expect(tailAtLeast(k, n, lo)).toBeCloseTo(0.025, 9);
      // at or below alpha (up to the rounding of the reference sum)
      expect(tailAtLeast(k, n, lo)).toBeLessThanOrEqual(0.025 * (1 + 1e-12));
      const up = binomialUpper(k, n, 0.025);
      expect(1 - tailAtLeast(k + 1, n, up)).toBeCloseTo(0.025, 9);
      expect(1 - tailAtLeast(k + 1, n, up)).toBeLessThanOrEqual(0.025 * (1 + 1e-12));
    }
    // Textbook value: 0 successes in 10 trials, 95% one-sided upper bound 1 - 0.05^(1/10) = 0.2589
    expect(binomialUpper(0, 10, 0.05)).toBeCloseTo(0.25887, 5);
    expect(binomialLower(10, 10, 0.05)).toBeCloseTo(0.74113, 5);
    expect(binomialLower(0, 10, 0.05)).toBe(0);
    expect(binomialUpper(10, 10, 0.05)).toBe(1);
  });

  it('works at large n and tiny levels (the normal approximation agrees there)', () => {
    const n = 1_000_000;
    const k = 600_000;
    const lo = binomialLower(k, n, 1e-6);
    const sd = Math.sqrt((0.6 * 0.4) / n);
    expect(lo).toBeGreaterThan(0.6 - 4.9 * sd);
    expect(lo).toBeLessThan(0.6 - 4.6 * sd);
    expect(binomialUpper(3, n, 1e-9)).toBeGreaterThan(3 / n);
    expect(binomialUpper(3, n, 1e-9)).toBeLessThan(40 / n);
  });
});
