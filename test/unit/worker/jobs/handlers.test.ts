/**
 * Job handlers in-process (no pool): protocol request -> engine -> protocol
 * result, checked against SPEC §7 values and closed forms; every result must
 * satisfy its own schema (what the dispatcher validates).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobRequest } from '../../../../src-worker/jobs/run';
import { silentContext } from '../../../../src-worker/jobs/context';
import { type JobResult } from '../../../../src-shared/protocol/results';
import { parseChannelCsv } from '../../../../src-main/fs/inputs';
import { MechError } from '../../../../src-shared/errors';
import { resultNoteLines } from '../../../../src-shared/charts/note-words';
import { MEASURE_FIGURES } from '../../../../src-shared/charts/result-table';
import { runJob } from '../../support/run-job';
import { projectWith } from '../../support/project-fixture';

const run = <T extends JobResult['type']>(
  request: unknown,
  ctx = silentContext(),
): Promise<Extract<JobResult, { type: T }>> => runJob<T>(request, ctx);

const LN2 = Math.LN2;

describe('job handlers', () => {
  it('mechanism: randomised response on six labels at eps ln 2 has 2/7 on the diagonal and utility 2/7 (SPEC §7)', async () => {
    const r = await run<'mechanism'>({ type: 'mechanism', domain: 'clique:6', epsilon: LN2, kind: 'rr' });
    expect(r.exists).toBe(true);
    expect(r.utility!).toBeCloseTo(2 / 7, 14);
    expect(r.effectiveEpsilon!).toBeCloseTo(LN2, 12);
    expect(r.matrix!.rows).toBe(6);
    expect(r.matrix!.data[0]!).toBeCloseTo(2 / 7, 14);
    expect(r.matrix!.data[1]!).toBeCloseTo(1 / 7, 14);
  });

  it('mechanism: streams the channel to CSV and the CSV reads back bit for bit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mechstudio-jobs-'));
    const out = join(dir, 'ring.csv');
    const r = await run<'mechanism'>({ type: 'mechanism', domain: 'ring:6', epsilon: LN2, kind: 'symmetric', out });
    expect(r.csvPath).toBe(out);
    const back = parseChannelCsv(readFileSync(out, 'utf8'), out);
    expect(back.data).toEqual(r.matrix!.data);
    // SPEC §7: ring of 6, a = 4/11, rows 4,2,1,1,1,2 over 11
    [4, 2, 1, 1, 1, 2].forEach((v, j) => expect(back.data[j]! * 11).toBeCloseTo(v, 12));
    expect(r.utility!).toBeCloseTo(4 / 11, 12);
  });

  it('mechanism: large channels carry no inline matrix', async () => {
    const r = await run<'mechanism'>({ type: 'mechanism', domain: 'line:250', epsilon: 1, kind: 'tg' });
    expect(r.rows).toBe(250);
    expect(r.matrix).toBeUndefined();
  });

  it('mechanism: the tight mechanism on the 4x4 Euclidean grid at eps 0.5 does not exist (threshold 0.69)', async () => {
    const r = await run<'mechanism'>({ type: 'mechanism', domain: 'grid:4x4', epsilon: 0.5, kind: 'tight' });
    expect(r.exists).toBe(false);
    expect(r.minZ!).toBeLessThan(0);
    expect(r.utility).toBeNull();
  });

  it('measure and check of a tight mechanism that does not exist: refused, saying where z is negative', async () => {
    const mechanism = { domain: 'grid:4x4', epsilon: 0.5, kind: 'tight' };
    const r = await run<'mechanism'>({ type: 'mechanism', ...mechanism });
    const why = `the tight mechanism does not exist here: Phi z = 1 has z[${r.minZAt}] = ${r.minZ} < 0, so no tight-constraints mechanism exists at eps = 0.5`;
    await expect(run({ type: 'measure', mechanism })).rejects.toMatchObject({ code: 'not-applicable', message: why });
    await expect(run({ type: 'check', domain: 'grid:4x4', epsilon: 0.5, mechanism })).rejects.toMatchObject({
      code: 'not-applicable',
      message: why,
    });
  });

  it('mechanism: laplace is labelled 2 eps and its effective eps lies in (eps, 2 eps]', async () => {
    const r = await run<'mechanism'>({ type: 'mechanism', domain: 'line:8', epsilon: 1, kind: 'laplace' });
    expect(r.guaranteedEpsilon).toBe(2);
    expect(r.effectiveEpsilon!).toBeGreaterThan(1);
    expect(r.effectiveEpsilon!).toBeLessThanOrEqual(2 + 1e-9);
  });

  it('measure of a construction equals measure of its matrix', async () => {
    const m = await run<'mechanism'>({ type: 'mechanism', domain: 'line:6', epsilon: LN2, kind: 'tg' });
    const prior = { kind: 'vector', values: [0.3, 0.2, 0.1, 0.1, 0.2, 0.1] } as const;
    const a = await run<'measure'>({
      type: 'measure',
      mechanism: { domain: 'line:6', epsilon: LN2, kind: 'tg' },
      prior,
      loss: 'dist',
    });
    const b = await run<'measure'>({ type: 'measure', channel: m.matrix!, domain: 'line:6', prior, loss: 'dist' });
    for (const k of [...MEASURE_FIGURES, 'expectedLoss'] as const) {
      expect(a[k], k).toBeCloseTo(b[k] as number, 13);
    }
    expect(a.vulnerability).toBe(0.3);
  });

  it('check: lists violations with the worst ratio first', async () => {
    const m = await run<'mechanism'>({ type: 'mechanism', domain: 'line:6', epsilon: LN2, kind: 'tg' });
    const c = await run<'check'>({ type: 'check', channel: m.matrix!, domain: 'line:6', epsilon: 0.5 });
    expect(c.private).toBe(false);
    expect(c.effectiveEpsilon).toBeCloseTo(LN2, 12);
    expect(c.violations[0]!.ratio).toBeCloseTo(2, 12);
    const ok = await run<'check'>({ type: 'check', channel: m.matrix!, domain: 'line:6', epsilon: LN2 });
    expect(ok.private).toBe(true);
    expect(ok.violations).toEqual([]);
  });

  it('capacity: discrete metric on 5 points at eps ln 2 is 5/3 and 1 - 5/9 (SPEC §6, §7)', async () => {
    const c = await run<'capacity'>({ type: 'capacity', domain: 'clique:5', epsilon: LN2 });
    expect(c.multiplicative).toBeCloseTo(5 / 3, 7);
    expect(c.additive).toBeCloseTo(1 - 5 / (1 + 4 * 2), 7);
  });

  it('regular: uniform prior on db:5,4 at eps 0.5 gives the SPEC §7 leakage bound 2.5226', async () => {
    const r = await run<'regular'>({ type: 'regular', domain: 'db:5,4', epsilon: 0.5, prior: 'uniform' });
    expect(r.regular).toBe(true);
    expect(r.leakageBound!).toBeCloseTo(5 * Math.log2((4 * Math.exp(0.5)) / (3 + Math.exp(0.5))), 9);
    expect(r.leakageBound!).toBeCloseTo(2.5226, 4);
  });

  it('regular: a non-regular prior gives null bounds and says why', async () => {
    const r = await run<'regular'>({
      type: 'regular',
      domain: 'line:3',
      epsilon: 0.1,
      prior: { kind: 'vector', values: [0.9, 0.05, 0.05] },
    });
    expect(r.regular).toBe(false);
    expect(r.utilityBound).toBeNull();
    expect(r.leakageBound).toBeNull();
    expect(r.regularity).toMatchObject({ kind: 'not-regular', domain: 'line:3', epsilon: 0.1 });
    expect(resultNoteLines(r)[0]).toMatch(
      /^the prior is not regular for line:3 at epsilon 0\.1: .* needs the weight -[\d.e-]+ on the corner prior of \S+$/,
    );
  });

  it('product priors need a database domain of the right width', async () => {
    await expect(
      run({ type: 'regular', domain: 'line:4', epsilon: 1, prior: { kind: 'product', values: [0.5, 0.5] } }),
    ).rejects.toThrow(/needs a database domain/);
    await expect(
      run({ type: 'regular', domain: 'db:2,3', epsilon: 1, prior: { kind: 'product', values: [0.5, 0.5] } }),
    ).rejects.toThrow(/takes 3 values/);
  });

  it('sweep: TG utility and the regular-prior bound coincide on the line (TG is optimal), per eps', async () => {
    const s = await run<'sweep'>({
      type: 'sweep',
      domain: 'line:6',
      kinds: ['tg', 'exponential'],
      from: LN2,
      to: 2 * LN2,
      steps: 3,
    });
    expect(s.epsilons).toHaveLength(3);
    expect(s.series[0]!.utility[0]!).toBeCloseTo(4 / 9, 12);
    for (let k = 0; k < 3; k++) {
      expect(s.series[0]!.utility[k]!).toBeCloseTo(s.bounds.utility[k]!, 9);
      expect(s.series[1]!.utility[k]!).toBeLessThan(s.bounds.utility[k]! + 1e-12);
    }
  });

  it('sweep: a cancelled signal stops it with a cancelled MechError', async () => {
    const ac = new AbortController();
    ac.abort();
    const err = await runJobRequest(
      { type: 'sweep', domain: 'line:6', kinds: ['tg'], from: 0.1, to: 1, steps: 50 },
      { signal: ac.signal, progress: () => undefined },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MechError);
    expect((err as MechError).code).toBe('cancelled');
  });

  it('run-project: every item runs; one failure does not stop the others', async () => {
    const r = await run<'run-project'>({
      type: 'run-project',
      project: projectWith(
        { g: 'grid:4x4', l: 'line:4' },
        {
          mechanisms: [
            { id: 'bad', domain: 'l', kind: 'planar-laplace', epsilon: 1 },
            { id: 'tg', domain: 'l', kind: 'tg', epsilon: LN2 },
          ],
          analyses: [{ id: 'v', type: 'vertices', domain: 'l', epsilon: LN2, kernels: true }],
        },
      ),
    });
    expect(r.mechanisms.map((m) => m.ok)).toEqual([false, true]);
    expect(r.mechanisms[0]!.error!.message.length).toBeGreaterThan(10);
    expect(r.analyses[0]!.result).toMatchObject({ vertices: 8, kernels: 11 });
  });
});
