import { describe, expect, it } from 'vitest';
import { truncatedGeometric } from '../../../../src-worker/mechanism/truncated-geometric';
import { tightConstraints } from '../../../../src-worker/mechanism/tight-constraints';
import { lineDomain } from '../../../../src-worker/metric/line';
import { ringDomain } from '../../../../src-worker/metric/ring';
import { gridDomain } from '../../../../src-worker/metric/grid';
import {
  expectClose,
  maxRowSumError,
  mechErrorOf,
  rowsOf,
  utility,
  expectTightlyPrivate,
} from '../../support/mechanism-helpers';

describe('truncated geometric (SPEC §2, §7)', () => {
  const eps = Math.log(2); // alpha = 1/2

  it('on 0..5 with alpha = 1/2 has first row 32,8,4,2,1,1 over 48 and uniform utility 4/9', () => {
    const m = truncatedGeometric(lineDomain(6), eps);
    const rows = rowsOf(m.channel);
    [32, 8, 4, 2, 1, 1].forEach((v, j) => expectClose(rows[0]![j]!, v / 48, 1e-15));
    // last row mirrors the first; an interior row from the formula
    [1, 1, 2, 4, 8, 32].forEach((v, j) => expectClose(rows[5]![j]!, v / 48, 1e-15));
    // row 2: col0 alpha^2/(1+alpha) = 1/6, interior (1/3) alpha^|2-z|, col5 alpha^3/(1+alpha) = 1/12
    [1 / 6, 1 / 6, 1 / 3, 1 / 6, 1 / 12, 1 / 12].forEach((v, j) => expectClose(rows[2]![j]!, v, 1e-15));
    expectClose(utility(m.channel), 4 / 9, 1e-14);
    expect(maxRowSumError(m.channel)).toBeLessThan(1e-15);
    expect(m.guaranteedEpsilon).toBe(eps);
  });

  it('is exactly eps-private: passes at eps, fails at 0.99 eps', () => {
    const d = lineDomain(9);
    const m = truncatedGeometric(d, 0.7);
    expectClose(expectTightlyPrivate(m.channel, d, 0.7).effectiveEpsilon, 0.7, 1e-12);
  });

  it('equals the tight-constraints mechanism of the line (dense solve)', () => {
    const d = lineDomain(7);
    const t = tightConstraints(d, 0.4);
    expect(t.exists).toBe(true);
    if (!t.exists) return;
    const a = rowsOf(truncatedGeometric(d, 0.4).channel);
    const b = rowsOf(t.mechanism.channel);
    for (let i = 0; i < 7; i++) for (let j = 0; j < 7; j++) expectClose(a[i]![j]!, b[i]![j]!, 1e-12);
  });

  it('works row by row on a huge line (count:10^6) and handles k = 0', () => {
    const m = truncatedGeometric(lineDomain(1_000_000), 0.01);
    const buf = new Float64Array(1_000_000);
    m.channel.row(500_000, buf);
    let s = 0;
    for (const v of buf) s += v;
    expect(Math.abs(s - 1)).toBeLessThan(1e-9);
    expectClose(buf[500_000]!, -Math.expm1(-0.01) / (1 + Math.exp(-0.01)), 1e-14);
    expect(rowsOf(truncatedGeometric(lineDomain(1), 1).channel)).toEqual([[1]]);
  });

  it('rejects non-line domains and bad eps with typed errors', () => {
    for (const d of [ringDomain(6), gridDomain(2, 3)]) {
      const e = mechErrorOf(() => truncatedGeometric(d, 1));
      expect(e.code).toBe('not-applicable');
      expect(e.message).toMatch(/line domain/);
    }
    for (const bad of [0, -1, NaN, Infinity]) {
      const e = mechErrorOf(() => truncatedGeometric(lineDomain(4), bad));
      expect(e.code).toBe('invalid-input');
      expect(e.message).toMatch(/epsilon must be a finite number > 0/);
    }
  });
});
