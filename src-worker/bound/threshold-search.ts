import { MechError } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { tightExists, type TightExistence } from './tight-exists';

interface ThresholdOptions {
  /** First eps on the grid (default: step). */
  from?: number;
  /** Last eps on the grid (default 10). */
  to?: number;
  /** Grid step (default 0.01, SPEC §5). */
  step?: number;
  /** The existence test; defaults to tightExists (a structured solver may replace it). */
  exists?: (domain: Domain, eps: number) => TightExistence;
}

interface ThresholdResult {
  /** Smallest grid eps at which the tight-constraints mechanism exists; null if none up to `to`. */
  epsilon: number | null;
  /** True when it already exists at `from` (the true threshold may be lower). */
  atLowerEnd: boolean;
  /** Grid points tested. */
  checked: number;
  /** The last eps where it did not exist (or was undecided), with its min z. */
  below: { epsilon: number; minZ: number } | null;
}

function num(v: number | undefined, dflt: number, name: string): number {
  const x = v ?? dflt;
  if (typeof x !== 'number' || !Number.isFinite(x) || x <= 0)
    throw new MechError('invalid-input', `threshold ${name} must be a finite number > 0, got ${String(x)}`);
  return x;
}

/**
 * Threshold search (SPEC §5): the smallest eps on the grid from, from + s,
 * ..., <= to for which the tight-constraints mechanism exists (uniform prior
 * regular). Existence need not be monotone in eps, so the grid is scanned
 * upwards and the first hit is returned. Grid points are from + k*s rounded
 * to 12 significant digits so that 0.07 is 0.07, not 0.07000000000000001.
 */
export function thresholdSearch(domain: Domain, opts: ThresholdOptions = {}): ThresholdResult {
  const step = num(opts.step, 0.01, 'step');
  const from = num(opts.from, step, 'from');
  const to = num(opts.to, Math.max(10, from), 'to');
  if (to < from) throw new MechError('invalid-input', `threshold range is empty: from ${from} > to ${to}`);
  const count = Math.floor((to - from) / step + 1e-9) + 1;
  if (count > 1e6)
    throw new MechError('invalid-input', `threshold grid has ${count} points; use a larger step or a smaller range`);
  const exists = opts.exists ?? tightExists;
  let below: ThresholdResult['below'] = null;
  for (let k = 0; k < count; k++) {
    const eps = Number((from + k * step).toPrecision(12));
    const r = exists(domain, eps);
    if (r.exists === true) return { epsilon: eps, atLowerEnd: k === 0, checked: k + 1, below };
    below = { epsilon: eps, minZ: r.minZ };
  }
  return { epsilon: null, atLowerEnd: false, checked: count, below };
}
