import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../src-worker/mechanism/facts';
import { tightConstraints } from '../../../../src-worker/mechanism/tight-constraints';
import { phiMatrix } from '../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { databaseDomain } from '../../../../src-worker/metric/database';
import { hammingCubeDomain } from '../../../../src-worker/metric/hamming-cube';
import { solveTightWeightsDense } from '../../../../src-worker/mechanism/tight-weights-dense';
import { solveTightWeights } from '../../../../src-worker/mechanism/tight-weights-structured';
import { tightExists } from '../../../../src-worker/bound/tight-exists';
import {
  expectClose,
  maxRowSumError,
  mechErrorOf,
  rowsOf,
  expectTightlyPrivate,
} from '../../support/mechanism-helpers';

describe('tight-constraints mechanism, dense path (SPEC §2)', () => {
  it('exists on a 3x3 Manhattan grid at eps = 0.5: C = Phi diag(z), rows sum to 1, tight', () => {
    const d = gridDomain(3, 3, 1, 'manhattan');
    const t = tightConstraints(d, 0.5);
    expect(t.exists).toBe(true);
    if (!t.exists) return;
    const phi = phiMatrix(d, 0.5);
    const rows = rowsOf(t.mechanism.channel);
    for (let i = 0; i < 9; i++) for (let j = 0; j < 9; j++) expectClose(rows[i]![j]!, phi.get(i, j) * t.z[j]!, 1e-15);
    expect(maxRowSumError(t.mechanism.channel)).toBeLessThan(1e-12);
    expectTightlyPrivate(t.mechanism.channel, d, 0.5);
  });

  it('does not exist on a 3x3 Euclidean grid at eps = 0.3: minZ < 0 at the centre, z solves Phi z = 1', () => {
    const d = gridDomain(3, 3);
    const t = tightConstraints(d, 0.3);
    expect(t.exists).toBe(false);
    if (t.exists) return;
    expect(t.minZ).toBeLessThan(-0.19);
    expect(t.argMinZ).toBe('(1,1)');
    expect(t.argMinIndex).toBe(4);
    expect(t.reason).toMatch(/z\[\(1,1\)\] = -0\.19/);
    // independent residual check of the dense solve
    const phi = phiMatrix(d, 0.3);
    for (let i = 0; i < 9; i++) {
      let s = 0;
      for (let j = 0; j < 9; j++) s += phi.get(i, j) * t.z[j]!;
      expectClose(s, 1, 1e-12);
    }
    // and it exists at eps = 1 on the same grid
    expect(tightConstraints(d, 1).exists).toBe(true);
  });

  it('accepts a swapped-in solver and reports its method', () => {
    const d = lineDomain(4);
    const alpha = Math.exp(-1);
    const z = Float64Array.from([1, 1 - alpha, 1 - alpha, 1].map((v) => v / (1 + alpha)));
    const t = tightConstraints(d, 1, () => ({ z, method: 'closed form (test)' }));
    expect(t.exists).toBe(true);
    if (t.exists) {
      expect(factsOf(t.mechanism, 'tight').solver).toBe('closed form (test)');
      expect(maxRowSumError(t.mechanism.channel)).toBeLessThan(1e-15);
    }
  });

  it('the default solver (phi/phi-solve) agrees with the dense reference: ball-size closed form, Kronecker and dense cases', () => {
    for (const [d, method] of [
      [hammingCubeDomain(4), /^ball-sizes$/],
      [databaseDomain(3, 3, { metric: 'manhattan' }), /^dense/],
      [databaseDomain(6, 3, { metric: 'manhattan' }), /^kronecker$/],
      [gridDomain(3, 4, 0.5, 'manhattan'), /^dense/],
    ] as const) {
      const s = solveTightWeights(d, 0.6);
      expect(s.method, d.spec).toMatch(method);
      const dense = solveTightWeightsDense(d, 0.6).z;
      for (let i = 0; i < d.n; i++) expectClose(s.z[i]!, dense[i]!, 1e-12);
    }
  });

  it('db:8,4 with the Manhattan metric (65536 databases): dense Phi is refused, the Kronecker path builds the mechanism', () => {
    const d = databaseDomain(8, 4, { metric: 'manhattan' });
    expect(mechErrorOf(() => solveTightWeightsDense(d, 1)).code).toBe('too-large');
    const t = tightConstraints(d, 1);
    expect(t.exists).toBe(true);
    if (!t.exists) return;
    expect(factsOf(t.mechanism, 'tight').solver).toBe('kronecker');
    // z is the 8-fold product of the line-4 weights: z_line = Phi_line^-1 1 (corners 1/(1+a), interior (1-a)/(1+a))
    const a = Math.exp(-1);
    const zEnd = 1 / (1 + a);
    const zMid = (1 - a) / (1 + a);
    expectClose(t.z[0]!, zEnd ** 8, 1e-12);
    expectClose(t.z[d.encode([1, 2, 0, 3, 1, 1, 2, 0])]!, zEnd ** 3 * zMid ** 5, 1e-12);
    expectClose(t.minZ, zMid ** 8, 1e-12);
    // the threshold-search existence test agrees (same tolerance rule)
    expect(tightExists(d, 1).exists).toBe(true);
    // two rows of the implicit channel sum to 1
    const buf = new Float64Array(d.n);
    for (const i of [0, 12345]) {
      t.mechanism.channel.row(i, buf);
      let s = 0;
      for (const v of buf) s += v;
      expectClose(s, 1, 1e-12);
    }
  });

  it('rejects bad eps', () => {
    for (const bad of [0, -2, NaN])
      expect(mechErrorOf(() => tightConstraints(lineDomain(3), bad)).code).toBe('invalid-input');
  });
});
