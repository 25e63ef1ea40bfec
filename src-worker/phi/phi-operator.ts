import { MechError, assertEpsilon } from '../../src-shared/errors';
import { phiMatrix, type Domain } from '../metric/domain';
import { assertDenseFits, matVec, type Matrix } from '../linalg/matrix';
import { cholesky, choleskySolve, luFactor, luSolve } from '../linalg/lu';
import { buildLatticePhi, minresLatticePhi, solveLatticePhi, type LatticePhi } from './lattice-phi';
import { kroneckerMatVec, kroneckerRow, kroneckerSolve } from '../linalg/kronecker-solve';

/**
 * Phi = exp(-eps d) (SPEC §2) on a domain, held in the cheapest exact form
 * the domain's structure allows:
 *  - 'lattice': translation-invariant domains (line, ring, grids): FFT
 *    products, PCG solves, O(n) memory;
 *  - 'kronecker': products V^u with combine 'sum' (Hamming and other
 *    additive metrics): Phi = (x) Phi_factor, solved factor by factor;
 *  - 'dense': phiMatrix + Cholesky (or LU when not positive definite);
 *  - 'metric': nothing stored, entries from domain.distance: rows in O(n),
 *    products in O(n^2) time and O(n) memory; it solves only the
 *    ball-size closed form (constant right-hand side, SPEC §5).
 * Every form gives rows on demand (O(n) each), products and solves.
 */
type PhiMethod = 'lattice' | 'kronecker' | 'dense' | 'metric';

export interface PhiSolveInfo {
  /**
   * 'fft-pcg' / 'fft-cg' / 'fft-minres' (lattice, indefinite Phi), 'kronecker', 'dense-cholesky', 'dense-lu',
   * 'ball-sizes' (closed form).
   */
  method: 'fft-pcg' | 'fft-cg' | 'fft-minres' | 'kronecker' | 'dense-cholesky' | 'dense-lu' | 'ball-sizes';
  iterations: number;
  relResidual: number;
  timeMs: number;
}

export interface PhiOperator {
  readonly method: PhiMethod;
  readonly n: number;
  readonly eps: number;
  /** out = Phi x */
  apply(x: Float64Array, out: Float64Array): Float64Array;
  /** Row i of Phi into out (length >= n). */
  row(i: number, out: Float64Array): Float64Array;
  /** Solve Phi x = b (Phi is symmetric, so this also solves x Phi = b). */
  solve(b: Float64Array, opts?: PhiSolveOptions): { x: Float64Array; info: PhiSolveInfo };
  /** Numbers held (doubles), for memory reports and guards. */
  readonly heldEntries: number;
  readonly lattice?: LatticePhi;
  readonly factors?: Matrix[];
}

export interface PhiSolveOptions {
  tol?: number;
  maxIter?: number;
  precondition?: boolean;
  onIteration?: (iteration: number, relResidual: number) => void;
}

export interface PhiOperatorOptions {
  /** Force a path; 'auto' (default) picks structure when the domain has it and n > denseBelow. */
  method?: 'auto' | PhiMethod;
  /** With 'auto', domains with n <= denseBelow are solved densely (exact, cheap). Default 400. */
  denseBelow?: number;
  /** Dense limit in entries (defaults to the engine's MAX_DENSE_ENTRIES). */
  maxDenseEntries?: number;
}

export function structuredPhiMethod(domain: Domain): PhiMethod | null {
  const s = domain.structure;
  // A Kronecker factorisation is a direct (exact) solve: preferred when both exist (e.g. Hamming V^u, also a periodic
  // lattice).
  if (s.product && s.product.combine === 'sum') return 'kronecker';
  if (s.lattice && (s.lattice.shape.length === 1 || s.lattice.shape.length === 2)) return 'lattice';
  return null;
}

export function createPhiOperator(domain: Domain, eps: number, opts: PhiOperatorOptions = {}): PhiOperator {
  assertEpsilon(eps);
  const want = opts.method ?? 'auto';
  const structured = structuredPhiMethod(domain);
  let method: PhiMethod;
  if (want === 'auto') method = structured && domain.n > (opts.denseBelow ?? 400) ? structured : 'dense';
  else method = want;
  if (
    method === 'lattice' &&
    domain.structure.lattice &&
    (domain.structure.lattice.shape.length === 1 || domain.structure.lattice.shape.length === 2)
  ) {
    return latticeOperator(domain, eps);
  }
  if (method !== 'dense' && method !== 'metric' && method !== structured) {
    throw new MechError(
      'not-applicable',
      `${domain.spec} has no ${method} structure (available: ${structured ?? 'dense only'})`,
    );
  }
  if (method === 'lattice') return latticeOperator(domain, eps);
  if (method === 'kronecker') return kroneckerOperator(domain, eps);
  if (method === 'metric') return metricOperator(domain, eps);
  return denseOperator(domain, eps, opts.maxDenseEntries);
}

