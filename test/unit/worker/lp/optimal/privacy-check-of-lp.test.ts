import { describe, expect, it } from 'vitest';
import { privacyTypeCapacities } from '../../../../../src-worker/capacity/privacy-type-capacity';
import { checkPrivacy } from '../../../../../src-worker/check/privacy-check';
import { optimalMechanism } from '../../../../../src-worker/lp/optimal/optimal-mechanism';
import { uniformPrior } from '../../../../../src-worker/measure/prior';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { ringDomain } from '../../../../../src-worker/metric/ring';

/** LP mechanisms must pass the product's own SPEC §4 check (relative tolerance 1e-9), not just the LP's. */
describe('LP mechanisms pass the SPEC §4 privacy check', () => {
  it('spanner mechanism on a 6x6 Euclidean grid with a skewed prior (no symmetry reduction)', async () => {
    const g = gridDomain(6, 6);
    const pi = Array.from({ length: 36 }, (_, i) => (1 + ((i * 7) % 5)) / 106);
    const m = await optimalMechanism(g, 0.9, pi, 'dist');
    expect(m.facts.solve.symmetries).toBe(0);
    const r = checkPrivacy(m.channel, g, 0.9);
    expect(r.mode).toBe('all-pairs');
    expect(r.passes).toBe(true);
    expect(r.effectiveEpsilon).toBeLessThanOrEqual(0.9 * (1 + 1e-9));
  });

  it('capacity mechanisms on a ring, and a symmetry-reduced grid mechanism', async () => {
    const ring = ringDomain(7);
    const c = await privacyTypeCapacities(ring, 0.6);
    expect(checkPrivacy(c.multiplicativeMechanism.channel, ring, 0.6).passes).toBe(true);
    expect(checkPrivacy(c.additiveMechanism.channel, ring, 0.6).passes).toBe(true);
    const g = gridDomain(5, 5);
    const m = await optimalMechanism(g, 1.3, uniformPrior(25), 'dist2');
    expect(m.facts.solve.symmetries).toBe(7);
    expect(checkPrivacy(m.channel, g, 1.3).passes).toBe(true);
  });
});
