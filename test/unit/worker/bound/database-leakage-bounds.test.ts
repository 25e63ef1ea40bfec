import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import {
  databaseLeakageBound,
  databaseLeakageBoundWithOutputs,
  individualLeakageBound,
} from '../../../../src-worker/bound/database-leakage-bounds';
import {
  singleOrbitUtilityBound,
  singleOrbitUtilityBoundFor,
} from '../../../../src-worker/bound/single-orbit-utility-bound';
import { utilityBound } from '../../../../src-worker/bound/optimality-bounds';
import { ringDomain } from '../../../../src-worker/metric/ring';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { lineDomain } from '../../../../src-worker/metric/line';
import { uniformPrior } from '../../../../src-worker/measure/prior';

describe('database leakage bounds (SPEC §5, §7)', () => {
  it('u=5, v=4, eps=0.5 gives 2.5226', () => {
    expect(databaseLeakageBound(5, 4, 0.5)).toBeCloseTo(2.5226, 4);
    expect(databaseLeakageBound(5, 4, 0.5)).toBeCloseTo(5 * Math.log2((4 * Math.exp(0.5)) / (3 + Math.exp(0.5))), 13);
  });

  it('with r outputs: the literal formula, log2 r below v outputs, and the full bound at r = v^u', () => {
    const literal = (u: number, v: number, eps: number, r: number) => {
      const l = Math.floor(Math.log(r) / Math.log(v) + 1e-12);
      return Math.log2(
        (r * Math.exp(eps * u)) / ((v - 1 + Math.exp(eps)) ** l - Math.exp(eps * l) + Math.exp(eps * u)),
      );
    };
    for (const [u, v, eps, r] of [
      [5, 4, 0.5, 10],
      [5, 4, 0.5, 64],
      [6, 2, 1.3, 7],
      [3, 10, 0.2, 999],
      [4, 3, 2, 80],
    ] as const) {
      expect(databaseLeakageBoundWithOutputs(u, v, eps, r)).toBeCloseTo(literal(u, v, eps, r), 12);
    }
    expect(databaseLeakageBoundWithOutputs(5, 4, 0.5, 3)).toBeCloseTo(Math.log2(3), 14);
    expect(databaseLeakageBoundWithOutputs(5, 4, 0.5, 1024)).toBeCloseTo(databaseLeakageBound(5, 4, 0.5), 12);
    expect(databaseLeakageBoundWithOutputs(5, 4, 0.5, 5000)).toBeCloseTo(databaseLeakageBound(5, 4, 0.5), 12);
    // The r-output bound is a different (not uniformly sharper) bound: it wins for large eps (64 outputs, eps = 10:
    // about 6 bits vs about 10), loses for small eps (r = 100, eps = 0.5: 3.49 vs 2.52 bits)
    expect(databaseLeakageBoundWithOutputs(5, 4, 10, 64)).toBeCloseTo(6, 6);
    expect(databaseLeakageBound(5, 4, 10)).toBeCloseTo(9.9995, 3);
    expect(databaseLeakageBoundWithOutputs(5, 4, 0.5, 100)).toBeCloseTo(3.4935, 4);
    // a mechanism with 2 outputs on db 2,2 (report individual 1's value by RR) stays below its r = 2 bound
    for (const eps of [0.2, 1, 3]) {
      const e = Math.exp(eps);
      const leak = Math.log2((2 * e) / (1 + e)); // uniform prior: log2 sum_y max_x C
      expect(leak).toBeLessThanOrEqual(databaseLeakageBoundWithOutputs(2, 2, eps, 2));
      expect(databaseLeakageBoundWithOutputs(2, 2, eps, 2)).toBeCloseTo(Math.log2((2 * e * e) / (1 + e * e)), 13);
    }
    // large u: finite, no overflow (e^(eps u) = e^2000)
    const big = databaseLeakageBoundWithOutputs(1000, 4, 2, 1e6);
    expect(Number.isFinite(big)).toBe(true);
    expect(big).toBeLessThanOrEqual(Math.log2(1e6) + 1e-9);
  });

  it('one individual, the others known: log2(e^eps) bits', () => {
    expect(individualLeakageBound(Math.LN2)).toBeCloseTo(1, 15);
    expect(individualLeakageBound(0.5)).toBeCloseTo(Math.log2(Math.exp(0.5)), 15);
  });

  it('bad input: v < 2, eps <= 0, u < 1, r < 1', () => {
    const cases: [() => unknown, RegExp][] = [
      [() => databaseLeakageBound(5, 1, 0.5), /universe size v must be an integer >= 2, got 1/],
      [() => databaseLeakageBound(5, 2.5, 0.5), /universe size v/],
      [() => databaseLeakageBound(5, 4, 0), /epsilon must be a finite number > 0/],
      [() => databaseLeakageBound(5, 4, -1), /epsilon/],
      [() => databaseLeakageBound(0, 4, 1), /number of individuals u must be an integer >= 1/],
      [() => databaseLeakageBoundWithOutputs(5, 1, 1, 3), /universe size v/],
      [() => databaseLeakageBoundWithOutputs(5, 4, 1, 0), /number of outputs r/],
      [() => individualLeakageBound(NaN), /epsilon/],
    ];
    for (const [f, msg] of cases) {
      expect(f).toThrow(MechError);
      expect(f).toThrow(msg);
    }
  });
});

