import { MechError } from '../../src-shared/errors';
import { SUM_TOL } from '../../src-shared/numeric/tolerance';
import { compensatedSum } from '../numeric/compensated-sum';

/** Validate a prior on n secrets: finite, non-negative, summing to 1 within SUM_TOL (1e-9). */
export function validatePrior(pi: ArrayLike<number>, n: number, what = 'prior'): Float64Array {
  if (pi.length !== n)
    throw new MechError('invalid-input', `${what} has ${pi.length} entries but the domain has ${n} points`);
  for (let i = 0; i < n; i++) {
    const v = pi[i]!;
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw new MechError('invalid-input', `${what}: entry ${i} is ${String(v)}, not a finite number`);
    if (v < 0) throw new MechError('invalid-input', `${what}: entry ${i} is negative (${v})`);
  }
  // compensated: the uniform prior on 1e8 points passes its own check
  const s = compensatedSum(pi);
  if (Math.abs(s - 1) > SUM_TOL)
    throw new MechError('invalid-input', `${what} sums to ${s}, not 1 (tolerance ${SUM_TOL})`);
  return Float64Array.from(pi as ArrayLike<number>);
}

export function uniformPrior(n: number): Float64Array {
  return new Float64Array(n).fill(1 / n);
}
