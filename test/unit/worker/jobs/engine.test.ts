import { regularityNoteWords } from '../../../../src-shared/charts/note-words';
import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { measureChannel, regularity } from '../../../../src-worker/jobs/engine';
import { additiveCapacity } from '../../../../src-worker/measure/additive-capacity';
import { minEntropyLeakage } from '../../../../src-worker/measure/min-entropy-leakage';
import { minCapacity, multiplicativeCapacity } from '../../../../src-worker/measure/multiplicative-capacity';
import { posteriorVulnerability } from '../../../../src-worker/measure/posterior-vulnerability';
import { priorVulnerability } from '../../../../src-worker/measure/prior-vulnerability';
import { uniformPrior } from '../../../../src-worker/measure/prior';
import { exponentialMechanism } from '../../../../src-worker/mechanism/exponential';
import { lineDomain } from '../../../../src-worker/metric/line';
import { twinDomain } from '../../support/channel-fixtures';

describe('jobs/engine', () => {
  it('measureChannel (one pass) equals the single-purpose measures of SPEC §3', () => {
    const d = lineDomain(7);
    const ch = exponentialMechanism(d, 0.8).channel;
    const pi = Float64Array.from([0.3, 0.05, 0.1, 0.2, 0.05, 0.2, 0.1]);
    const m = measureChannel(pi, ch);
    const pv = posteriorVulnerability(pi, ch);
    expect(m.vulnerability).toBe(priorVulnerability(pi));
    expect(m.posteriorVulnerability).toBeCloseTo(pv.value, 15);
    expect(m.utility).toBe(m.posteriorVulnerability);
    expect(Array.from(m.remap)).toEqual(Array.from(pv.remap));
    expect(m.leakage).toBeCloseTo(minEntropyLeakage(pi, ch), 14);
    expect(m.multiplicativeCapacity).toBeCloseTo(multiplicativeCapacity(ch), 15);
    expect(m.minCapacity).toBeCloseTo(minCapacity(ch), 14);
    expect(m.additiveCapacity).toBeCloseTo(additiveCapacity(ch), 15);
  });

  it('regularity passes the job signal to the LP decider (singular Phi): an aborted job is cancelled', async () => {
    const d = twinDomain();
    const live = await regularity(d, 1, uniformPrior(4), new AbortController().signal);
    expect(typeof live.regular).toBe('boolean');
    expect(live.regularity).toEqual({ kind: 'singular', regular: live.regular });
    expect(regularityNoteWords(live.regularity)).toMatch(/^Phi is singular; /);
    const ac = new AbortController();
    ac.abort();
    const err = await regularity(d, 1, uniformPrior(4), ac.signal).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MechError);
    expect((err as MechError).code).toBe('cancelled');
  });
});
