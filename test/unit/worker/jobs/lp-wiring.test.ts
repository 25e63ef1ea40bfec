/**
 * The optimal LP's options through the protocol, the admission estimate and
 * the job handlers: lpModel / delta / timeLimitSeconds /
 * targetGap are validated at the boundary (ranges, kind 'optimal' only, in
 * requests, mechanism specs and project files), the admission of the typed
 * path matches what the decomposition can do, and the mechanism result
 * carries the typed `lp` record with a monotonic progress.
 */
import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { admitRequest } from '../../../../src-worker/jobs/admission';
import { silentContext } from '../../../../src-worker/jobs/context';
import {
  LP_MEMORY_LIMIT_BYTES,
  MASTER_BUDGET_FRACTION,
  masterStartBytes,
} from '../../../../src-worker/lp/solver/memory-estimate';
import { planProject } from '../../../../src-worker/jobs/project-plan';
import { runJobRequest } from '../../../../src-worker/jobs/run';
import { projectSchema } from '../../../../src-shared/protocol/project';
import type { JobRequest } from '../../../../src-shared/protocol/requests';
import {
  jobResultSchema,
  MAX_LP_HISTORY_POINTS,
  thinHistory,
  type MechanismResult,
} from '../../../../src-shared/protocol/results';
import { parseJobRequest } from '../../../../src-shared/protocol/validate';
import { projectWith } from '../../support/project-fixture';
import { openPricing, type PricingFactory } from '../../../../src-worker/lp/pricing/pricing-pool';
import { progressSchema } from '../../../../src-shared/protocol/messages';

const mech = (domain: string, extra: Record<string, unknown> = {}, kind = 'optimal') => ({
  type: 'mechanism',
  domain,
  epsilon: 1,
  kind,
  ...extra,
});

function lumpy(n: number): number[] {
  const w = Array.from({ length: n }, (_, i) => 1 + ((i * 3) % 5));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}

function refusedBy(raw: unknown): string {
  const p = parseJobRequest(raw);
  if (p.ok) throw new Error(`${JSON.stringify(raw)} was accepted`);
  expect(p.error.code).toBe('invalid-input');
  return p.error.message;
}

function tooLarge(req: JobRequest): string {
  try {
    admitRequest(req);
  } catch (e) {
    expect(e).toBeInstanceOf(MechError);
    expect((e as MechError).code).toBe('too-large');
    return (e as MechError).message;
  }
  throw new Error(`${JSON.stringify(req)} was admitted`);
}

describe('protocol: LP options', () => {
  it('accepts the four options on kind optimal, in requests, specs and project files', () => {
    const p = parseJobRequest(
      mech('grid:3x3', { lpModel: 'spanner', delta: 1.2, timeLimitSeconds: 5, targetGap: 0.01, lpThreads: 2 }),
    );
    expect(p.ok).toBe(true);
    const m = parseJobRequest({
      type: 'measure',
      mechanism: { domain: 'grid:3x3', epsilon: 1, kind: 'optimal', lpModel: 'exact' },
    });
    expect(m.ok).toBe(true);
    const project = projectSchema.parse(
      projectWith(
        { g: 'grid:3x3' },
        {
          mechanisms: [
            {
              id: 'o',
              domain: 'g',
              kind: 'optimal',
              epsilon: 1,
              lpModel: 'exact',
              timeLimitSeconds: 10,
              targetGap: 0.001,
              delta: 1.5,
            },
          ],
        },
      ),
    );
    const planned = planProject(project);
    expect(planned[0]!.request).toMatchObject({
      type: 'mechanism',
      kind: 'optimal',
      lpModel: 'exact',
      timeLimitSeconds: 10,
      targetGap: 0.001,
      delta: 1.5,
    });
    expect(parseJobRequest(planned[0]!.request).ok).toBe(true);
  });

  it('refuses values out of range and options on other kinds, naming the field', () => {
    expect(refusedBy(mech('grid:3x3', { lpModel: 'foo' }))).toMatch(/lpModel.*exact, spanner, edges, auto/);
    expect(refusedBy(mech('grid:3x3', { timeLimitSeconds: -1 }))).toMatch(/timeLimitSeconds must be a number > 0/);
    expect(refusedBy(mech('grid:3x3', { timeLimitSeconds: 0 }))).toMatch(/timeLimitSeconds/);
    expect(refusedBy(mech('grid:3x3', { targetGap: 2 }))).toMatch(/targetGap must be a number > 0 and < 1/);
    expect(refusedBy(mech('grid:3x3', { targetGap: 0 }))).toMatch(/targetGap/);
    expect(refusedBy(mech('grid:3x3', { delta: 0.9 }))).toMatch(/delta .* from 1 to 10/);
    expect(refusedBy(mech('grid:3x3', { delta: 'x' }))).toMatch(/delta must be a number/);
    expect(refusedBy(mech('grid:3x3', { lpModel: 'exact' }, 'tg'))).toMatch(/apply only to kind optimal/);
    expect(refusedBy(mech('grid:3x3', { lpThreads: 0 }))).toMatch(/lpThreads must be at least 1/);
    expect(refusedBy(mech('grid:3x3', { lpThreads: 1.5 }))).toMatch(/lpThreads/);
    expect(refusedBy(mech('grid:3x3', { lpThreads: 2 }, 'rr'))).toMatch(/apply only to kind optimal/);
    expect(() =>
      projectSchema.parse(
        projectWith(
          { g: 'line:3' },
          { mechanisms: [{ id: 'o', domain: 'g', kind: 'tg', epsilon: 1, targetGap: 0.1 }] },
        ),
      ),
    ).toThrow(/apply only to kind optimal/);
  });

  it('thinHistory keeps at most the cap, first and last', () => {
    const h = Array.from({ length: 1000 }, (_, i) => i);
    const t = thinHistory(h);
    expect(t).toHaveLength(MAX_LP_HISTORY_POINTS);
    expect(t[0]).toBe(0);
    expect(t[t.length - 1]).toBe(999);
    for (let i = 1; i < t.length; i++) expect(t[i]!).toBeGreaterThan(t[i - 1]!);
    expect(thinHistory([1, 2, 3])).toEqual([1, 2, 3]);
  });
});

