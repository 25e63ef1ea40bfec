/**
 * Levinson recursion (Golub & Van Loan, Algorithm 4.7.2) for a symmetric
 * Toeplitz system T x = b with unit diagonal: T[i][j] = r[|i - j|], r[0] = 1.
 * O(n^2) time and O(n) memory. It needs every leading principal minor to be
 * nonsingular but not positive definiteness; it is not backward stable for
 * indefinite T, so the caller checks the residual (`toeplitzResidual`) and
 * falls back to another solver when it is large. Returns null on a breakdown
 * (a leading minor numerically singular).
 */
export function levinsonSolve(r: Float64Array, b: Float64Array): Float64Array | null {
  const n = b.length;
  const x = new Float64Array(n);
  if (n === 0) return x;
  x[0] = b[0]!;
  if (n === 1) return x;
  const y = new Float64Array(n);
  const tmp = new Float64Array(n);
  y[0] = -r[1]!;
  let alpha = -r[1]!;
  let beta = 1;
  for (let k = 1; k < n; k++) {
    beta *= 1 - alpha * alpha;
    if (!(Math.abs(beta) > 1e-14)) return null;
    let s = b[k]!;
    for (let i = 0; i < k; i++) s -= r[i + 1]! * x[k - 1 - i]!;
    const mu = s / beta;
    for (let i = 0; i < k; i++) x[i] = x[i]! + mu * y[k - 1 - i]!;
    x[k] = mu;
    if (k < n - 1) {
      let a = -r[k + 1]!;
      for (let i = 0; i < k; i++) a -= r[i + 1]! * y[k - 1 - i]!;
      alpha = a / beta;
      for (let i = 0; i < k; i++) tmp[i] = y[i]! + alpha * y[k - 1 - i]!;
      y.set(tmp.subarray(0, k));
      y[k] = alpha;
    }
  }
  return x;
}

/** max_i |(T x - b)_i| / max(1, max |b|) for the symmetric Toeplitz T of first column r (O(n^2)). */
export function toeplitzResidual(r: Float64Array, x: Float64Array, b: Float64Array): number {
  const n = b.length;
  let worst = 0;
  let bmax = 1;
  for (let i = 0; i < n; i++) {
    let s = -b[i]!;
    for (let j = 0; j < n; j++) s += r[Math.abs(i - j)]! * x[j]!;
    worst = Math.max(worst, Math.abs(s));
    bmax = Math.max(bmax, Math.abs(b[i]!));
  }
  return worst / bmax;
}
