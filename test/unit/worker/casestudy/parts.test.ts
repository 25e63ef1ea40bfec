/**
 * Case studies split into parts (src-worker/casestudy/parts.ts, fanned out by
 * src-main/dispatcher/fan-out.ts) over the real pool: for capacities (one LP
 * per domain) and geo (grid eps values, then the city eps values with their
 * LPs), the merged result is byte-for-byte the single job's JSON, for several
 * part counts; malformed or missing parts are refused, bad parameters are
 * the single job's error.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../../src-main/dispatcher/dispatcher';
import { FanningRunner, runFannedOut, sweepSlices } from '../../../../src-main/dispatcher/fan-out';
import type { JobEvent } from '../../../../src-shared/protocol/messages';
import { mergeStudyParts, splitStudy } from '../../../../src-worker/casestudy/parts';
import type { CaseStudyResult } from '../../../../src-shared/protocol/casestudy';
import type { JobRequest } from '../../../../src-shared/protocol/requests';

const pool = new Dispatcher({ threads: 2 });
/**
 * JSON of a result with the wall-clock solver times of geo's city rows and table notes masked (they differ between any
 * two runs).
 */
const json = (r: unknown): string =>
  JSON.stringify(r)
    .replace(/solved in [0-9.e+-]+ s/g, 'solved in T s')
    .replace(/"solverMs":[0-9.e+-]+/g, '"solverMs":T');
afterAll(() => pool.close());

const capacities: JobRequest = {
  type: 'case-study',
  study: 'capacities',
  params: { maxHamming: 3, maxLine: 4, epsilon: 0.7 },
};
const population = Array.from({ length: 16 }, (_, i) => 1 + ((i * 5) % 7));
const geo: JobRequest = {
  type: 'case-study',
  study: 'geo',
  params: { size: 6, from: 0.4, to: 1, step: 0.3, citySide: 4, population, cityEpsilons: [0.5, 1], lpCoarsen: 2 },
};

