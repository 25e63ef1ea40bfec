/** A jobs panel row follows the host's events about its job (lib/job-view.ts applyJobEvent). */
import { describe, expect, it } from 'vitest';
import { applyJobEvent, MAX_LIVE_LP_SAMPLES, type JobView } from '../../../../src-renderer/lib/job-view';
import type { LpSample } from '../../../../src-shared/protocol/index';

const row = (): JobView => ({
  jobId: 'j',
  label: 'x',
  type: 'mechanism',
  started: 0,
  elapsedMs: 0,
  fraction: null,
  message: 'queued',
  status: 'queued',
});
const sample = (round: number, fraction: number): LpSample => ({
  round,
  objective: 1,
  bound: null,
  gap: null,
  elapsedMs: round,
  fraction,
});

describe('a job row follows its events', () => {
  it('progress runs it with the fraction and message; the result finishes it at 1 with the elapsed time', () => {
    const j = row();
    applyJobEvent(j, { kind: 'progress', jobId: 'j', fraction: 0.25, message: 'building' });
    expect([j.status, j.fraction, j.message]).toEqual(['running', 0.25, 'building']);
    applyJobEvent(j, { kind: 'progress', jobId: 'j', fraction: null, message: 'phase 2' });
    expect(j.fraction).toBeNull();
    applyJobEvent(j, { kind: 'result', jobId: 'j', result: { type: 'rows' } as never, elapsedMs: 1234 });
    expect([j.status, j.fraction, j.message, j.elapsedMs]).toEqual(['done', 1, 'done', 1234]);
  });

  it("an LP's bar never moves back, and its samples are thinned past the cap keeping the first", () => {
    const j = row();
    applyJobEvent(j, { kind: 'progress', jobId: 'j', fraction: 0.5, message: 'round 1', lp: sample(1, 0.5) });
    applyJobEvent(j, { kind: 'progress', jobId: 'j', fraction: null, message: 'pricing' });
    expect(j.fraction).toBe(0.5);
    for (let r = 2; r <= MAX_LIVE_LP_SAMPLES; r++)
      applyJobEvent(j, { kind: 'progress', jobId: 'j', fraction: 0.6, message: '', lp: sample(r, 0.6) });
    expect(j.lp).toHaveLength(MAX_LIVE_LP_SAMPLES);
    applyJobEvent(j, {
      kind: 'progress',
      jobId: 'j',
      fraction: 0.7,
      message: '',
      lp: sample(MAX_LIVE_LP_SAMPLES + 1, 0.7),
    });
    // 1000 samples thinned to the first and every odd index (500 + 1), then the new one
    expect(j.lp).toHaveLength(502);
    expect(j.lp![0]!.round).toBe(1);
    expect(j.lp!.at(-1)!.round).toBe(MAX_LIVE_LP_SAMPLES + 1);
  });

  it('an error says its message; a cancel says cancelled', () => {
    const failed = (code: 'invalid-input' | 'cancelled', message: string, elapsedMs: number) => {
      const r = row();
      applyJobEvent(r, { kind: 'error', jobId: 'j', error: { code, message }, elapsedMs });
      return r;
    };
    const j = failed('invalid-input', 'eps must be > 0', 7);
    expect([j.status, j.message, j.error, j.elapsedMs]).toEqual(['error', 'eps must be > 0', 'eps must be > 0', 7]);
    const c = failed('cancelled', 'cancelled by the user', 3);
    expect([c.status, c.message, c.error]).toEqual(['cancelled', 'cancelled', 'cancelled by the user']);
  });
});
