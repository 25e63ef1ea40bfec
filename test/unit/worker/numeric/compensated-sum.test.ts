import { describe, expect, it } from 'vitest';
import { compensatedSum } from '../../../../src-worker/numeric/compensated-sum';

describe('compensatedSum (Neumaier)', () => {
  it('keeps what a plain sum loses', () => {
    expect([1e16, 1, -1e16].reduce((a, b) => a + b, 0)).toBe(0); // the plain sum loses the 1
    expect(compensatedSum([1e16, 1, -1e16])).toBe(1);
    expect(compensatedSum(new Float64Array([1, 1e100, 1, -1e100]))).toBe(2);
  });

  it('10^6 terms of 0.1 sum to 10^5 within one rounding', () => {
    const v = new Float64Array(1e6).fill(0.1);
    let plain = 0;
    for (const x of v) plain += x;
    expect(Math.abs(plain - 1e5)).toBeGreaterThan(1e-7);
    expect(Math.abs(compensatedSum(v) - 1e5)).toBeLessThanOrEqual(1e5 * Number.EPSILON);
  });

  it('empty and single', () => {
    expect(compensatedSum([])).toBe(0);
    expect(compensatedSum([-3.5])).toBe(-3.5);
  });
});