/**
 * SPEC §5 closed form for ball-size-symmetric metrics: every row of Phi sums
 * to S = sum_r n_r exp(-eps r), so Phi (c/S) 1 = c 1. Null when the domain
 * has no ball sizes or rhs is not constant.
 */
export function ballSizeSolution(domain: Domain, eps: number, b: Float64Array): Float64Array | null {
  const balls = domain.structure.ballSizes;
  if (!balls || b.length === 0) return null;
  const c = b[0]!;
  for (let i = 1; i < b.length; i++) if (b[i] !== c) return null;
  let S = 0;
  for (let k = 0; k < balls.radius.length; k++) S += balls.count[k]! * Math.exp(-eps * balls.radius[k]!);
  return new Float64Array(b.length).fill(c / S);
}

/** Entries from the metric, nothing stored (large domains with no other structure, e.g. clique:20000). */
function metricOperator(domain: Domain, eps: number): PhiOperator {
  const n = domain.n;
  return {
    method: 'metric',
    n,
    eps,
    heldEntries: 0,
    apply(x, out) {
      const row = new Float64Array(n);
      const res = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        this.row(i, row);
        let s = 0;
        for (let j = 0; j < n; j++) s += row[j]! * x[j]!;
        res[i] = s;
      }
      out.set(res);
      return out;
    },
    row(i, out) {
      for (let j = 0; j < n; j++) out[j] = i === j ? 1 : Math.exp(-eps * domain.distance(i, j));
      return out;
    },
    solve(b) {
      checkRhs(n, b);
      const t0 = performance.now();
      const x = ballSizeSolution(domain, eps, b);
      if (!x) {
        throw new MechError(
          'not-applicable',
          `${domain.spec} has no structure for solving Phi x = b with this right-hand side; a dense solve is needed`,
        );
      }
      return {
        x,
        info: {
          method: 'ball-sizes',
          iterations: 0,
          relResidual: sampledResidual(domain, eps, x, b),
          timeMs: performance.now() - t0,
        },
      };
    },
  };
}

/**
 * ||Phi x - b||_inf / ||b||_inf over at most 64 evenly spread rows (exact
 * when n <= 64): a check of a closed form without an O(n^2) pass.
 */
function sampledResidual(domain: Domain, eps: number, x: Float64Array, b: Float64Array): number {
  const n = domain.n;
  const k = Math.min(n, 64);
  let bmax = 0;
  for (let i = 0; i < n; i++) bmax = Math.max(bmax, Math.abs(b[i]!));
  let worst = 0;
  for (let t = 0; t < k; t++) {
    const i = Math.floor((t * n) / k);
    let s = 0;
    for (let j = 0; j < n; j++) s += (i === j ? 1 : Math.exp(-eps * domain.distance(i, j))) * x[j]!;
    worst = Math.max(worst, Math.abs(s - b[i]!));
  }
  return bmax === 0 ? worst : worst / bmax;
}

function norm(v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
}

function relResidualOf(
  op: { apply(x: Float64Array, out: Float64Array): Float64Array },
  x: Float64Array,
  b: Float64Array,
): number {
  const q = op.apply(x, new Float64Array(b.length));
  let s = 0;
  for (let i = 0; i < b.length; i++) {
    const d = b[i]! - q[i]!;
    s += d * d;
  }
  const bn = norm(b);
  return bn === 0 ? 0 : Math.sqrt(s) / bn;
}

function checkRhs(n: number, b: Float64Array): void {
  if (b.length !== n)
    throw new MechError('invalid-input', `right-hand side has ${b.length} entries, the domain has ${n} points`);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(b[i]!))
      throw new MechError('invalid-input', `right-hand side entry ${i} is ${b[i]}, not a finite number`);
  }
}

