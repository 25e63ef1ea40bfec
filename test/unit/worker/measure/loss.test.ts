import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import type { RowSource } from '../../../../src-worker/mechanism/channel';
import type { Domain } from '../../../../src-worker/metric/domain';
import { lineDomain } from '../../../../src-worker/metric/line';
import { ringDomain } from '../../../../src-worker/metric/ring';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { uniformPrior } from '../../../../src-worker/measure/prior';
import { posteriorLoss, priorLoss } from '../../../../src-worker/measure/expected-loss';
import { posteriorGVulnerability, priorGVulnerability } from '../../../../src-worker/measure/g-vulnerability';
import { posteriorVulnerability } from '../../../../src-worker/measure/posterior-vulnerability';
import { binaryGain, gainFromLoss } from '../../../../src-worker/measure/gain-function';
import { buildGain, buildLoss, parseGuessName, type GuessSpec } from '../../../../src-worker/measure/loss-spec';
import { distanceLoss } from '../../../../src-worker/measure/distance-loss';
import { matrixLoss } from '../../../../src-worker/measure/matrix-loss';
import { bestByScan, type GuessFunction } from '../../../../src-worker/measure/guess-function';
import { forEachWeightedColumn } from '../../../../src-worker/measure/weighted-columns';
import { randomChannel, randomPrior, rr, tg } from '../../support/channel-fixtures';

/** Expected loss of one fixed remap w(y): sum_y sum_x pi_x C[x][y] l(w(y), x). */
function remapValue(p: Float64Array, c: RowSource, f: GuessFunction, remap: ArrayLike<number>): number {
  const buf = new Float64Array(c.cols);
  let v = 0;
  for (let x = 0; x < c.rows; x++) {
    c.row(x, buf);
    for (let y = 0; y < c.cols; y++) v += p[x]! * buf[y]! * f.value(remap[y]!, x);
  }
  return v;
}

/** Brute force over ALL W^m remaps. */
function bruteForce(p: Float64Array, c: RowSource, f: GuessFunction): number {
  const m = c.cols;
  const W = f.guesses;
  const remap = new Array<number>(m).fill(0);
  let best = f.sense === 'loss' ? Infinity : -Infinity;
  for (;;) {
    const v = remapValue(p, c, f, remap);
    best = f.sense === 'loss' ? Math.min(best, v) : Math.max(best, v);
    let k = 0;
    while (k < m && ++remap[k]! === W) remap[k++] = 0;
    if (k === m) break;
  }
  return best;
}