describe('admission of the typed optimal LP', () => {
  const req = (domain: string, lp: Record<string, unknown>): JobRequest => {
    const p = parseJobRequest(mech(domain, lp));
    if (!p.ok) throw new Error(p.error.message);
    return p.value;
  };

  it('admits the exact model on grid:20x20 and grid:30x30, and the spanner on grid:30x30', () => {
    expect(() => admitRequest(req('grid:20x20', { lpModel: 'exact' }))).not.toThrow();
    expect(() => admitRequest(req('grid:30x30', { lpModel: 'exact', timeLimitSeconds: 300 }))).not.toThrow();
    expect(() => admitRequest(req('grid:30x30', { lpModel: 'spanner', targetGap: 0.01 }))).not.toThrow();
  });

  it('refuses line:11000 on every LP path (without a time limit) and the exact model on grid:50x50; admits the spanner on 50x50', () => {
    expect(tooLarge(req('line:11000', { lpModel: 'exact' }))).toMatch(/line:11000/);
    expect(tooLarge(req('line:11000', { lpModel: 'spanner' }))).toMatch(
      /decomposition master would need about \d+ MiB/,
    );
    // with a time limit it is admitted and answered by the best cheap candidate (jobs/best-candidate.ts)
    expect(() => admitRequest(req('line:11000', { timeLimitSeconds: 10 }))).not.toThrow();
    expect(tooLarge(req('line:11000', {}))).toMatch(/LP \(auto model\) on line:11000: the decomposition master/);
    expect(tooLarge(req('grid:50x50', { lpModel: 'exact' }))).toMatch(
      /every one of its 3123750 pairs for each of 2500 outputs.*--lp-model spanner/,
    );
    // the boundary uses the decomposition's own start estimate (masterStartBytes): the 50x50 spanner start
    // fits the master's budget, as it does in column-decomposition.ts (before: 12500 dense starting columns, refused)
    expect(() => admitRequest(req('grid:50x50', { lpModel: 'spanner' }))).not.toThrow();
    expect(masterStartBytes(2500, 2500)).toBeLessThan(MASTER_BUDGET_FRACTION * LP_MEMORY_LIMIT_BYTES);
    expect(masterStartBytes(11000, 11000)).toBeGreaterThan(MASTER_BUDGET_FRACTION * LP_MEMORY_LIMIT_BYTES);
  });
});