describe('case studies in parts', () => {
  it('capacities: 2, 3 and 16 parts give byte-for-byte the single job', async () => {
    const whole = (await pool.run(capacities)) as CaseStudyResult;
    expect(whole.tables[0]!.rows).toHaveLength(16);
    expect(splitStudy('capacities')!.itemCount(capacities.type === 'case-study' ? capacities.params! : {})).toBe(16);
    const once = JSON.stringify(whole);
    for (const parts of [2, 3, 16]) expect(JSON.stringify(await runFannedOut(pool, capacities, parts))).toBe(once);
  });

  it('geo: grid eps values and city eps values (LPs) in 2, 3 and 5 parts give byte-for-byte the single job', async () => {
    const whole = (await pool.run(geo)) as CaseStudyResult;
    const params = geo.type === 'case-study' ? geo.params! : {};
    expect(splitStudy('geo')!.itemCount(params)).toBe(5); // eps 0.4, 0.7, 1 on the grid; 0.5 and 1 in the city
    expect(whole.tables.map((t) => t.id)).toEqual(['grid-comparison', 'city-comparison']);
    expect(whole.tables[1]!.rows.some((r) => String(r[2]).startsWith('optimised for the prior'))).toBe(true);
    expect(json(whole)).toMatch(/solved in T s/);
    expect(json(whole)).toMatch(/"solverMs":T/);
    for (const parts of [2, 3, 5]) expect(json(await runFannedOut(pool, geo, parts))).toBe(json(whole));
    // a part answers with its items only
    const part = (await pool.run({ ...geo, part: { start: 3, count: 2 } } as JobRequest)) as CaseStudyResult;
    expect(part.findings).toBeUndefined();
    expect(part.part!.items.map((i) => (i as { kind: string }).kind)).toEqual(['city', 'city']);
  });

  it('merging refuses parts that do not fit; bad parameters are the single job error; out-of-range parts are refused', async () => {
    const params = capacities.type === 'case-study' ? capacities.params! : {};
    const parts = (await Promise.all(
      sweepSlices(16, 2).map((part) => pool.run({ ...capacities, part } as JobRequest)),
    )) as CaseStudyResult[];
    expect(() => mergeStudyParts('capacities', params, [parts[1]!, parts[0]!])).toThrow(/do not continue/);
    expect(() => mergeStudyParts('capacities', params, [parts[0]!])).toThrow(/hold 8 items, the study has 16/);
    const bad = structuredClone(parts[1]!);
    (bad.part!.items[0] as unknown[])[3] = 'lots';
    expect(() => mergeStudyParts('capacities', params, [parts[0]!, bad])).toThrow(/malformed item/);
    await expect(runFannedOut(pool, { ...capacities, params: { maxLine: 99 } } as JobRequest, 4)).rejects.toMatchObject(
      {
        code: 'invalid-input',
        message: expect.stringMatching(/maxLine/),
      },
    );
    await expect(pool.run({ ...capacities, part: { start: 10, count: 7 } } as JobRequest)).rejects.toMatchObject({
      code: 'invalid-input',
      message: expect.stringMatching(/has 16 items/),
    });
    await expect(pool.run({ type: 'case-study', study: 'voting', part: { start: 0, count: 1 } })).rejects.toMatchObject(
      {
        code: 'invalid-input',
        message: expect.stringMatching(/cannot be split/),
      },
    );
  });

  it("the app's runner (FanningRunner): a case study is one job to the caller, in parts on the pool, equal to the single job; cancel ends every part", async () => {
    const fan = new FanningRunner(pool, () => 3);
    const events: JobEvent[] = [];
    fan.onJobEvent((e) => events.push(e));
    const id = await fan.submit(capacities);
    expect(id).toMatch(/^fan-\d+$/);
    const merged = await new Promise<unknown>((resolve, reject) => {
      fan.onJobEvent((e) => {
        if (e.jobId !== id) return;
        if (e.kind === 'result') resolve(e.result);
        if (e.kind === 'error') reject(new Error(e.error.message));
      });
    });
    expect(JSON.stringify(merged)).toBe(JSON.stringify(await pool.run(capacities)));
    const mine = events.filter((e) => e.jobId === id);
    expect(mine[0]!.kind).toBe('queued');
    expect(mine.filter((e) => e.kind === 'result')).toHaveLength(1);
    expect(mine.some((e) => e.kind === 'progress' && /part \d of 3/.test(e.message))).toBe(true);
    // three part jobs ran on the pool under their own ids
    expect(
      new Set(events.filter((e) => e.kind === 'result' && e.jobId.startsWith('job-')).map((e) => e.jobId)).size,
    ).toBeGreaterThanOrEqual(3);
    // a request that does not split goes to the pool as it is
    expect(await fan.submit({ type: 'capacity', domain: 'line:3', epsilon: 1 })).toMatch(/^job-/);
    // cancel, once a part has started: the whole job ends with one 'cancelled' error and no part runs on
    const bigGeo = {
      ...geo,
      params: { ...(geo.type === 'case-study' ? geo.params : {}), size: 30, from: 0.2, to: 2, step: 0.05 },
    } as JobRequest;
    const before = events.length;
    const running = fan.run(bigGeo);
    running.catch(() => undefined); // awaited below
    const fresh = () => events.slice(before);
    await expect
      .poll(() => fresh().some((e) => e.kind === 'progress' && e.jobId.startsWith('job-')), { timeout: 120_000 })
      .toBe(true);
    const cancelId = fresh().find((e) => e.kind === 'queued' && e.jobId.startsWith('fan-'))!.jobId;
    expect(await fan.cancel(cancelId)).toBe(true);
    await expect(running).rejects.toMatchObject({ code: 'cancelled' });
    const ended = fresh().filter((e) => e.jobId === cancelId && (e.kind === 'result' || e.kind === 'error'));
    expect(ended.map((e) => (e.kind === 'error' ? e.error.code : e.kind))).toEqual(['cancelled']);
    // every part job that started ended (none left running on the pool)
    const parts = new Set(
      fresh()
        .filter((e) => e.jobId.startsWith('job-') && e.kind === 'queued')
        .map((e) => e.jobId),
    );
    expect(parts.size).toBeGreaterThan(0);
    await expect
      .poll(
        () =>
          [...parts].filter((p) => !fresh().some((e) => e.jobId === p && (e.kind === 'result' || e.kind === 'error'))),
        { timeout: 60_000 },
      )
      .toEqual([]);
  }, 300_000);
});