describe('loss U_l[pi > C] with the minimising remap (SPEC §3)', () => {
  const specs: GuessSpec[] = [{ kind: 'bin' }, { kind: 'nib' }, { kind: 'dist' }, { kind: 'dist2' }];
  const domains: Domain[] = [
    lineDomain(4),
    ringDomain(4),
    gridDomain(2, 2, 1, 'manhattan'),
    gridDomain(2, 2, 1.5, 'euclidean'),
    cliqueDomain(4),
  ];

  it('the returned remap is optimal vs brute force over all 4^4 remaps, and attains the value', () => {
    let seed = 1;
    for (const d of domains)
      for (const s of specs) {
        const c = randomChannel(4, 4, seed);
        const p = randomPrior(4, seed + 50);
        seed++;
        const l = buildLoss(s, d);
        const r = posteriorLoss(p, c, l);
        expect(r.value).toBeCloseTo(bruteForce(p, c, l), 13);
        expect(remapValue(p, c, l, r.remap)).toBeCloseTo(r.value, 13);
        const g = buildGain(s, d);
        const rg = posteriorGVulnerability(p, c, g);
        expect(rg.value).toBeCloseTo(bruteForce(p, c, g), 13);
        expect(remapValue(p, c, g, rg.remap)).toBeCloseTo(rg.value, 13);
      }
  });

  it('a custom loss matrix with more guesses than secrets (3 guesses x 2 secrets, 3 outputs)', () => {
    const m = Matrix.fromRows([
      [0, 4],
      [3, 0],
      [1, 1.2],
    ]);
    const l = matrixLoss(m, ['a', 'b', 'hedge']);
    for (let seed = 1; seed <= 6; seed++) {
      const c = randomChannel(2, 3, seed);
      const p = randomPrior(2, seed);
      const r = posteriorLoss(p, c, l);
      expect(r.value).toBeCloseTo(bruteForce(p, c, l), 14);
      expect(remapValue(p, c, l, r.remap)).toBeCloseTo(r.value, 14);
    }
    // uniform prior, no channel: min(2, 1.5, 1.1) = 1.1 by hedging
    expect(priorLoss([0.5, 0.5], l)).toEqual({ value: expect.closeTo(1.1, 14), w: 2 });
  });

  it('structured best guesses (line median/mean, separable grids) agree with the scan on larger cases', () => {
    const cases: [Domain, 1 | 2][] = [
      [lineDomain(30), 1],
      [lineDomain(30), 2],
      [ringDomain(30), 1],
      [ringDomain(31), 1],
      [ringDomain(3), 1],
      [gridDomain(5, 6, 2, 'manhattan'), 1],
      [gridDomain(5, 6, 0.5, 'euclidean'), 2],
    ];
    let seed = 3;
    for (const [d, pw] of cases) {
      const c = randomChannel(d.n, 17, seed);
      const p = randomPrior(d.n, seed++);
      const l = distanceLoss(d, pw);
      let scan = 0;
      forEachWeightedColumn(p, c, (_y, q) => {
        scan += bestByScan(l, q).value;
      });
      expect(posteriorLoss(p, c, l).value).toBeCloseTo(scan, 12);
    }
  });

  it('binary loss = 1 - posterior vulnerability; binary gain = posterior vulnerability', () => {
    const c = rr(6, Math.log(2));
    const p = uniformPrior(6);
    const d = cliqueDomain(6);
    expect(posteriorLoss(p, c, buildLoss({ kind: 'bin' }, d)).value).toBeCloseTo(5 / 7, 14);
    const g = posteriorGVulnerability(p, c, binaryGain(6));
    expect(g.value).toBeCloseTo(posteriorVulnerability(p, c).value, 15);
    expect(g.value).toBeCloseTo(2 / 7, 14);
    expect(priorGVulnerability(p, binaryGain(6)).value).toBeCloseTo(1 / 6, 15);
  });

  it('TG on 0..5, uniform prior: expected |error| after the optimal remap, and g = -l gives V_g = -U_l', () => {
    const c = tg(5, 0.5);
    const p = uniformPrior(6);
    const l = distanceLoss(lineDomain(6), 1);
    const r = posteriorLoss(p, c, l);
    // TG is a "derivable" mechanism: the identity remap is optimal for |.| (the weighted median of each column is y
    // itself)
    expect(Array.from(r.remap)).toEqual([0, 1, 2, 3, 4, 5]);
    let direct = 0;
    for (let x = 0; x < 6; x++) for (let y = 0; y < 6; y++) direct += (1 / 6) * c.matrix.get(x, y) * Math.abs(x - y);
    expect(r.value).toBeCloseTo(direct, 14);
    expect(posteriorGVulnerability(p, c, gainFromLoss(l)).value).toBeCloseTo(-r.value, 14);
  });

  it('column blocks of any width give the same columns as one pass', () => {
    const c = randomChannel(5, 7, 9);
    const p = randomPrior(5, 9);
    const full: number[] = [];
    forEachWeightedColumn(p, c, (_y, q) => full.push(...q));
    for (const block of [1, 5, 10, 12]) {
      const got: number[] = [];
      forEachWeightedColumn(p, c, (_y, q) => got.push(...q), block);
      expect(got).toEqual(full);
    }
  });
});

describe('loss/gain descriptors and bad input', () => {
  it('parses bin, nib, dist, dist2 and names anything else', () => {
    for (const k of ['bin', 'nib', 'dist', 'dist2']) expect(parseGuessName(k)).toEqual({ kind: k });
    expect(() => parseGuessName('hamming')).toThrow(/unknown loss 'hamming'/);
  });
  it('a matrix with the wrong number of secrets, NaN entries, or a loss where a gain is needed', () => {
    const d = lineDomain(3);
    expect(() => buildLoss({ kind: 'matrix', matrix: new Matrix(2, 2) }, d)).toThrow(
      /2 secret columns but the domain line:3 has 3/,
    );
    const bad = Matrix.fromRows([[0, NaN, 1]]);
    expect(() => buildLoss({ kind: 'matrix', matrix: bad }, d)).toThrow(MechError);
    expect(() => buildLoss({ kind: 'matrix', matrix: bad }, d)).toThrow(/not a finite number/);
    const l = buildLoss({ kind: 'dist' }, d);
    // @ts-expect-error a loss is not a gain
    expect(() => posteriorGVulnerability(uniformPrior(3), rr(3, 1), l)).toThrow(
      /g-vulnerability needs a gain function/,
    );
    expect(() => posteriorLoss(uniformPrior(4), rr(4, 1), l)).toThrow(
      /defined on 3 secrets but the channel has 4 rows/,
    );
    expect(() => posteriorLoss([0.5, 0.5, 0.1], rr(3, 1), l)).toThrow(/sums to/);
  });
});
