import { MechError, assertEpsilon } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { conjugateGradient, type CgResult } from '../linalg/conjugate-gradient';
import { minres } from '../linalg/minres';
import { ToeplitzOperator } from '../linalg/toeplitz-operator';

/**
 * Phi[x][x'] = exp(-eps d(x, x')) (SPEC §2) on a translation-invariant
 * domain (domain.structure.lattice: line, ring, grids with Euclidean,
 * Manhattan or Chebyshev distance) is (block) Toeplitz: a ToeplitzOperator
 * applies it by FFT in O(n log n) and holds O(n) numbers, never n x n.
 *
 * Positive definiteness (needed by CG): each of these metrics embeds
 * isometrically in L1 (line, cycle, Manhattan grid; Chebyshev in the plane is
 * L1 rotated by 45 degrees; Euclidean space embeds in L1), so d is of negative
 * type and exp(-eps d) is positive definite for every eps > 0 (Schoenberg).
 * For any other lattice metric we rely on CG's breakdown test, which proves
 * indefiniteness when it meets p^T Phi p <= 0; the solve then switches to
 * MINRES (minres.ts), which needs symmetry only.
 *
 * Preconditioner: the circulant embedding's inverse restricted to the
 * lattice, R C^-1 R^T, with C's spectrum clamped from below so it stays
 * SPD. The embedding samples the symbol of the infinite Toeplitz operator,
 * whose inverse differs from Phi^-1 mostly near the border, so PCG needs a
 * few tens of iterations where plain CG needs hundreds (numbers in
 * test/bench/fast.bench.ts).
 */
export interface LatticePhi {
  op: ToeplitzOperator;
  eps: number;
  shape: number[];
  periodic: boolean;
  /** Inverse of the clamped embedding spectrum (preconditioner). */
  precondSpectrum: Float64Array;
  /**
   * Whether PCG uses the preconditioner. Not for periodic lattices (ring): a
   * periodic kernel's minimum-image embedding on a larger torus is not a
   * decaying kernel (its spectrum goes negative) and Phi, circulant and
   * well conditioned there, needs no help (rhs = 1 is even an eigenvector).
   */
  preconditioned: boolean;
  /** How many spectrum entries had to be clamped (0 when the embedding is SPD). */
  clamped: number;
  /** min / max of the embedding spectrum (its sign tells whether C itself is SPD). */
  spectrumMin: number;
  spectrumMax: number;
}

/** The lattice's offset distance and kernel exp(-eps d) as functions of (d1, d2) (1-D: d1 = 0). */
export function latticeKernel(
  domain: Domain,
  eps: number,
): {
  shape: number[];
  kernel: (d1: number, d2: number) => number;
  offset: (d1: number, d2: number) => number;
  periodic: boolean;
} {
  const lat = domain.structure.lattice;
  if (!lat) throw new MechError('not-applicable', `${domain.spec} is not translation invariant (no lattice structure)`);
  const shape = lat.shape.slice();
  if (shape.length !== 1 && shape.length !== 2) {
    throw new MechError(
      'not-applicable',
      `the FFT path handles 1-D and 2-D lattices; ${domain.spec} has ${shape.length} axes`,
    );
  }
  let prod = 1;
  for (const s of shape) prod *= s;
  if (prod !== domain.n)
    throw new MechError(
      'internal',
      `${domain.spec}: lattice shape [${shape.join(', ')}] does not match n = ${domain.n}`,
    );
  const delta = new Array<number>(shape.length).fill(0);
  const f = lat.offsetDistance;
  const offset =
    shape.length === 1
      ? (_d1: number, d2: number) => {
          delta[0] = d2;
          return f(delta);
        }
      : (d1: number, d2: number) => {
          delta[0] = d1;
          delta[1] = d2;
          return f(delta);
        };
  const kernel = (d1: number, d2: number) => Math.exp(-eps * offset(d1, d2));
  return { shape, kernel, offset, periodic: lat.periodic };
}

export function buildLatticePhi(domain: Domain, eps: number): LatticePhi {
  assertEpsilon(eps);
  const { shape, kernel, periodic } = latticeKernel(domain, eps);
  const op = new ToeplitzOperator(shape, kernel);
  const lam = op.spectrum;
  let mx = -Infinity;
  let mn = Infinity;
  for (let i = 0; i < lam.length; i++) {
    const v = lam[i]!;
    if (v > mx) mx = v;
    if (v < mn) mn = v;
  }
  // Clamp tiny or negative eigenvalues of the embedding (wide kernels on a
  // torus that truncates them) so the preconditioner stays SPD and bounded.
  const floor = mx * 1e-8;
  const inv = new Float64Array(lam.length);
  let clamped = 0;
  for (let i = 0; i < lam.length; i++) {
    let v = lam[i]!;
    if (v < floor) {
      v = floor;
      clamped++;
    }
    inv[i] = 1 / v;
  }
  return {
    op,
    eps,
    shape,
    periodic,
    preconditioned: !periodic,
    precondSpectrum: inv,
    clamped,
    spectrumMin: mn,
    spectrumMax: mx,
  };
}

interface LatticeSolveOptions {
  tol?: number;
  maxIter?: number;
  /** Use the circulant preconditioner (default: lp.preconditioned). */
  precondition?: boolean;
  onIteration?: (iteration: number, relResidual: number) => void;
}

/** Solve Phi x = b by (preconditioned) CG with FFT products. */
export function solveLatticePhi(lp: LatticePhi, b: Float64Array, opts: LatticeSolveOptions = {}): CgResult {
  if (b.length !== lp.op.n)
    throw new MechError('invalid-input', `right-hand side has ${b.length} entries, the domain has ${lp.op.n}`);
  return krylovSolve(conjugateGradient, lp, b, opts);
}

/** Solve Phi x = b by preconditioned MINRES (Phi symmetric but indefinite). */
export function minresLatticePhi(lp: LatticePhi, b: Float64Array, opts: LatticeSolveOptions = {}): CgResult {
  return krylovSolve(minres, lp, b, opts);
}

/** A Krylov solver (CG or MINRES, one signature) on Phi x = b: FFT products, the circulant preconditioner if asked. */
function krylovSolve(
  solver: typeof conjugateGradient,
  lp: LatticePhi,
  b: Float64Array,
  opts: LatticeSolveOptions,
): CgResult {
  const { op } = lp;
  const usePre = opts.precondition ?? lp.preconditioned;
  return solver(
    (x, out) => op.apply(x, out),
    b,
    usePre ? (r, out) => op.applySpectrum(lp.precondSpectrum, r, out) : null,
    {
      ...(opts.tol !== undefined ? { tol: opts.tol } : {}),
      ...(opts.maxIter !== undefined ? { maxIter: opts.maxIter } : {}),
      ...(opts.onIteration ? { onIteration: opts.onIteration } : {}),
    },
  );
}
