import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { DenseChannel } from '../../../../src-worker/mechanism/channel';
import { lineDomain } from '../../../../src-worker/metric/line';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { isUseful, smallestUsefulB, usefulnessCurve } from '../../../../src-worker/measure/usefulness';
import { expectedDistanceError } from '../../../../src-worker/measure/expected-distance-error';
import { uniformPrior } from '../../../../src-worker/measure/prior';
import { randomChannel, randomPrior, rr, tg } from '../../support/channel-fixtures';

/** Direct definition: max_x P(|y - x| > a). */
function directB(c: DenseChannel, a: number, colValue = (j: number) => j): number {
  let worst = 0;
  for (let x = 0; x < c.rows; x++) {
    let within = 0;
    for (let y = 0; y < c.cols; y++) if (Math.abs(colValue(y) - x) <= a) within += c.matrix.get(x, y);
    worst = Math.max(worst, 1 - within);
  }
  return worst;
}

describe('(a, b)-usefulness (SPEC §3)', () => {
  const d = lineDomain(6);
  it('TG on 0..5, alpha 1/2: b(0) = 2/3 (interior diagonal 1/3), b(1) = 1/3', () => {
    const c = tg(5, 0.5);
    expect(smallestUsefulB(c, d, 0).b).toBeCloseTo(2 / 3, 14);
    expect(smallestUsefulB(c, d, 1).b).toBeCloseTo(1 / 3, 14);
    expect(isUseful(c, d, 1, 1 / 3)).toBe(true);
    expect(isUseful(c, d, 1, 0.33)).toBe(false);
  });

  it('the curve over a matches the definition at every a, is non-increasing, and reaches 0 at the max deviation', () => {
    for (let seed = 1; seed <= 3; seed++) {
      const c = randomChannel(6, 6, seed);
      const curve = usefulnessCurve(c, d);
      expect(Array.from(curve.a)).toEqual([0, 1, 2, 3, 4, 5]);
      for (let t = 0; t < curve.a.length; t++) {
        expect(curve.b[t]).toBeCloseTo(directB(c, curve.a[t]!), 14);
        if (t > 0) expect(curve.b[t]!).toBeLessThanOrEqual(curve.b[t - 1]! + 1e-15);
      }
      expect(curve.b[5]).toBeCloseTo(0, 14);
      const half = usefulnessCurve(c, d, [2.5, 0.5]);
      expect(Array.from(half.a)).toEqual([0.5, 2.5]);
      expect(half.b[0]).toBeCloseTo(directB(c, 0.5), 14);
    }
  });

  it('numeric output labels when the outputs are not the domain points', () => {
    const c = new DenseChannel(
      Matrix.fromRows([
        [0.5, 0.5],
        [0.2, 0.8],
        [0.9, 0.1],
      ]),
      ['0', '1', '2'],
      ['0.5', '1.5'],
    );
    const vals = [0.5, 1.5];
    expect(smallestUsefulB(c, lineDomain(3), 0.5).b).toBeCloseTo(
      directB(c, 0.5, (j) => vals[j]!),
      14,
    );
    const bad = new DenseChannel(Matrix.fromRows([[1], [1], [1]]), ['0', '1', '2'], ['yes']);
    expect(() => smallestUsefulB(bad, lineDomain(3), 1)).toThrow(/output label 'yes'/);
  });

  it('refuses non-numeric domains, negative a and b outside [0, 1]', () => {
    expect(() => smallestUsefulB(rr(3, 1), cliqueDomain(3), 1)).toThrow(/no numeric answers/);
    expect(() => smallestUsefulB(tg(5, 0.5), d, -1)).toThrow(MechError);
    expect(() => isUseful(tg(5, 0.5), d, 1, 1.5)).toThrow(/b must be a number in \[0, 1\]/);
  });
});

describe('expected distance error (SPEC §3)', () => {
  it('RR on a clique: 1 - diagonal = 5/7; TG on a line vs the double sum', () => {
    expect(expectedDistanceError(uniformPrior(6), rr(6, Math.log(2)), cliqueDomain(6))).toBeCloseTo(5 / 7, 14);
    const c = tg(5, 0.5);
    const p = randomPrior(6, 4);
    let direct = 0;
    for (let x = 0; x < 6; x++) for (let y = 0; y < 6; y++) direct += p[x]! * c.matrix.get(x, y) * Math.abs(x - y);
    expect(expectedDistanceError(p, c, lineDomain(6))).toBeCloseTo(direct, 14);
  });
  it('refuses a channel whose outputs are not the domain points, unless mapped', () => {
    const c = randomChannel(4, 2, 1);
    expect(() => expectedDistanceError(uniformPrior(4), c, lineDomain(4))).toThrow(
      /say which point each output reports/,
    );
    const v = expectedDistanceError(uniformPrior(4), c, lineDomain(4), (y) => 3 * y);
    let direct = 0;
    for (let x = 0; x < 4; x++) for (let y = 0; y < 2; y++) direct += 0.25 * c.matrix.get(x, y) * Math.abs(x - 3 * y);
    expect(v).toBeCloseTo(direct, 14);
  });
});
