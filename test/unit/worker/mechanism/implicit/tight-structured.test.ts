import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../../src-worker/mechanism/facts';
import { tightConstraintsStructured } from '../../../../../src-worker/mechanism/implicit/tight-structured';
import { solvePhi } from '../../../../../src-worker/phi/phi-solve';
import { phiMatrix, type Domain } from '../../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../../src-worker/metric/line';
import { hammingCubeDomain } from '../../../../../src-worker/metric/hamming-cube';
import { validateChannel } from '../../../../../src-worker/mechanism/channel';
import { bareClique, maxRelDiff, structuredCases } from '../../../support/structured-helpers';

/** The dense tight mechanism C = Phi diag(z), z from the dense solve. */
function denseTight(d: Domain, eps: number): { rows: Float64Array[]; z: Float64Array } {
  const z = solvePhi(d, eps, new Float64Array(d.n).fill(1), { method: 'dense' }).x;
  const phi = phiMatrix(d, eps);
  const rows: Float64Array[] = [];
  for (let i = 0; i < d.n; i++) rows.push(Float64Array.from(phi.row(i), (v, j) => v * z[j]!));
  return { rows, z };
}

describe('implicit tight-constraints mechanism', () => {
  const cases: [Domain, number][] = [...structuredCases(15, [15, 12], 40, 41), [hammingCubeDomain(6), 0.5]];
  for (const [d, eps] of cases) {
    it(`${d.spec} at eps ${eps}: rows on demand equal the dense mechanism's rows`, () => {
      const res = tightConstraintsStructured(d, eps, { denseBelow: 0 });
      expect(res.exists).toBe(true);
      if (!res.exists) return;
      const ch = res.mechanism.channel;
      expect(res.mechanism.kind).toBe('tight');
      expect(res.mechanism.guaranteedEpsilon).toBe(eps);
      expect(factsOf(res.mechanism, 'tight-implicit').solver).not.toMatch(/^dense/);
      const ref = denseTight(d, eps);
      const row = new Float64Array(d.n);
      for (let i = 0; i < d.n; i++) {
        ch.row(i, row);
        expect(maxRelDiff(row, ref.rows[i]!)).toBeLessThan(1e-8);
      }
      expect(factsOf(res.mechanism, 'tight-implicit').maxRowSumError).toBeLessThan(1e-10);
      expect(() => validateChannel(ch)).not.toThrow();
      expect(ch.entry(0, d.n - 1)).toBeCloseTo(ref.rows[0]![d.n - 1]!, 12);
      expect(ch.rowLabel(1)).toBe(d.label(1));
    });
  }

  it('reports non-existence with min z and where, matching the dense solve', () => {
    // Euclidean 30 x 30 at eps 0.5: some z < 0 (the mechanism needs a larger eps)
    const d = gridDomain(30, 30, 1, 'euclidean');
    const res = tightConstraintsStructured(d, 0.5);
    expect(res.exists).toBe(false);
    if (res.exists) return;
    const zd = solvePhi(d, 0.5, new Float64Array(d.n).fill(1), { method: 'dense' }).x;
    let mn = Infinity;
    let arg = -1;
    for (let i = 0; i < d.n; i++) if (zd[i]! < mn) ((mn = zd[i]!), (arg = i));
    expect(res.minZ).toBeLessThan(0);
    expect(res.minZ).toBeCloseTo(mn, 10);
    // the grid's symmetries make several points share the minimum: it must be one of them
    expect(zd[res.argMinZ]).toBeCloseTo(mn, 10);
    expect(arg).toBeGreaterThanOrEqual(0);
    expect(res.argMinLabel).toBe(d.label(res.argMinZ));
  });

  it('line: the tight mechanism is the truncated geometric (SPEC §2, §7: TG rows 32,8,4,2,1,1 / 48 at alpha = 1/2)', () => {
    const res = tightConstraintsStructured(lineDomain(6), Math.LN2, { method: 'lattice' });
    expect(res.exists).toBe(true);
    if (!res.exists) return;
    const row = res.mechanism.channel.row(0, new Float64Array(6));
    const tg = [32, 8, 4, 2, 1, 1].map((v) => v / 48);
    for (let j = 0; j < 6; j++) expect(row[j]).toBeCloseTo(tg[j]!, 12);
  });

  it('clique:20000 (randomised response, SPEC §2): exists, rows on demand, no n x n storage', () => {
    const N = 20000;
    const eps = Math.LN2;
    const res = tightConstraintsStructured(bareClique(N), eps);
    expect(res.exists).toBe(true);
    if (!res.exists) return;
    const ch = res.mechanism.channel;
    expect(factsOf(res.mechanism, 'tight-implicit').solver).toBe('ball-sizes');
    expect(ch.op.method).toBe('metric');
    expect(ch.op.heldEntries).toBe(0);
    const row = ch.row(5, new Float64Array(N));
    // randomised response: e^eps / (e^eps + N - 1) on the diagonal, 1 / (e^eps + N - 1) elsewhere
    expect(row[5]).toBeCloseTo(2 / (2 + N - 1), 15);
    expect(row[6]).toBeCloseTo(1 / (2 + N - 1), 15);
    expect(factsOf(res.mechanism, 'tight-implicit').maxRowSumError).toBeLessThan(1e-12);
  });

  it('rejects a bad eps', () => {
    expect(() => tightConstraintsStructured(gridDomain(3, 3), -1)).toThrow(/epsilon must be a finite number > 0/);
  });
});
