import { MechError } from '../../src-shared/errors';
import type { CgOptions, CgResult, LinearOp } from './conjugate-gradient';

/**
 * Preconditioned MINRES (Paige & Saunders 1975) for A x = b with A symmetric
 * but possibly indefinite (e.g. exp(-eps d) for a metric that is not of
 * negative type, where CG breaks down), and an SPD preconditioner M^-1.
 * Minimises the M^-1-norm of the residual over the Krylov space with short
 * recurrences. Stops on the recursive residual estimate, then recomputes the
 * true residual ||b - A x|| / ||b|| (what is reported and judged).
 * `breakdown` here means the preconditioner is not positive definite.
 */
export function minres(apply: LinearOp, b: Float64Array, precond: LinearOp | null, opts: CgOptions = {}): CgResult {
  const n = b.length;
  const tol = opts.tol ?? 1e-12;
  const maxIter = opts.maxIter ?? Math.max(100, Math.min(n, 5000));
  if (!(tol > 0)) throw new MechError('invalid-input', `MINRES tolerance must be > 0, got ${tol}`);
  const M = precond ?? ((r: Float64Array, out: Float64Array) => (out.set(r), out));
  const x = new Float64Array(n);
  let r1: Float64Array = b.slice();
  let r2: Float64Array = b.slice();
  let y: Float64Array = M(r1, new Float64Array(n));
  const v = new Float64Array(n);
  let w = new Float64Array(n);
  let w1 = new Float64Array(n);
  let w2 = new Float64Array(n);
  const bNorm = Math.sqrt(dot(b, b));
  if (bNorm === 0) return { x, iterations: 0, relResidual: 0, converged: true, breakdown: false };
  const by = dot(b, y);
  if (!(by > 0)) return { x, iterations: 0, relResidual: 1, converged: false, breakdown: true };
  const beta1 = Math.sqrt(by);
  let beta = beta1;
  let oldb = 0;
  let dbar = 0;
  let epsln = 0;
  let phibar = beta1;
  let cs = -1;
  let sn = 0;
  let it = 0;
  let breakdown = false;
  // The estimate phibar is in the preconditioned norm; stop a little below tol, then check for real.
  const target = tol * beta1 * 0.1;
  while (it < maxIter) {
    it++;
    const s = 1 / beta;
    for (let i = 0; i < n; i++) v[i] = s * y[i]!;
    apply(v, y);
    if (it >= 2) {
      const f = beta / oldb;
      for (let i = 0; i < n; i++) y[i]! -= f * r1[i]!;
    }
    const alfa = dot(v, y);
    const g = alfa / beta;
    for (let i = 0; i < n; i++) y[i]! -= g * r2[i]!;
    const t = r1;
    r1 = r2;
    r2 = y;
    y = M(r2, t);
    oldb = beta;
    const ry = dot(r2, y);
    if (ry < 0) {
      breakdown = true;
      break;
    }
    beta = Math.sqrt(ry);
    const oldeps = epsln;
    const delta = cs * dbar + sn * alfa;
    const gbar = sn * dbar - cs * alfa;
    epsln = sn * beta;
    dbar = -cs * beta;
    const gamma = Math.max(Math.hypot(gbar, beta), Number.MIN_VALUE);
    cs = gbar / gamma;
    sn = beta / gamma;
    const phi = cs * phibar;
    phibar = sn * phibar;
    const denom = 1 / gamma;
    const tmp = w1;
    w1 = w2;
    w2 = w;
    w = tmp;
    for (let i = 0; i < n; i++) {
      w[i] = (v[i]! - oldeps * w1[i]! - delta * w2[i]!) * denom;
      x[i]! += phi * w[i]!;
    }
    opts.onIteration?.(it, phibar / beta1);
    if (phibar <= target || beta === 0) break;
  }
  const q = apply(x, new Float64Array(n));
  let s2 = 0;
  for (let i = 0; i < n; i++) s2 += (b[i]! - q[i]!) ** 2;
  const relResidual = Math.sqrt(s2) / bNorm;
  return { x, iterations: it, relResidual, converged: !breakdown && relResidual <= tol * 10, breakdown };
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
