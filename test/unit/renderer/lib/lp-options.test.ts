/**
 * The optimal LP's editor fields (validated in plain words), the request
 * options they give (with the app's pool size as the default lpThreads, in
 * the renderer and in the host), the typed progress sample schema, and the
 * chart points and y range built from samples.
 */
import { describe, expect, it } from 'vitest';
import {
  convergencePoints,
  convergenceRange,
  gapText,
  lossUnit,
  lpRequestOptions,
  lpText,
  parseLpText,
} from '../../../../src-renderer/lib/lp-options';
import { mechanismRequest } from '../../../../src-shared/project/item-requests';
import { jobEventSchema, lpSampleSchema, progressSchema } from '../../../../src-shared/protocol/messages';
import { parseJobRequest } from '../../../../src-shared/protocol/validate';
import { projectSchema } from '../../../../src-shared/protocol/project';
import { lpSample } from '../../../../src-worker/jobs/engine';

const blank = { lpModel: 'auto' as const, delta: '', timeLimit: '', gapPercent: '', threads: '' };

describe('LP editor fields', () => {
  it('empty fields are the defaults: nothing stored', () => {
    expect(parseLpText(blank)).toEqual({ ok: true, fields: {} });
  });

  it('valid text gives the protocol fields (gap from % to a fraction; δ only for the spanner)', () => {
    const r = parseLpText({ lpModel: 'spanner', delta: '1.2', timeLimit: '45', gapPercent: '1', threads: '3' });
    expect(r).toEqual({
      ok: true,
      fields: { lpModel: 'spanner', delta: 1.2, timeLimitSeconds: 45, targetGap: 0.01, lpThreads: 3 },
    });
    expect(parseLpText({ ...blank, lpModel: 'exact', delta: '1.2' })).toEqual({
      ok: true,
      fields: { lpModel: 'exact' },
    });
    // round trip through the editor text
    if (r.ok) expect(parseLpText(lpText(r.fields))).toEqual(r);
  });

  it('every bad field gets its own plain-words message', () => {
    const r = parseLpText({ lpModel: 'spanner', delta: '0.5', timeLimit: '-3', gapPercent: '100', threads: '2.5' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.delta).toMatch(/δ .* from 1 to 10/);
    expect(r.errors.timeLimit).toMatch(/seconds above 0/);
    expect(r.errors.gapPercent).toMatch(/percentage above 0 and below 100/);
    expect(r.errors.threads).toMatch(/whole number from 1 to 64/);
    expect(parseLpText({ ...blank, timeLimit: 'abc' }).ok).toBe(false);
    expect(parseLpText({ ...blank, timeLimit: String(8 * 24 * 3600) }).ok).toBe(false);
    expect(parseLpText({ ...blank, gapPercent: '0' }).ok).toBe(false);
    expect(parseLpText({ ...blank, threads: '65' }).ok).toBe(false);
  });

  it('every field takes an expression; text that is none says why, naming the field', () => {
    const r = parseLpText({
      lpModel: 'spanner',
      delta: '1 + 1/10',
      timeLimit: '2*60',
      gapPercent: '2e-3',
      threads: 'sqrt(4)',
    });
    expect(r).toEqual({
      ok: true,
      fields: { lpModel: 'spanner', delta: 1.1, timeLimitSeconds: 120, targetGap: 0.00002, lpThreads: 2 },
    });
    expect(parseLpText({ ...blank, timeLimit: 'ln 4' })).toEqual({
      ok: true,
      fields: { timeLimitSeconds: Math.log(4) },
    });
    const bad = parseLpText({ ...blank, timeLimit: '3 s', gapPercent: '1/0' });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.timeLimit).toMatch(
      /^the time limit: “3 s” is not a number or an expression such as 1\/3 or ln 4 \(.+\)$/,
    );
    expect(bad.errors.gapPercent).toMatch(/^the target gap: “1\/0” is not a number .*\(divides by 0\)$/);
  });

  it('whatever the editor accepts, the request and project schemas accept', () => {
    const r = parseLpText({ lpModel: 'spanner', delta: '10', timeLimit: '604800', gapPercent: '99.9', threads: '64' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const m = { id: 'opt', domain: 'g', kind: 'optimal' as const, epsilon: 1, loss: 'dist', ...r.fields };
    const project = { version: 1, name: 'p', domains: [{ id: 'g', domain: 'grid:3x3' }], mechanisms: [m] };
    expect(projectSchema.safeParse(project).success).toBe(true);
    const req = mechanismRequest(project as never, m as never);
    expect(req).toMatchObject({
      lpModel: 'spanner',
      delta: 10,
      timeLimitSeconds: 604800,
      targetGap: 0.999,
      lpThreads: 64,
    });
    expect(parseJobRequest(req).ok).toBe(true);
  });

  it('request options: only for kind optimal; the page leaves lpThreads to the host (its pool size)', () => {
    expect(lpRequestOptions({ kind: 'tight', lpThreads: 2 })).toEqual({});
    expect(lpRequestOptions({ kind: 'optimal' })).toEqual({});
    expect(lpRequestOptions({ kind: 'optimal', lpThreads: 1 })).toEqual({ lpThreads: 1 });
    expect(lpRequestOptions({ kind: 'optimal', lpModel: 'exact', delta: 1.3 })).toEqual({ lpModel: 'exact' });
    expect(lpRequestOptions({ kind: 'optimal', lpModel: 'spanner', delta: 1.3, timeLimitSeconds: 5 })).toEqual({
      lpModel: 'spanner',
      delta: 1.3,
      timeLimitSeconds: 5,
    });
  });

  it('units and gap text', () => {
    expect(lossUnit('dist', true)).toBe('km');
    expect(lossUnit('dist2', true)).toBe('km²');
    expect(lossUnit('dist', false)).toBe('distance units');
    expect(lossUnit('bin', true)).toBe('');
    expect(gapText(0.0123)).toBe('1.23%');
    expect(gapText(3e-7)).toBe('0.00003%');
    expect(gapText(0)).toBe('0%');
    expect(gapText(null)).toBe('—');
  });
});

describe('typed LP progress', () => {
  it('a sample from a round validates; before the first bound, bound and gap are null', () => {
    const s = lpSample({ round: 3, objective: 1.3, bound: 1.1, gap: 0.2 / 1.3, elapsedMs: 1500 }, 0.4)!;
    expect(lpSampleSchema.parse(s)).toEqual({
      round: 3,
      objective: 1.3,
      bound: 1.1,
      gap: 0.2 / 1.3,
      elapsedMs: 1500,
      fraction: 0.4,
    });
    const first = lpSample({ round: 1, objective: 2, bound: -Infinity, gap: Infinity, elapsedMs: 10 }, 0)!;
    expect(first.bound).toBeNull();
    expect(first.gap).toBeNull();
    expect(lpSampleSchema.safeParse(first).success).toBe(true);
    expect(lpSample({ round: 1, objective: NaN, bound: 0, gap: 1, elapsedMs: 10 }, 0)).toBeUndefined();
  });

  it('progress messages and job events carry it; malformed samples are refused', () => {
    const lp = { round: 2, objective: 1, bound: 0.9, gap: 0.1, elapsedMs: 5, fraction: 0.3 };
    expect(progressSchema.safeParse({ fraction: 0.3, message: 'LP round 2', lp }).success).toBe(true);
    expect(
      jobEventSchema.safeParse({ kind: 'progress', jobId: 'job-1', fraction: 0.3, message: 'x', lp }).success,
    ).toBe(true);
    expect(progressSchema.safeParse({ fraction: 0.3, message: 'x', lp: { ...lp, fraction: 2 } }).success).toBe(false);
    expect(progressSchema.safeParse({ fraction: 0.3, message: 'x', lp: { ...lp, objective: Infinity } }).success).toBe(
      false,
    );
    expect(progressSchema.safeParse({ fraction: 0.3, message: 'x', lp: { ...lp, round: 1.5 } }).success).toBe(false);
    expect(progressSchema.safeParse({ fraction: 0.3, message: 'x', lp: { ...lp, gap: -0.1 } }).success).toBe(false);
  });

  it('chart points are in seconds, in time order; the y range keeps the convergence and clips far-off early bounds', () => {
    const pts = convergencePoints([
      { elapsedMs: 2000, objective: 1.5, bound: -40, gap: null },
      { elapsedMs: 1000, objective: 3, bound: null, gap: null },
      { elapsedMs: 3000, objective: 1.4, bound: 1.3, gap: 0.1 / 1.4 },
    ]);
    expect(pts.map((p) => p.t)).toEqual([1, 2, 3]);
    expect(pts[0]!.gap).toBeNull();
    const r = convergenceRange(pts)!;
    // every objective (3 down to 1.4) and the last bound inside; the early bound -40 clipped (at 0: the losses are >=
    // 0)
    expect(r.max).toBeGreaterThan(3);
    expect(r.min).toBeLessThan(1.3);
    expect(r.min).toBe(0);
    // bounds within three heights of the last one are all shown (with a small margin)
    const near = convergenceRange(
      convergencePoints([
        { elapsedMs: 1, objective: 2, bound: 1.5, gap: 0.25 },
        { elapsedMs: 2, objective: 1.9, bound: 1.8, gap: 0.05 },
      ]),
    )!;
    expect(near.min).toBeLessThan(1.5);
    expect(near.min).toBeGreaterThan(1.4);
    expect(near.max).toBeGreaterThan(2);
    expect(convergenceRange([])).toBeNull();
  });
});
