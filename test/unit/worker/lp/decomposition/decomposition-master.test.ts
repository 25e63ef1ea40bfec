import { describe, expect, it } from 'vitest';
import { DecompositionMaster } from '../../../../../src-worker/lp/decomposition/decomposition-master';

describe('decomposition master: columns, box, restart and channel', () => {
  it('solves over its columns, assembles a row-stochastic channel, and drops exactly the constant columns', async () => {
    // 3 secrets, 3 outputs; costs c[w*n + x] = |w - x| (column-major).
    const n = 3;
    const m = 3;
    const c = new Float64Array(n * m);
    for (let w = 0; w < m; w++) for (let x = 0; x < n; x++) c[w * n + x] = Math.abs(w - x);
    const ones = new Float64Array(n).fill(1);
    const master = DecompositionMaster.open(n, m, c, ones, 'a test master', {
      solver: 'simplex',
      formulation: 'primal',
    });
    // The constant column of output 1 (cost 2) and two plateau-like columns of outputs 0 and 2.
    master.append([
      { w: 1, r: ones },
      { w: 0, r: Float64Array.from([1, 0.5, 0.25]) },
      { w: 2, r: Float64Array.from([0.25, 0.5, 1]) },
    ]);
    master.addBox(10);
    expect(master.columns).toBe(3 + 2 * n);
    const s = master.run();
    // Brute force over theta: rows x: t1 + t0 r0[x] + t2 r2[x] = 1; the cheapest mix costs what the solver says.
    const C = master.assemble(s.colValue);
    for (let x = 0; x < n; x++) expect(C[x * m]! + C[x * m + 1]! + C[x * m + 2]!).toBeCloseTo(1, 12);
    let cost = 0;
    for (let x = 0; x < n; x++) for (let w = 0; w < m; w++) cost += c[w * n + x]! * C[x * m + w]!;
    expect(cost).toBeCloseTo(s.objective, 10);
    expect(master.boxMass(s.colValue)).toBe(0);
    // The restart drops the constant column (found by identity with `ones`) and nothing else; the box stays.
    expect(master.dropConstantColumns()).toBe(1);
    expect(master.columns).toBe(2 + 2 * n);
    expect(master.colOutput.filter((w) => w === -1)).toHaveLength(2 * n);
    expect(master.dropConstantColumns()).toBe(0);
  });
});
