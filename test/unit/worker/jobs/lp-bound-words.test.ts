/**
 * What an optimal job returns when its LP is cut short (docs/lp.md, "Never worse than a cheap construction"): a run
 * that completed at least one pricing round carries that round's certified Lagrangian bound (exactLowerBound
 * between 0 and the objective, below the true optimum found by solving on); a run stopped before its first round
 * says so in one plain line (the result's words and its guarantee) instead of a 100% gap. Every returned channel
 * carries a checked effectiveEpsilon. Stops come from the stop flag (set before the start, or by the target gap):
 * nothing here depends on timing.
 */
import { describe, expect, it } from 'vitest';
import { silentContext } from '../../../../src-worker/jobs/context';
import { runJobRequest } from '../../../../src-worker/jobs/run';
import { parseJobRequest } from '../../../../src-shared/protocol/validate';
import type { MechanismResult } from '../../../../src-shared/protocol/results';
import { lpResultWords } from '../../../../src-shared/charts/lp-words';

const N = 6;
function lumpyPrior(n: number): number[] {
  const w = Array.from({ length: n }, (_, i) => 1 + ((i * 5) % 7));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}

async function optimal(extra: Record<string, unknown>, stopFlag?: Int32Array): Promise<MechanismResult> {
  const p = parseJobRequest({
    type: 'mechanism',
    domain: `grid:${N}x${N}`,
    epsilon: 1,
    kind: 'optimal',
    prior: { kind: 'vector', values: lumpyPrior(N * N) },
    loss: 'dist',
    lpModel: 'exact',
    lpThreads: 1,
    ...extra,
  });
  if (!p.ok) throw new Error(p.error.message);
  return (await runJobRequest(p.value, { ...silentContext(), ...(stopFlag ? { stopFlag } : {}) })) as MechanismResult;
}

describe('an optimal job cut short', () => {
  it('stopped before its first pricing round: no bound, said in one line; the channel returned is checked', async () => {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    stop[0] = 1;
    const r = await optimal({}, stop);
    const lp = r.lp!;
    expect(lp.method).toBe('decomposition');
    expect(lp.rounds).toBe(0);
    expect(lpResultWords(lp)).toMatch(
      /^best found, not certified: it stopped \(stopped\) before the LP's pricing gave a bound above 0/,
    );
    expect(r.guarantee).toMatch(/no bound on the best possible \(the pricing gave none above 0\)/);
    // the returned channel is eps*d-private as stored, checked over all pairs
    expect(r.effectiveEpsilon).not.toBeNull();
    expect(r.effectiveEpsilon!).toBeLessThanOrEqual(1 + 1e-9);
  }, 60_000);

  it('after at least one round: a certified bound below the true optimum, the gap against it', async () => {
    const early = await optimal({ targetGap: 0.5 });
    const full = await optimal({});
    const lp = early.lp!;
    expect(lp.rounds).toBeGreaterThanOrEqual(1);
    expect(lp.stoppedBy).toBe('target-gap');
    expect(lp.exactLowerBound!).toBeGreaterThan(0);
    expect(lp.exactLowerBound!).toBeLessThanOrEqual(full.lp!.objective * (1 + 1e-9));
    expect(lp.gap).toBeLessThanOrEqual(0.5);
    expect(lpResultWords(lp)).toMatch(/\(certified\)$/);
    expect(early.effectiveEpsilon!).toBeLessThanOrEqual(1 + 1e-9);
  }, 60_000);
});
