/**
 * The CLI's readable output of an optimal LP stopped before its pricing gave a bound above 0 (lowerBound 0): no
 * certificate words anywhere, the plain "no bound" line of lp-words.ts instead (the app's words), in the result's
 * lines, the remap's LP bound, the Ctrl-C stop line and a comparison's note. The stop flag is set before the start,
 * so the run stops before its first round: nothing here depends on timing.
 */
import { describe, expect, it } from 'vitest';
import { readable } from '../../../../src-main/cli/output';
import { stoppedNote } from '../../../../src-main/cli/run-output';
import { NO_BOUND_YET } from '../../../../src-shared/charts/lp-words';
import { lpRecordWords } from '../../../../src-shared/charts/compare-words';
import type { JobRequest } from '../../../../src-shared/protocol/index';
import { silentContext } from '../../../../src-worker/jobs/context';
import { runJob } from '../../support/run-job';

const REQ: JobRequest = {
  type: 'mechanism',
  kind: 'optimal',
  domain: 'grid:4x4',
  epsilon: 1,
  loss: 'dist',
  lpModel: 'exact',
  lpThreads: 1,
  remap: true,
};

async function stoppedAtOnce(): Promise<Awaited<ReturnType<typeof runJob<'mechanism'>>>> {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  stop[0] = 1;
  return runJob<'mechanism'>(REQ, { ...silentContext(), stopFlag: stop });
}

/** The value of one `key  value` line of the readable output. */
function line(text: string, key: string): string | undefined {
  const l = text.split('\n').find((x) => x.startsWith(`${key} `));
  return l?.slice(key.length).trim();
}

describe('CLI words of an LP with no bound above 0', () => {
  it('the result, the bounds, the gap and the remap say there is no bound, with no certificate words', async () => {
    const r = await stoppedAtOnce();
    expect(r.lp!.lowerBound).toBe(0);
    expect(r.lp!.exactLowerBound).toBe(0);
    const text = readable(REQ, r);
    expect(NO_BOUND_YET).toBe('none yet: no bound above 0 was proved before the LP stopped (give it more time)');
    expect(line(text, 'lower bound')).toBe(NO_BOUND_YET);
    expect(line(text, 'exact lower bound')).toBe(NO_BOUND_YET);
    expect(line(text, 'gap')).toBe('100%: with no bound above 0 it says nothing');
    expect(line(text, 'LP bound')).toBe(NO_BOUND_YET);
    expect(line(text, 'result')).toBe(
      "best found, not certified: it stopped (stopped) before the LP's pricing gave a bound above 0, so there is no bound on the best possible (give it more time)",
    );
    // the methods' own names say what they certify when they run; no figure is called certified
    const named = ['LP method', 'result', 'remap '];
    expect(text.split('\n').filter((l) => /certified/.test(l) && !named.some((k) => l.startsWith(k)))).toEqual([]);
  }, 60_000);

  it('stopped by the time limit with no bound: the time-limit line says so', async () => {
    const r = await stoppedAtOnce();
    const text = readable(REQ, { ...r, lp: { ...r.lp!, stoppedBy: 'time-limit', timeLimitReached: true } });
    expect(line(text, 'time limit')).toBe(
      'stopped by the time limit: the best private mechanism found, with no bound on the best possible',
    );
  }, 60_000);

  it('the Ctrl-C stop line: private, its loss, and no bound (never "certified lower bound 0")', async () => {
    const r = await stoppedAtOnce();
    expect(stoppedNote(r)).toBe(
      `stopped by Ctrl-C after 0 rounds: the mechanism written is private, its expected loss ${r.lp!.objective.toPrecision(6)}; bound on the best possible: ${NO_BOUND_YET}`,
    );
    const bounded = { ...r, lp: { ...r.lp!, lowerBound: 1, gap: 0.25, rounds: 1 } };
    expect(stoppedNote(bounded)).toBe(
      `stopped by Ctrl-C after 1 round: the mechanism written is private, its expected loss ${r.lp!.objective.toPrecision(6)} is within 25.0% of the exact model's optimum (certified lower bound 1.00000)`,
    );
  }, 60_000);

  it("a comparison's LP note with a bound of 0: no bound was certified, never 'at most 100% above the best possible'", () => {
    const w = lpRecordWords({
      model: 'exact',
      objective: 1.1,
      lowerBound: 0,
      gap: 1,
      stoppedBy: 'time-limit',
      loss: 'dist',
      gapBasis: 'exact',
    });
    expect(w.text).toBe(
      'optimised for distance between guess and truth: expected loss 1.1, no bound on the best possible was certified',
    );
    expect(w.details).toBe(`LP (exact model): objective 1.10000, lower bound ${NO_BOUND_YET}, stopped by time-limit`);
  });
});
