/**
 * A mechanism job reports the effective eps of every construction up to
 * 50 x 50 locations: all pairs take the threaded ln scan, whose budget is a
 * few seconds. grid:40x40 is the smallest grid above the walk-sized budget
 * the job used to apply to all pairs (1600 x 1599 / 2 pairs x 1600 outputs =
 * 2.05e9 comparisons): there it said "not computed". Checked against a brute
 * force written here (ln of each entry, then every ordered pair and output).
 */
import { describe, expect, it } from 'vitest';
import { type MechanismResult } from '../../../../src-shared/protocol/results';
import { parseDomainSpec } from '../../../../src-worker/metric/parse-domain-spec';
import { runJob } from '../../support/run-job';

describe('effective eps attached to a mechanism on all pairs of a large grid', () => {
  it('exponential on grid:40x40 at eps 0.5: computed, equal to the brute force', async () => {
    const r = (await runJob({
      type: 'mechanism',
      kind: 'exponential',
      domain: 'grid:40x40',
      epsilon: 0.5,
      inlineLimit: 4_000_000,
    })) as MechanismResult;
    expect(r.effectiveEpsilon).not.toBeNull();
    expect(r.matrix).toBeDefined();
    const g = parseDomainSpec('grid:40x40');
    const n = g.n;
    const lnC = new Float64Array(n * n);
    expect(r.matrix!.rows).toBe(n);
    expect(r.matrix!.cols).toBe(n);
    r.matrix!.data.forEach((v, i) => (lnC[i] = Math.log(v)));
    let worst = 0;
    for (let x = 0; x < n; x++) {
      for (let xp = 0; xp < n; xp++) {
        if (xp === x) continue;
        let most = -Infinity;
        const a = x * n;
        const b = xp * n;
        for (let y = 0; y < n; y++) {
          const d = lnC[a + y]! - lnC[b + y]!;
          if (d > most) most = d;
        }
        const ratio = most / g.distance(x, xp);
        if (ratio > worst) worst = ratio;
      }
    }
    expect(Math.abs(r.effectiveEpsilon! - worst)).toBeLessThan(1e-9);
    // the exponential mechanism is private at eps, and uses more than half of it through its normalisation
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-12);
    expect(worst).toBeGreaterThan(0.25);
  }, 120_000);
});
