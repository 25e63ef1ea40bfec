/**
 * Exact integer/rational helpers (BigInt) for the privacy-type explorer
 * (SPEC §6): recognising e^(eps d) as a rational, integer vector
 * normalisation, and fraction-free elimination (Bareiss) for exact rank and
 * exact solves on the small (n <= 10) systems the explorer meets.
 */

function bigAbs(a: bigint): bigint {
  return a < 0n ? -a : a;
}

function bigGcd(a: bigint, b: bigint): bigint {
  a = bigAbs(a);
  b = bigAbs(b);
  while (b !== 0n) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** Divide an integer vector by the gcd of its entries (in place); returns it. */
export function normaliseIntVector(v: bigint[]): bigint[] {
  let g = 0n;
  for (const x of v) {
    g = bigGcd(g, x);
    if (g === 1n) return v;
  }
  if (g > 1n) for (let i = 0; i < v.length; i++) v[i] = v[i]! / g;
  return v;
}

/** Largest denominator tried when recognising a constant as a rational. */
const RATIONAL_MAX_DEN = 1n << 20n;
/**
 * Relative agreement required to accept p/q as the exact value of a float
 * constant: a few ulps of a correctly rounded exp(), far below the typical
 * error 1/q^2 of an accidental continued-fraction convergent.
 */
const RATIONAL_REL_TOL = 1e-14;

/**
 * Recognise x > 0 as a rational p/q with q <= RATIONAL_MAX_DEN agreeing to
 * RATIONAL_REL_TOL (continued fractions), or null. e^(eps d) with eps = ln 2
 * and integral d gives 2^d (Math.exp returns 7.999999999999998 for 8).
 */
export function recogniseRational(x: number): [bigint, bigint] | null {
  if (!Number.isFinite(x) || x <= 0) return null;
  let h0 = 0n,
    h1 = 1n,
    k0 = 1n,
    k1 = 0n;
  let y = x;
  for (let iter = 0; iter < 64; iter++) {
    const a = Math.floor(y);
    if (!Number.isFinite(a) || a > 2 ** 52) return null;
    const A = BigInt(a);
    const h2 = A * h1 + h0;
    const k2 = A * k1 + k0;
    if (k2 > RATIONAL_MAX_DEN) return null;
    const approx = Number(h2) / Number(k2);
    if (Math.abs(approx - x) <= RATIONAL_REL_TOL * x) return [h2, k2];
    h0 = h1;
    h1 = h2;
    k0 = k1;
    k1 = k2;
    const frac = y - a;
    if (frac <= 0) return null;
    y = 1 / frac;
  }
  return null;
}

/** Exact value of a finite double as p/q (q a power of two). */
export function doubleToRational(x: number): [bigint, bigint] {
  if (!Number.isFinite(x)) throw new RangeError(`not finite: ${x}`);
  let q = 1n;
  let y = x;
  while (!Number.isInteger(y)) {
    y *= 2;
    q *= 2n;
  }
  const p = BigInt(y);
  const g = bigGcd(p, q);
  return [p / g, q / g];
}

/** Float value of p/q that stays accurate for huge BigInts. */
export function ratioToNumber(p: bigint, q: bigint): number {
  const pn = Number(p);
  const qn = Number(q);
  if (Number.isFinite(pn) && Number.isFinite(qn)) return pn / qn;
  const shift = BigInt(Math.max(bigAbs(p).toString(2).length, q.toString(2).length) - 1000);
  return Number(p >> shift) / Number(q >> shift);
}

/**
 * Rank of the integer matrix whose rows are `rows` (each of length cols), by
 * fraction-free Gaussian elimination. Exact.
 */
export function exactRank(rows: readonly (readonly bigint[])[], cols: number): number {
  const a = rows.map((r) => r.slice());
  let rank = 0;
  let prev = 1n;
  for (let c = 0; c < cols && rank < a.length; c++) {
    let p = -1;
    for (let i = rank; i < a.length; i++)
      if (a[i]![c] !== 0n) {
        p = i;
        break;
      }
    if (p < 0) continue;
    [a[rank], a[p]] = [a[p]!, a[rank]!];
    const pr = a[rank]!;
    const piv = pr[c]!;
    for (let i = rank + 1; i < a.length; i++) {
      const ri = a[i]!;
      const f = ri[c]!;
      for (let j = c; j < cols; j++) ri[j] = (piv * ri[j]! - f * pr[j]!) / prev;
    }
    prev = piv;
    rank++;
  }
  return rank;
}

/**
 * Exact solution of sum_s w_s cols[s] = b for integer column vectors (length
 * n each, k <= n of them). Returns null when the columns are linearly
 * dependent or b is not in their span; otherwise w as fractions [num, den]
 * with den > 0.
 */
export function exactCombination(
  cols: readonly (readonly bigint[])[],
  b: readonly bigint[],
): [bigint, bigint][] | null {
  const k = cols.length;
  const n = b.length;
  // Augmented n x (k+1) matrix, rows = coordinates.
  const a: bigint[][] = [];
  for (let i = 0; i < n; i++) {
    const r = new Array<bigint>(k + 1);
    for (let s = 0; s < k; s++) r[s] = cols[s]![i]!;
    r[k] = b[i]!;
    a.push(r);
  }
  // Fraction-free elimination to row echelon form.
  let prev = 1n;
  const pivCol: number[] = [];
  let row = 0;
  for (let c = 0; c < k; c++) {
    let p = -1;
    for (let i = row; i < n; i++)
      if (a[i]![c] !== 0n) {
        p = i;
        break;
      }
    if (p < 0) return null; // dependent columns
    [a[row], a[p]] = [a[p]!, a[row]!];
    const pr = a[row]!;
    const piv = pr[c]!;
    for (let i = row + 1; i < n; i++) {
      const ri = a[i]!;
      const f = ri[c]!;
      for (let j = c; j <= k; j++) ri[j] = (piv * ri[j]! - f * pr[j]!) / prev;
    }
    prev = piv;
    pivCol.push(c);
    row++;
  }
  for (let i = row; i < n; i++) if (a[i]![k] !== 0n) return null; // b not in span
  // Back substitution over rationals: w_c = (rhs - sum_{j>c} a[c][j] w_j) / a[c][c].
  const w: [bigint, bigint][] = new Array(k);
  for (let c = k - 1; c >= 0; c--) {
    const r = a[c]!;
    let num = r[k]!;
    let den = 1n;
    for (let j = c + 1; j < k; j++) {
      const [wn, wd] = w[j]!;
      // num/den - r[j] * wn/wd
      num = num * wd - r[j]! * wn * den;
      den = den * wd;
      const g = bigGcd(num, den);
      if (g > 1n) {
        num /= g;
        den /= g;
      }
    }
    let dn = den * r[c]!;
    if (dn < 0n) {
      dn = -dn;
      num = -num;
    }
    const g = bigGcd(num, dn);
    w[c] = g > 1n ? [num / g, dn / g] : [num, dn];
  }
  return w;
}