describe('the mechanism job carries the typed LP record', () => {
  it('exact on a 3x4 grid: lp record valid for the result schema, bound <= objective, monotonic progress', async () => {
    const fractions: number[] = [];
    const messages: string[] = [];
    const p = parseJobRequest(
      mech('grid:3x4', { lpModel: 'exact', prior: { kind: 'vector', values: lumpy(12) }, loss: 'dist' }),
    );
    if (!p.ok) throw new Error(p.error.message);
    const r = (await runJobRequest(p.value, {
      signal: new AbortController().signal,
      progress: (f, m) => {
        if (f !== null) fractions.push(f);
        messages.push(m);
      },
    })) as MechanismResult;
    expect(jobResultSchema.safeParse(r).success).toBe(true);
    const lp = r.lp!;
    expect(lp.model).toBe('exact');
    expect(lp.modelChoice).toBe('requested');
    expect(lp.method).toBe('decomposition');
    expect(lp.lowerBound).toBeLessThanOrEqual(lp.objective + 1e-12);
    expect(lp.gap).toBeLessThan(1e-5);
    expect(lp.exactLowerBound).toBe(lp.lowerBound);
    expect(lp.history.length).toBe(lp.rounds);
    expect(lp.history.length).toBeLessThanOrEqual(MAX_LP_HISTORY_POINTS);
    // the expected loss with the optimal remap is at most the LP objective (identity remap)
    expect(r.expectedLoss!).toBeLessThanOrEqual(lp.objective + 1e-9);
    // the typed facts: the solver's figures of this decomposition, the same expected loss as the LP record
    expect(r.facts.kind === 'optimal' ? r.facts.solve : null).toMatchObject({
      objective: lp.objective,
      decomposition: { rounds: lp.rounds },
    });
    // progress: LP rounds named with objective, bound and gap; the fraction never goes back
    expect(messages.some((m) => /^LP round \d+: objective [0-9.e+-]+, bound [0-9.e+-]+, gap /.test(m))).toBe(true);
    expect(fractions.length).toBeGreaterThan(0);
    for (let i = 1; i < fractions.length; i++) expect(fractions[i]!).toBeGreaterThanOrEqual(fractions[i - 1]!);
  }, 60_000);

  it('an LP priced on a job queue: every round sample and line says how many queue workers price', async () => {
    const samples: (number | undefined)[] = [];
    const lines: string[] = [];
    // this machine's engine, reporting 3 workers as a queue's engine does (QueuePricing.workers)
    const pricing: PricingFactory = async (threads, spec) => {
      const engine = await openPricing(threads, spec);
      return new Proxy(engine, { get: (t, k) => (k === 'workers' ? 3 : (Reflect.get(t, k, t) as unknown)) });
    };
    const p = parseJobRequest(
      mech('grid:3x4', { lpModel: 'exact', prior: { kind: 'vector', values: lumpy(12) }, loss: 'dist' }),
    );
    if (!p.ok) throw new Error(p.error.message);
    const r = (await runJobRequest(p.value, {
      signal: new AbortController().signal,
      pricing,
      progress: (_f, m, lp) => {
        if (!lp) return;
        samples.push(lp.pricingWorkers);
        lines.push(m);
      },
    })) as MechanismResult;
    expect(r.lp!.pricingWorkers).toBe(3);
    expect(samples.length).toBeGreaterThan(0);
    expect(new Set(samples)).toEqual(new Set([3]));
    for (const l of lines) expect(l).toMatch(/^LP round \d+: .*, priced on 3 queue workers$/);
    expect(
      progressSchema.parse({
        fraction: 0.5,
        message: lines[0],
        lp: { round: 1, objective: 1, bound: null, gap: null, elapsedMs: 1, fraction: 0.5, pricingWorkers: 3 },
      }).lp?.pricingWorkers,
    ).toBe(3);
  }, 60_000);

  it('without LP options the model is chosen automatically and the result says which and why', async () => {
    const run = async (domain: string): Promise<MechanismResult> => {
      const p = parseJobRequest(mech(domain, { loss: 'dist' }));
      if (!p.ok) throw new Error(p.error.message);
      const r = (await runJobRequest(p.value, silentContext())) as MechanismResult;
      expect(jobResultSchema.safeParse(r).success).toBe(true);
      expect(r.lp!.modelChoice).toBe('auto');
      // a uniform prior and a distance loss are invariant under the domain's isometries: one full model over orbits
      expect(r.lp!.method).toBe('full-model');
      expect(r.lp!.lowerBound).toBeLessThanOrEqual(r.lp!.objective + 1e-12);
      return r;
    };
    const line = await run('line:6');
    expect(line.lp!.model).toBe('edges');
    expect(line.lp!.modelReason).toMatch(/graph edges/);
    const grid = await run('grid:3x3');
    expect(grid.lp!.model).toBe('exact');
    expect(grid.lp!.modelReason).toMatch(/81 variables, all pairs: its bound certifies/);
  }, 60_000);

  it('a cancelled job ends with MechError cancelled', async () => {
    const ac = new AbortController();
    ac.abort();
    const p = parseJobRequest(mech('grid:4x4', { lpModel: 'exact', loss: 'dist' }));
    if (!p.ok) throw new Error(p.error.message);
    await expect(runJobRequest(p.value, { signal: ac.signal, progress: () => undefined })).rejects.toMatchObject({
      code: 'cancelled',
    });
  });
});
