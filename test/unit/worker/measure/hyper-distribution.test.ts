import { describe, expect, it } from 'vitest';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { DenseChannel } from '../../../../src-worker/mechanism/channel';
import { hyperDistribution } from '../../../../src-worker/measure/hyper-distribution';
import { posteriorVulnerability } from '../../../../src-worker/measure/posterior-vulnerability';
import { uniformPrior } from '../../../../src-worker/measure/prior';
import { randomChannel, randomPrior, rr } from '../../support/channel-fixtures';

describe('hyper-distribution [pi > C] (SPEC §3)', () => {
  it('merges identical and proportional columns, drops never-seen outputs', () => {
    // columns 0 and 2 identical, column 3 proportional to column 0 (same posterior), column 4 all zero
    const c = new DenseChannel(
      Matrix.fromRows([
        [0.2, 0.5, 0.2, 0.1, 0],
        [0.3, 0.25, 0.3, 0.15, 0],
        [0.1, 0.75, 0.1, 0.05, 0],
      ]),
    );
    const p = [0.5, 0.3, 0.2];
    const h = hyperDistribution(p, c);
    expect(h.inners.rows).toBe(2);
    expect(Array.from(h.innerOf)).toEqual([0, 1, 0, 0, -1]);
    expect(Array.from(h.members[0]!)).toEqual([0, 2, 3]);
    // outer of inner 0 = p(y0) + p(y2) + p(y3)
    const py = (y: number) => p.reduce((s, px, x) => s + px * c.matrix.get(x, y), 0);
    expect(h.outer[0]).toBeCloseTo(py(0) + py(2) + py(3), 15);
    expect(h.outer[1]).toBeCloseTo(py(1), 15);
    expect(h.outer[0]! + h.outer[1]!).toBeCloseTo(1, 15);
    // inner 0 = posterior of column 0
    for (let x = 0; x < 3; x++) expect(h.inners.get(0, x)).toBeCloseTo((p[x]! * c.matrix.get(x, 0)) / py(0), 14);
  });

  it('RR on 6 labels has 6 distinct inners with outer 1/6 each; the identity has point-mass inners', () => {
    const h = hyperDistribution(uniformPrior(6), rr(6, Math.log(2)));
    expect(h.inners.rows).toBe(6);
    for (let k = 0; k < 6; k++) {
      expect(h.outer[k]).toBeCloseTo(1 / 6, 15);
      expect(h.inners.get(k, k)).toBeCloseTo(2 / 7, 14);
    }
    // a channel whose rows are all equal leaks nothing: one inner equal to the prior
    const p = randomPrior(4, 2);
    const flat = new DenseChannel(Matrix.fromRows(Array.from({ length: 4 }, () => [0.1, 0.6, 0.3])));
    const hf = hyperDistribution(p, flat);
    expect(hf.inners.rows).toBe(1);
    expect(hf.outer[0]).toBeCloseTo(1, 15);
    for (let x = 0; x < 4; x++) expect(hf.inners.get(0, x)).toBeCloseTo(p[x]!, 14);
  });

  it('the hyper reproduces V[pi > C] = sum_k outer_k max_x inner_k(x) and averages back to the prior', () => {
    const c = randomChannel(5, 8, 11);
    const p = randomPrior(5, 12);
    const h = hyperDistribution(p, c);
    let v = 0;
    const back = new Float64Array(5);
    for (let k = 0; k < h.inners.rows; k++) {
      v += h.outer[k]! * Math.max(...h.inners.row(k));
      for (let x = 0; x < 5; x++) back[x]! += h.outer[k]! * h.inners.get(k, x);
    }
    expect(v).toBeCloseTo(posteriorVulnerability(p, c).value, 14);
    for (let x = 0; x < 5; x++) expect(back[x]).toBeCloseTo(p[x]!, 14);
  });
});
