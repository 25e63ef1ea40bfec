import { expect } from 'vitest';
import {
  checkPrivacy,
  type PrivacyCheckOptions,
  type PrivacyCheckResult,
} from '../../../src-worker/check/privacy-check';
import type { RowSource } from '../../../src-worker/mechanism/channel';
import type { Domain } from '../../../src-worker/metric/domain';
import { compensatedSum } from '../../../src-worker/numeric/compensated-sum';

/** All rows of a source as plain arrays (small test channels only). */
export function rowsOf(src: RowSource): number[][] {
  const out: number[][] = [];
  const buf = new Float64Array(src.cols);
  for (let i = 0; i < src.rows; i++) out.push(Array.from(src.row(i, buf)));
  return out;
}

/** Binary-gain utility with an optimal remap: sum_y max_x pi_x C[x][y] (SPEC §3), computed here independently. */
export function utility(src: RowSource, pi?: ArrayLike<number>): number {
  const rows = rowsOf(src);
  let s = 0;
  for (let y = 0; y < src.cols; y++) {
    let m = 0;
    for (let x = 0; x < src.rows; x++) m = Math.max(m, (pi ? pi[x]! : 1 / src.rows) * rows[x]![y]!);
    s += m;
  }
  return s;
}

export function maxRowSumError(src: RowSource): number {
  const buf = new Float64Array(src.cols);
  let w = 0;
  for (let i = 0; i < src.rows; i++) {
    src.row(i, buf);
    w = Math.max(w, Math.abs(neumaierSum(buf) - 1));
  }
  return w;
}

export function expectClose(a: number, b: number, tol = 1e-12): void {
  if (!(Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b))))
    throw new Error(`expected ${a} to be within ${tol} of ${b}`);
}

/** Run fn and return the MechError it throws (fails if it does not throw one). */
export function mechErrorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    const err = e as { name?: string; code?: string; message: string };
    if (err.name !== 'MechError') throw new Error(`expected a MechError, got ${String(e)}`, { cause: e });
    return { code: err.code!, message: err.message };
  }
  throw new Error('expected a MechError, nothing was thrown');
}

/** Compensated (Neumaier) sum, so a row sum check measures the row, not the test's own rounding. */
export const neumaierSum = compensatedSum;

/**
 * The channel is eps*d-private and no more: the privacy check passes at eps and fails at 0.99 eps.
 * Returns the check at eps, for assertions on its effective epsilon.
 */
export function expectTightlyPrivate(
  src: RowSource,
  d: Domain,
  eps: number,
  opts: PrivacyCheckOptions = {},
): PrivacyCheckResult {
  const r = checkPrivacy(src, d, eps, opts);
  expect(r.passes, `passes at eps ${eps}`).toBe(true);
  expect(checkPrivacy(src, d, 0.99 * eps, opts).passes, `fails at 0.99 eps ${eps}`).toBe(false);
  return r;
}
