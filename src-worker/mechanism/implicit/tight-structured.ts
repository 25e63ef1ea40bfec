import { assertEpsilon } from '../../../src-shared/errors';
import { Z_TOL } from '../../../src-shared/numeric/tolerance';
import { solvePhiWith, type SolvePhiOptions, type SolvePhiResult } from '../../phi/phi-solve';
import type { Domain } from '../../metric/domain';
import type { Mechanism } from '../channel';
import { ImplicitTightChannel } from './implicit-tight-channel';

/**
 * Tight-constraints mechanism on a domain of any size (SPEC §2): solve
 * Phi z = 1 through solvePhi (FFT + PCG on lattices, Kronecker on V^u,
 * dense when small). If z >= 0 the mechanism C[x][y] = Phi[x][y] z[y] exists
 * and is returned as an implicit channel (rows on demand). If some z < 0 it
 * does not exist: min z and where are reported (SPEC §2, CLI
 * {"exists": false, "minZ": ..}).
 *
 * Sign decision: z[y] < -Z_TOL * max(1, max|z|) is negative (numeric/tolerance,
 * the rule of the dense construction and of the threshold search). Smaller
 * negative values are rounding of a zero (the solve is accurate to ~1e-12
 * relative) and are clamped to 0; the clamp is reported (facts.clampedZ).
 */

type TightStructuredResult =
  | {
      exists: true;
      mechanism: Mechanism & { channel: ImplicitTightChannel };
      z: Float64Array;
      solve: SolvePhiResult;
      minZ: number;
      argMinZ: number;
    }
  | { exists: false; minZ: number; argMinZ: number; argMinLabel: string; z: Float64Array; solve: SolvePhiResult };

export function tightConstraintsStructured(
  domain: Domain,
  eps: number,
  opts: SolvePhiOptions = {},
): TightStructuredResult {
  assertEpsilon(eps);
  const n = domain.n;
  const ones = new Float64Array(n).fill(1);
  const { result, op } = solvePhiWith(domain, eps, ones, opts);
  const z = result.x;
  let minZ = Infinity;
  let argMinZ = 0;
  let maxAbs = 0;
  for (let i = 0; i < n; i++) {
    const v = z[i]!;
    if (v < minZ) {
      minZ = v;
      argMinZ = i;
    }
    const a = Math.abs(v);
    if (a > maxAbs) maxAbs = a;
  }
  if (minZ < -Z_TOL * Math.max(1, maxAbs)) {
    return { exists: false, minZ, argMinZ, argMinLabel: domain.label(argMinZ), z, solve: result };
  }
  let clamped = 0;
  for (let i = 0; i < n; i++) {
    if (z[i]! < 0) {
      z[i] = 0;
      clamped++;
    }
  }
  // Row sums are (Phi z)_x: one structured product gives the worst deviation from 1
  // (an unstructured 'metric' operator would need O(n^2): 64 spread rows are checked instead).
  let rowSumError = 0;
  if (op.method === 'metric') {
    const row = new Float64Array(n);
    const k = Math.min(n, 64);
    for (let t = 0; t < k; t++) {
      op.row(Math.floor((t * n) / k), row);
      let s = 0;
      for (let j = 0; j < n; j++) s += row[j]! * z[j]!;
      rowSumError = Math.max(rowSumError, Math.abs(s - 1));
    }
  } else {
    const sums = op.apply(z, new Float64Array(n));
    for (let i = 0; i < n; i++) rowSumError = Math.max(rowSumError, Math.abs(sums[i]! - 1));
  }
  const channel = new ImplicitTightChannel(domain, op, z);
  const mechanism: Mechanism & { channel: ImplicitTightChannel } = {
    kind: 'tight',
    channel,
    guaranteedEpsilon: eps,
    guarantee: `exactly eps*d-private with eps = ${eps}: C[x][y] / C[x'][y] = exp(-eps (d(x,y) - d(x',y))) <= exp(eps d(x,x')) by the triangle inequality`,
    facts: {
      kind: 'tight-implicit',
      solver: result.method,
      iterations: result.iterations,
      relResidual: result.relResidual,
      solveMs: result.timeMs,
      setupMs: result.setupMs,
      minZ,
      argMinZ: domain.label(argMinZ),
      clampedZ: clamped,
      maxRowSumError: rowSumError,
      ...(result.fellBack ? { fellBack: result.fellBack } : {}),
    },
  };
  return { exists: true, mechanism, z, solve: result, minZ, argMinZ };
}