function latticeOperator(domain: Domain, eps: number): PhiOperator {
  const lp = buildLatticePhi(domain, eps);
  const { op } = lp;
  const n = domain.n;
  const n2 = op.n2;
  return {
    method: 'lattice',
    n,
    eps,
    lattice: lp,
    heldEntries: op.heldEntries + lp.precondSpectrum.length,
    apply: (x, out) => op.apply(x, out),
    row(i, out) {
      const r = Math.floor(i / n2);
      const c = i - r * n2;
      for (let r2 = 0, j = 0; r2 < op.n1; r2++)
        for (let c2 = 0; c2 < n2; c2++, j++) out[j] = op.kernelAt(r2 - r, c2 - c);
      return out;
    },
    solve(b, so = {}) {
      checkRhs(n, b);
      const t0 = performance.now();
      let res = solveLatticePhi(lp, b, so);
      let minresUsed = false;
      if (res.breakdown) {
        // Phi is not positive definite (a metric not of negative type, e.g. d = ceil(|i-j|/V)):
        // MINRES handles symmetric indefinite systems with the same SPD preconditioner.
        const cgIterations = res.iterations;
        res = minresLatticePhi(lp, b, so);
        minresUsed = true;
        if (!res.converged) {
          throw new MechError(
            'not-applicable',
            `Phi = exp(-eps d) on ${domain.spec} (eps = ${eps}) is not positive definite (conjugate gradients broke down after ${cgIterations} iterations) and MINRES stopped after ${res.iterations} iterations at relative residual ${res.relResidual.toExponential(2)}; use a dense solve on a smaller domain`,
            { iterations: res.iterations, relResidual: res.relResidual },
          );
        }
      }
      if (!res.converged) {
        throw new MechError(
          'internal',
          `conjugate gradients for Phi z = b on ${domain.spec} (eps = ${eps}) stopped after ${res.iterations} iterations at relative residual ${res.relResidual.toExponential(2)}`,
          { iterations: res.iterations, relResidual: res.relResidual },
        );
      }
      const usedPre = so.precondition ?? lp.preconditioned;
      return {
        x: res.x,
        info: {
          method: minresUsed ? 'fft-minres' : usedPre ? 'fft-pcg' : 'fft-cg',
          iterations: res.iterations,
          relResidual: res.relResidual,
          timeMs: performance.now() - t0,
        },
      };
    },
  };
}

/** Factors of Phi for a product domain with combine 'sum': u copies of phiMatrix(factor, eps). */
function kroneckerPhiFactors(domain: Domain, eps: number): Matrix[] {
  const p = domain.structure.product;
  if (!p || p.combine !== 'sum')
    throw new MechError('not-applicable', `${domain.spec} is not a product domain with an additive metric`);
  let n = 1;
  for (let k = 0; k < p.power; k++) n *= p.factor.n;
  if (n !== domain.n)
    throw new MechError('internal', `${domain.spec}: ${p.factor.n}^${p.power} = ${n} does not match n = ${domain.n}`);
  const f = phiMatrix(p.factor, eps);
  return Array.from({ length: p.power }, () => f);
}

function kroneckerOperator(domain: Domain, eps: number): PhiOperator {
  const factors = kroneckerPhiFactors(domain, eps);
  const n = domain.n;
  const self: PhiOperator = {
    method: 'kronecker',
    n,
    eps,
    factors,
    heldEntries: factors[0]!.data.length,
    apply: (x, out) => kroneckerMatVec(factors, x, out),
    row: (i, out) => kroneckerRow(factors, i, out),
    solve(b) {
      checkRhs(n, b);
      const t0 = performance.now();
      const x = kroneckerSolve(factors, b);
      return {
        x,
        info: {
          method: 'kronecker',
          iterations: 0,
          relResidual: relResidualOf(self, x, b),
          timeMs: performance.now() - t0,
        },
      };
    },
  };
  return self;
}

function denseOperator(domain: Domain, eps: number, maxDenseEntries?: number): PhiOperator {
  const n = domain.n;
  assertDenseFits(n, n, `Phi matrix of ${domain.spec}`, maxDenseEntries);
  const phi = phiMatrix(domain, eps);
  let chol: Float64Array | null | undefined;
  const self: PhiOperator = {
    method: 'dense',
    n,
    eps,
    heldEntries: n * n,
    apply: (x, out) => {
      matVec(phi, x, out as Float64Array<ArrayBuffer>);
      return out;
    },
    row: (i, out) => {
      out.set(phi.row(i));
      return out;
    },
    solve(b) {
      checkRhs(n, b);
      const t0 = performance.now();
      if (chol === undefined) chol = cholesky(phi);
      let x: Float64Array;
      let method: PhiSolveInfo['method'];
      if (chol) {
        x = choleskySolve(chol, b);
        method = 'dense-cholesky';
      } else {
        const f = luFactor(phi);
        if (f.singular) {
          throw new MechError(
            'not-applicable',
            `Phi = exp(-eps d) on ${domain.spec} (eps = ${eps}) is singular to working precision`,
            { singular: true },
          );
        }
        x = luSolve(f, b);
        method = 'dense-lu';
      }
      return {
        x,
        info: { method, iterations: 0, relResidual: relResidualOf(self, x, b), timeMs: performance.now() - t0 },
      };
    },
  };
  return self;
}
