import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../../src-worker/mechanism/facts';
import { tightConstraintsStructured } from '../../../../../src-worker/mechanism/implicit/tight-structured';
import { createPhiOperator } from '../../../../../src-worker/phi/phi-operator';
import { tightUtility } from '../../../../../src-worker/measure/structured/tight-utility';
import { uniformPrior } from '../../../../../src-worker/measure/prior';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { MechError } from '../../../../../src-shared/errors';

// The 1000 x 1000 grid (n = 10^6): Phi would be 10^12 entries (8 TB). The
// structured path must hold O(n) numbers. eps = 3 keeps PCG to a few
// iterations so the test stays a few seconds; speed is in the bench.
describe('1000 x 1000 grid never allocates n x n', () => {
  it('solves, builds the implicit tight mechanism and measures it within O(n) memory', () => {
    const d = gridDomain(1000, 1000, 1, 'euclidean');
    const n = d.n;
    // a dense Phi is refused outright
    try {
      createPhiOperator(d, 3, { method: 'dense' });
      expect.unreachable();
    } catch (e) {
      expect((e as MechError).code).toBe('too-large');
    }
    const base = process.memoryUsage().arrayBuffers;
    let peak = base;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    };
    // dense fallback limit 20 n entries: any n x n attempt on the way would throw 'too-large'
    const res = tightConstraintsStructured(d, 3, { maxDenseEntries: 20 * n, onIteration: sample });
    sample();
    expect(res.exists).toBe(true);
    if (!res.exists) return;
    const ch = res.mechanism.channel;
    expect(factsOf(res.mechanism, 'tight-implicit').solver).toBe('fft-pcg');
    expect(factsOf(res.mechanism, 'tight-implicit').relResidual).toBeLessThan(1e-11);
    // numbers held by the generator: torus kernel, spectra, work buffer (about 13 n)
    expect(ch.op.heldEntries).toBeLessThan(16 * n);
    // everything allocated on the way, sampled at every CG iteration: under 40 n doubles (n x n would be 10^6 times
    // more)
    expect(peak - base).toBeLessThan(40 * n * 8);
    const row = ch.row(500_500, new Float64Array(n));
    let s = 0;
    for (let j = 0; j < n; j++) s += row[j]!;
    expect(s).toBeCloseTo(1, 10);
    let sz = 0;
    for (let j = 0; j < n; j++) sz += ch.z[j]!;
    expect(tightUtility(uniformPrior(n), ch).value).toBeCloseTo(sz / n, 12);
  });
});
