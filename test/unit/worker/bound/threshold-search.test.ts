import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { luFactor, luSolve } from '../../../../src-worker/linalg/lu';
import { phiMatrix } from '../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { ringDomain } from '../../../../src-worker/metric/ring';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { tightExists } from '../../../../src-worker/bound/tight-exists';
import { thresholdSearch } from '../../../../src-worker/bound/threshold-search';
import { regularity } from '../../../../src-worker/bound/regularity';
import { uniformPrior } from '../../../../src-worker/measure/prior';
import { tableDomain } from '../../support/channel-fixtures';

/**
 * Star: centre 0 and three leaves. z_centre = (1 - 2 alpha)/(1 + alpha): the tight mechanism exists iff eps >= ln 2.
 */
const star = tableDomain([
  [0, 1, 1, 1],
  [1, 0, 2, 2],
  [1, 2, 0, 2],
  [1, 2, 2, 0],
]);

function directMinZ(d: Parameters<typeof phiMatrix>[0], eps: number): number {
  return Math.min(...luSolve(luFactor(phiMatrix(d, eps)), new Float64Array(d.n).fill(1)));
}

describe('tight-constraints existence and the threshold search (SPEC §5)', () => {
  it('star: z_centre = (1 - 2 alpha)/(1 + alpha), exists iff the uniform prior is regular', () => {
    for (const eps of [0.3, 0.6, 0.69, 0.7, 1.2]) {
      const a = Math.exp(-eps);
      const t = tightExists(star, eps);
      expect(t.minZ).toBeCloseTo(Math.min((1 - 2 * a) / (1 + a), 1 / (1 + a)), 14);
      expect(t.exists).toBe(eps >= Math.LN2);
      expect(regularity(star, eps, uniformPrior(4)).status === 'regular').toBe(t.exists);
    }
  });

  it('threshold on the 0.01 grid is 0.70 (ln 2 = 0.693...): not at 0.69, yes at 0.70', () => {
    const r = thresholdSearch(star);
    expect(r.epsilon).toBe(0.7);
    expect(r.atLowerEnd).toBe(false);
    expect(r.checked).toBe(70);
    expect(r.below!.epsilon).toBe(0.69);
    expect(directMinZ(star, 0.69)).toBeLessThan(0);
    expect(directMinZ(star, 0.7)).toBeGreaterThanOrEqual(0);
    // a coarser grid and a range
    expect(thresholdSearch(star, { from: 0.5, to: 2, step: 0.1 }).epsilon).toBe(0.7);
    expect(thresholdSearch(star, { from: 0.05, to: 0.6, step: 0.05 }).epsilon).toBeNull();
    expect(thresholdSearch(star, { from: 0.8, to: 2 }).atLowerEnd).toBe(true);
  });

  it('Euclidean 4x4 grid: the search result vs a direct dense check just below and at it', () => {
    const g = gridDomain(4, 4, 1, 'euclidean');
    const r = thresholdSearch(g, { step: 0.01, to: 5 });
    expect(r.epsilon).toBe(0.69);
    expect(r.atLowerEnd).toBe(false);
    expect(directMinZ(g, 0.69)).toBeGreaterThanOrEqual(0);
    expect(directMinZ(g, 0.68)).toBeLessThan(0);
    expect(r.below!.minZ).toBeCloseTo(directMinZ(g, 0.68), 14);
  });

  it('Manhattan grid = product of two lines: z = z_line ⊗ z_line > 0, so it exists at every eps', () => {
    const g = gridDomain(4, 4, 1, 'manhattan');
    for (const eps of [0.01, 0.3]) {
      const a = Math.exp(-eps);
      // relative check: Phi is ill-conditioned at eps = 0.01 (z ~ 2.5e-5 from entries ~ 1)
      expect(directMinZ(g, eps) / ((1 - a) / (1 + a)) ** 2).toBeCloseTo(1, 6);
    }
    expect(thresholdSearch(g).epsilon).toBe(0.01);
  });

  it('line, ring and clique always have it (line: z interior (1-a)/(1+a); ball-size closed form 1/sum_r n_r e^(-eps r))', () => {
    for (const eps of [0.01, 0.5, 3]) {
      const a = Math.exp(-eps);
      expect(tightExists(lineDomain(7), eps).minZ).toBeCloseTo((1 - a) / (1 + a), 12);
      const ring = tightExists(ringDomain(6), eps);
      expect(ring.method).toBe('ball-sizes');
      expect(ring.minZ).toBeCloseTo(directMinZ(ringDomain(6), eps), 12);
      expect(tightExists(cliqueDomain(5), eps).minZ).toBeCloseTo(1 / (1 + 4 * a), 14);
    }
    expect(thresholdSearch(lineDomain(5)).epsilon).toBe(0.01);
  });

  it('the existence test is pluggable (a structured solver can replace tightExists)', () => {
    const seen: number[] = [];
    const r = thresholdSearch(lineDomain(3), {
      from: 0.1,
      to: 1,
      step: 0.1,
      exists: (_d, eps) => {
        seen.push(eps);
        return { exists: eps >= 0.3, minZ: eps - 0.3, minZIndex: 0, z: null, method: 'dense-lu' };
      },
    });
    expect(r.epsilon).toBe(0.3);
    expect(seen).toEqual([0.1, 0.2, 0.3]);
  });

  it('bad ranges and eps are typed errors', () => {
    expect(() => thresholdSearch(star, { step: 0 })).toThrow(MechError);
    expect(() => thresholdSearch(star, { step: -0.1 })).toThrow(/step must be a finite number > 0/);
    expect(() => thresholdSearch(star, { from: 2, to: 1 })).toThrow(/range is empty/);
    expect(() => thresholdSearch(star, { step: 1e-9 })).toThrow(/grid has/);
    expect(() => tightExists(star, 0)).toThrow(/epsilon must be a finite number > 0/);
  });
});

describe('tightExists on translation-invariant grids uses the structured solver', () => {
  it('agrees with a dense LU solve of Phi z = 1 on a 25 x 25 Euclidean grid', () => {
    for (const eps of [0.3, 1.0]) {
      const g = gridDomain(25, 25, 1, 'euclidean');
      const r = tightExists(g, eps);
      expect(r.method).toBe('structured');
      const z = luSolve(luFactor(phiMatrix(g, eps)), new Float64Array(g.n).fill(1));
      let minZ = Infinity;
      for (const v of z) minZ = Math.min(minZ, v);
      expect(Math.abs(r.minZ - minZ)).toBeLessThan(1e-8 * Math.max(1, Math.abs(minZ)));
      expect(r.exists).toBe(minZ >= 0);
    }
  });
});