describe('single-orbit utility bound (SPEC §5, §7)', () => {
  it('clique of 6 at eps = ln 2: 2/7 (= RR); the formula at c = 2, m = 3 is 4/11 (the ring-6 construction)', () => {
    expect(singleOrbitUtilityBoundFor(cliqueDomain(6), Math.LN2)).toBeCloseTo(2 / 7, 15);
    expect(singleOrbitUtilityBound(Math.LN2, 2, 3)).toBeCloseTo(4 / 11, 15);
  });
  it('is refused on even rings, where it is not a bound: a ln 2-private mechanism on ring 6 reaches 8/21 > 4/11', () => {
    const d = ringDomain(6);
    expect(() => singleOrbitUtilityBoundFor(d, Math.LN2)).toThrow(
      /does not apply to the even ring ring:6: its antipodal border has 1 point/,
    );
    // the regular-prior bound is 1 / sum_r n_r 2^-r = 1 / (1 + 2/2 + 2/4 + 1/8) = 8/21
    expect(utilityBound(d, Math.LN2, uniformPrior(6))).toBeCloseTo(8 / 21, 14);
  });
  it('agrees with the literal formula and, for odd rings and cliques, with the uniform-prior bound sum(mu)', () => {
    const literal = (eps: number, c: number, m: number) => {
      const E = Math.exp(eps * m);
      return (E * (1 - Math.exp(eps))) / (E * (1 - Math.exp(eps)) + c * (1 - E));
    };
    for (const eps of [0.1, 0.7, 2.5])
      for (const [c, m] of [
        [2, 3],
        [5, 1],
        [3, 4],
      ] as const)
        expect(singleOrbitUtilityBound(eps, c, m)).toBeCloseTo(literal(eps, c, m), 13);
    for (const eps of [0.3, 1.1]) {
      for (const d of [ringDomain(5), ringDomain(9), cliqueDomain(7)]) {
        expect(singleOrbitUtilityBoundFor(d, eps)).toBeCloseTo(utilityBound(d, eps, uniformPrior(d.n)), 13);
      }
    }
  });
  it('refuses domains without a single orbit and bad parameters', () => {
    expect(() => singleOrbitUtilityBoundFor(lineDomain(4), 1)).toThrow(/no single-orbit/);
    expect(() => singleOrbitUtilityBound(0, 2, 3)).toThrow(/epsilon/);
    expect(() => singleOrbitUtilityBound(1, 2, 1.5)).toThrow(/diameter m must be an integer/);
  });
});
