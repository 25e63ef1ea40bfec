import { MechError } from '../../src-shared/errors';

/**
 * Preconditioned conjugate gradients for A x = b with A symmetric positive
 * definite, given only as a product x -> A x (and optionally M^-1 r, an SPD
 * preconditioner). Stops when ||b - A x|| <= tol ||b||; the returned residual
 * is recomputed from scratch (not the recursive estimate).
 *
 * Positive definiteness is checked on the way: a search direction with
 * p^T A p <= 0 proves A is not positive definite ('breakdown'), and the
 * caller decides (dense fallback or a clear error).
 */
export interface CgOptions {
  tol?: number;
  maxIter?: number;
  /** Starting guess (default 0). */
  x0?: Float64Array;
  onIteration?: (iteration: number, relResidual: number) => void;
}

export interface CgResult {
  x: Float64Array;
  iterations: number;
  /** ||b - A x|| / ||b||, recomputed with one more product. */
  relResidual: number;
  converged: boolean;
  /** p^T A p <= 0 was met: A is not positive definite. */
  breakdown: boolean;
}

export type LinearOp = (x: Float64Array, out: Float64Array) => Float64Array;

export function conjugateGradient(
  apply: LinearOp,
  b: Float64Array,
  precond: LinearOp | null,
  opts: CgOptions = {},
): CgResult {
  const n = b.length;
  const tol = opts.tol ?? 1e-12;
  const maxIter = opts.maxIter ?? Math.max(100, Math.min(n, 5000));
  if (!(tol > 0)) throw new MechError('invalid-input', `CG tolerance must be > 0, got ${tol}`);
  const x = opts.x0 ? opts.x0.slice() : new Float64Array(n);
  const r = new Float64Array(n);
  const z = new Float64Array(n);
  const p = new Float64Array(n);
  const q = new Float64Array(n);
  const bNorm = Math.sqrt(dot(b, b, n));
  if (bNorm === 0) return { x: new Float64Array(n), iterations: 0, relResidual: 0, converged: true, breakdown: false };
  if (opts.x0) {
    apply(x, q);
    for (let i = 0; i < n; i++) r[i] = b[i]! - q[i]!;
  } else r.set(b);
  if (precond) precond(r, z);
  else z.set(r);
  p.set(z);
  let rz = dot(r, z, n);
  let it = 0;
  let breakdown = false;
  let rel = Math.sqrt(dot(r, r, n)) / bNorm;
  while (rel > tol && it < maxIter) {
    apply(p, q);
    const pq = dot(p, q, n);
    if (!(pq > 0)) {
      breakdown = true;
      break;
    }
    const alpha = rz / pq;
    for (let i = 0; i < n; i++) {
      x[i]! += alpha * p[i]!;
      r[i]! -= alpha * q[i]!;
    }
    it++;
    rel = Math.sqrt(dot(r, r, n)) / bNorm;
    opts.onIteration?.(it, rel);
    if (rel <= tol) break;
    if (precond) precond(r, z);
    else z.set(r);
    const rzNew = dot(r, z, n);
    if (!(rzNew > 0) && precond) {
      breakdown = true; // the preconditioner is not positive definite
      break;
    }
    const beta = rzNew / rz;
    rz = rzNew;
    for (let i = 0; i < n; i++) p[i] = z[i]! + beta * p[i]!;
  }
  // True residual.
  apply(x, q);
  let s = 0;
  for (let i = 0; i < n; i++) {
    const d = b[i]! - q[i]!;
    s += d * d;
  }
  const relResidual = Math.sqrt(s) / bNorm;
  return { x, iterations: it, relResidual, converged: !breakdown && relResidual <= Math.max(tol * 10, tol), breakdown };
}

function dot(a: Float64Array, b: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}
