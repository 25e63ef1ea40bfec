/**
 * Exact binomial confidence bounds (Clopper and Pearson, 1934) from the
 * regularized incomplete beta function I_x(a, b).
 *
 * For k successes in n trials, the one-sided lower bound at level alpha is
 * the p with P(X >= k | p) = alpha, that is I_p(k, n - k + 1) = alpha (0 when
 * k = 0); the upper bound is the p with P(X <= k | p) = alpha, that is
 * I_p(k + 1, n - k) = 1 - alpha (1 when k = n). Both hold for every p: the
 * lower bound exceeds the true p with probability at most alpha.
 *
 * I_x(a, b) is evaluated by its continued fraction (modified Lentz, as in
 * Numerical Recipes section 6.4), with ln Gamma from Lanczos' approximation
 * (g = 7, 9 terms; relative error about 1e-15). The quantiles are found by
 * bisection on x (I_x is increasing in x) and the end of the final bracket
 * on the safe side is returned: the lower bound from below, the upper bound
 * from above, so rounding never narrows an interval.
 */
import { MechError } from '../../src-shared/errors';

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Gamma(x) for x > 0 (Lanczos, g = 7). */
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let s = LANCZOS[0]!;
  for (let i = 1; i < 9; i++) s += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(s);
}

/** The continued fraction of I_x(a, b) (converges fast for x < (a + 1) / (a + b + 2)). */
function betaFraction(a: number, b: number, x: number): number {
  const TINY = 1e-300;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  const maxIt = 10_000 + 20 * Math.ceil(Math.sqrt(Math.max(a, b)));
  for (let m = 1; m <= maxIt; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) return h;
  }
  throw new MechError('internal', `the incomplete beta fraction did not converge for a = ${a}, b = ${b}, x = ${x}`);
}

/** The regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1. */
export function betaInc(x: number, a: number, b: number): number {
  if (!(a > 0) || !(b > 0)) throw new MechError('internal', `betaInc needs a, b > 0 (got ${a}, ${b})`);
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  const front = Math.exp(lnFront);
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(a, b, x)) / a;
  return 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** The x in [0, 1] with I_x(a, b) = target by bisection: [lo, hi] brackets it, both ends returned. */
function betaQuantileBracket(target: number, a: number, b: number): [number, number] {
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 1100 && hi - lo > 1e-15 * hi; i++) {
    // Halve in the ratio once the bracket spans orders of magnitude (tiny quantiles), else in the middle.
    const mid =
      lo > 0 && hi / lo < 4
        ? 0.5 * (lo + hi)
        : lo === 0 && hi < 1e-3
          ? hi / 16
          : lo === 0
            ? 0.5 * hi
            : Math.sqrt(lo * hi);
    if (mid <= lo || mid >= hi) break;
    if (betaInc(mid, a, b) < target) lo = mid;
    else hi = mid;
  }
  return [lo, hi];
}

function checkCounts(k: number, n: number, alpha: number): void {
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(k) || k < 0 || k > n)
    throw new MechError('internal', `binomial bound of ${k} in ${n} trials`);
  if (!(alpha > 0 && alpha < 1)) throw new MechError('internal', `binomial bound at level ${alpha}`);
}

/** Clopper-Pearson one-sided lower bound on p from k successes in n trials: P(bound > p) <= alpha. */
export function binomialLower(k: number, n: number, alpha: number): number {
  checkCounts(k, n, alpha);
  if (k === 0) return 0;
  if (k === n) return Math.pow(alpha, 1 / n) * (1 - 1e-15); // exact closed form, rounded down
  return betaQuantileBracket(alpha, k, n - k + 1)[0];
}

/** Clopper-Pearson one-sided upper bound on p from k successes in n trials: P(bound < p) <= alpha. */
export function binomialUpper(k: number, n: number, alpha: number): number {
  checkCounts(k, n, alpha);
  if (k === n) return 1;
  if (k === 0) return Math.min(1, -Math.expm1(Math.log(alpha) / n) * (1 + 1e-15)); // 1 - alpha^(1/n), rounded up
  return betaQuantileBracket(1 - alpha, k + 1, n - k)[1];
}
