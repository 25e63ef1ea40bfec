import { assertEpsilon } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import type { Mechanism } from './channel';
import type { MechanismFacts } from './facts';
import { FunctionRowSource } from './function-row-source';
import type { TightWeightsSolver } from './tight-weights-dense';
import { solveTightWeights } from './tight-weights-structured';

/**
 * Tight-constraints mechanism (SPEC §2, §5): solve Phi z = 1; when z >= 0 the
 * mechanism C[x][x'] = Phi[x][x'] z[x'] is eps*d-private with every
 * constraint between an output's column entries tight, and optimal (binary
 * gain) for every regular prior. When some z < 0 it does not exist: the
 * result says so with min z and where.
 *
 * Tolerance: z[x'] >= -Z_TOL * max(1, max |z|) counts as non-negative (a
 * rounding zero, clamped to 0); anything below means non-existence.
 */
export { Z_TOL } from '../../src-shared/numeric/tolerance';
import { Z_TOL } from '../../src-shared/numeric/tolerance';

export type TightResult =
  | { exists: true; mechanism: Mechanism; z: Float64Array; minZ: number; argMinZ: string }
  | { exists: false; minZ: number; argMinZ: string; argMinIndex: number; z: Float64Array; reason: string };

export function tightConstraints(
  domain: Domain,
  eps: number,
  solver: TightWeightsSolver = solveTightWeights,
): TightResult {
  assertEpsilon(eps);
  const n = domain.n;
  const t0 = performance.now();
  const { z, method } = solver(domain, eps);
  const ms = performance.now() - t0;
  let minZ = Infinity;
  let arg = 0;
  let maxAbs = 0;
  for (let i = 0; i < n; i++) {
    if (z[i]! < minZ) {
      minZ = z[i]!;
      arg = i;
    }
    maxAbs = Math.max(maxAbs, Math.abs(z[i]!));
  }
  const tol = Z_TOL * Math.max(1, maxAbs);
  if (minZ < -tol) {
    return {
      exists: false,
      minZ,
      argMinZ: domain.label(arg),
      argMinIndex: arg,
      z,
      reason: `no tight-constraints mechanism for ${domain.spec} at eps = ${eps}: Phi z = 1 has z[${domain.label(arg)}] = ${minZ} < 0 (the uniform prior is not regular)`,
    };
  }
  const w = Float64Array.from(z, (v) => (v < 0 ? 0 : v));
  return {
    exists: true,
    mechanism: tightFromWeights(domain, eps, w, {
      kind: 'tight',
      solver: method,
      solveMs: Math.round(ms * 10) / 10,
      minZ,
    }),
    z,
    minZ,
    argMinZ: domain.label(arg),
  };
}

/**
 * The implicit channel C[x][x'] = exp(-eps d(x,x')) z[x'] (row x in O(n)),
 * for weights from any solver. Rows sum to (Phi z)[x] = 1 up to the solve's
 * residual.
 */
function tightFromWeights(
  domain: Domain,
  eps: number,
  z: Float64Array,
  facts: MechanismFacts = { kind: 'none' },
): Mechanism {
  const n = domain.n;
  const fill = (x: number, out: Float64Array): void => {
    for (let y = 0; y < n; y++) {
      const zy = z[y]!;
      out[y] = zy === 0 ? 0 : Math.exp(-eps * domain.distance(x, y)) * zy;
    }
  };
  return {
    kind: 'tight',
    channel: new FunctionRowSource(n, n, fill, (i) => domain.label(i)),
    guaranteedEpsilon: eps,
    guarantee: `eps*d-private with eps = ${eps}: column ratios are exactly exp(-eps (d(x,y) - d(x',y))) <= exp(eps d(x,x')); optimal for every regular prior (SPEC §5)`,
    facts,
  };
}
