/**
 * Neumaier (compensated) summation: exact to about one rounding of the
 * result at any length, where a plain running sum of 10^8 entries of 1/n
 * drifts by ~2e-9. Used where a sum is compared with a tolerance or
 * subtracted from its own terms (priors, closed-form mu on cliques).
 */
export function compensatedSum(values: ArrayLike<number>): number {
  let s = 0;
  let c = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const t = s + v;
    c += Math.abs(s) >= Math.abs(v) ? s - t + v : v - t + s;
    s = t;
  }
  return s + c;
}
