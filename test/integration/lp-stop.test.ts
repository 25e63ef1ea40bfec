/**
 * Stop with best through the REAL pool and the built CLI:
 * - an optimal LP stopped mid-run resolves with a mechanism (lp.stoppedBy
 *   'stopped') that passes the privacy check (a check job of src-worker/check
 *   and a brute-force ratio test here), whose expected loss is recomputed
 *   from its matrix, and whose reported certified gap is at least the true
 *   gap (the same LP solved to 1e-6 in the test gives the optimum);
 * - cancel still discards an LP; stop on a job that is not an LP cancels it;
 * - progress events carry typed lp samples (validated against the schema,
 *   rounds increasing, bound <= objective, fraction monotonic);
 * - the CLI: the first SIGINT on an LP writes the best mechanism (exit 0,
 *   stderr says it was stopped), a second one cancels (exit 130).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Dispatcher } from '../../src-main/dispatcher/dispatcher';
import { ApiError } from '../../src-shared/protocol/api';
import { lpSampleSchema, type JobEvent, type LpSample } from '../../src-shared/protocol/messages';
import type { CheckResult, MechanismResult } from '../../src-shared/protocol/results';
import { startTestServer } from './web-fixture';
import { argv } from '../unit/support/argv';

const N = 10; // grid:10x10, step 1, Euclidean
const EPS = 1;
const testWorker = fileURLToPath(new URL('./fixtures/test-worker.ts', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/mechstudio.js', import.meta.url));

/** A lumpy prior (no symmetry), as in cli-lp.test.ts. */
function lumpyPrior(n: number): number[] {
  const w = Array.from({ length: n }, (_, i) => 1 + ((i * 5) % 7));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}
const PRIOR = lumpyPrior(N * N);

/** The exact all-pairs model on a 10 x 10 grid: about 25 decomposition rounds (8 s on the reference machine). */
const lpRequest = (extra: Record<string, unknown> = {}) => ({
  type: 'mechanism' as const,
  domain: `grid:${N}x${N}`,
  epsilon: EPS,
  kind: 'optimal' as const,
  prior: { kind: 'vector' as const, values: PRIOR },
  loss: 'dist' as const,
  lpModel: 'exact' as const,
  lpThreads: 1,
  ...extra,
});

const coord = (i: number): [number, number] => [Math.floor(i / N), i % N];
const dist = (a: number, b: number): number => {
  const [r1, c1] = coord(a);
  const [r2, c2] = coord(b);
  return Math.hypot(r1 - r2, c1 - c2);
};

/** Largest C[x][w] / (e^(eps d(x,x')) C[x'][w]) over all x, x', w (1 = tight, > 1 = a violation). */
function worstRatio(data: number[], eps: number): number {
  const n = N * N;
  let worst = 0;
  for (let x = 0; x < n; x++)
    for (let xp = 0; xp < n; xp++) {
      if (x === xp) continue;
      const f = Math.exp(eps * dist(x, xp));
      for (let w = 0; w < n; w++) {
        const a = data[x * n + w]!;
        const b = data[xp * n + w]!;
        if (a === 0) continue;
        worst = Math.max(worst, b === 0 ? Infinity : a / (f * b));
      }
    }
  return worst;
}

/** sum_x pi_x sum_w C[x][w] d(w, x): the LP's objective (no remap). */
function expectedDistance(data: number[]): number {
  const n = N * N;
  let s = 0;
  for (let x = 0; x < n; x++) for (let w = 0; w < n; w++) s += PRIOR[x]! * data[x * n + w]! * dist(w, x);
  return s;
}

describe('stop with best on the real pool', () => {
  let d: Dispatcher;
  let full: MechanismResult;
  beforeAll(async () => {
    d = new Dispatcher({ threads: 2 });
    // The reference: the same LP to its default target gap (1e-6).
    full = (await d.run(lpRequest())) as MechanismResult;
  }, 120_000);
  afterAll(async () => {
    await d.close();
  });

  it('the reference solve is certified (gap <= 1e-6) and private', () => {
    expect(full.lp).toBeDefined();
    expect(full.lp!.stoppedBy === 'target-gap' || full.lp!.stoppedBy === 'optimal').toBe(true);
    expect(full.lp!.gap).toBeLessThanOrEqual(1e-6);
    expect(full.lp!.rounds).toBeGreaterThan(4);
    expect(worstRatio(full.matrix!.data, EPS)).toBeLessThanOrEqual(1 + 1e-9);
  });

  it('stop mid-run: a private mechanism with its certified gap, never better than the optimum, gap >= true gap', async () => {
    const samples: LpSample[] = [];
    const progress: JobEvent[] = [];
    const id = d.start(lpRequest());
    const result = new Promise<MechanismResult>((resolve, reject) => {
      const off = d.onJobEvent((e) => {
        if (e.jobId !== id) return;
        if (e.kind === 'progress') {
          progress.push(e);
          if (e.lp) {
            samples.push(e.lp);
            // Stop after the second round: far from converged (the reference took many more).
            if (e.lp.round >= 2) void d.stop(id);
          }
        } else if (e.kind === 'result') (off(), resolve(e.result as MechanismResult));
        else if (e.kind === 'error') (off(), reject(new ApiError(e.error)));
      });
    });
    expect(d.isStoppable(id)).toBe(true);
    const r = await result;
    const lp = r.lp!;
    expect(lp.stoppedBy).toBe('stopped');
    expect(lp.rounds).toBeLessThan(full.lp!.rounds);
    // the mechanism is eps*d-private: brute force over all pairs, and the engine's own check job
    expect(worstRatio(r.matrix!.data, EPS)).toBeLessThanOrEqual(1 + 1e-9);
    const check = (await d.run({
      type: 'check',
      channel: r.matrix!,
      domain: `grid:${N}x${N}`,
      epsilon: EPS,
    })) as CheckResult;
    expect(check.private).toBe(true);
    // its objective is its expected distance, recomputed from the matrix
    expect(expectedDistance(r.matrix!.data)).toBeCloseTo(lp.objective, 6);
    // the certified bound is below the optimum (<= the reference's objective), the mechanism not below it
    const opt = full.lp!.objective;
    expect(lp.lowerBound).toBeLessThanOrEqual(opt * (1 + 1e-9));
    expect(lp.objective).toBeGreaterThanOrEqual(full.lp!.lowerBound * (1 - 1e-9));
    // reported gap >= true gap (objective - OPT) / objective, with OPT >= the reference's certified bound
    const trueGapAtMost = (lp.objective - full.lp!.lowerBound) / lp.objective;
    const trueGapAtLeast = (lp.objective - opt) / lp.objective;
    expect(lp.gap).toBeGreaterThanOrEqual(trueGapAtLeast - 1e-9);
    expect(lp.gap).toBeCloseTo((lp.objective - lp.lowerBound) / lp.objective, 12);
    expect(lp.gap).toBeGreaterThan(1e-6); // stopped early: not yet at the target
    expect(trueGapAtMost).toBeGreaterThanOrEqual(0);
    // typed progress: every sample validates, rounds increase, bound <= objective, fraction monotonic
    expect(samples.length).toBeGreaterThan(0);
    for (const s of samples) expect(lpSampleSchema.safeParse(s).success).toBe(true);
    for (let i = 1; i < samples.length; i++) {
      expect(samples[i]!.round).toBeGreaterThan(samples[i - 1]!.round);
      expect(samples[i]!.fraction).toBeGreaterThanOrEqual(samples[i - 1]!.fraction);
    }
    for (const s of samples) if (s.bound !== null) expect(s.bound).toBeLessThanOrEqual(s.objective * (1 + 1e-9));
    // the message says the same as the sample
    const withLp = progress.filter((e) => e.kind === 'progress' && e.lp) as Extract<JobEvent, { kind: 'progress' }>[];
    for (const e of withLp) expect(e.message).toContain(`LP round ${e.lp!.round}:`);
  }, 120_000);

  it('stop before the worker starts: still a private mechanism (the first master solution)', async () => {
    const id = d.start(lpRequest());
    await d.stop(id);
    const r = await new Promise<MechanismResult>((resolve, reject) => {
      const off = d.onJobEvent((e) => {
        if (e.jobId !== id) return;
        if (e.kind === 'result') (off(), resolve(e.result as MechanismResult));
        else if (e.kind === 'error') (off(), reject(new ApiError(e.error)));
      });
    });
    expect(r.lp!.stoppedBy).toBe('stopped');
    expect(worstRatio(r.matrix!.data, EPS)).toBeLessThanOrEqual(1 + 1e-9);
    expect(r.lp!.objective).toBeGreaterThanOrEqual(full.lp!.lowerBound * (1 - 1e-9));
  }, 120_000);

  it('cancel still discards the LP', async () => {
    const ac = new AbortController();
    let cancelled = false;
    const q = d
      .run(lpRequest(), {
        signal: ac.signal,
        onProgress: (_f, _m, lp) => {
          if (lp && !cancelled) {
            cancelled = true;
            ac.abort();
          }
        },
      })
      .then(
        () => 'resolved',
        (e: ApiError) => e.code,
      );
    expect(await q).toBe('cancelled');
  }, 120_000);

  it('stop then cancel: the cancel wins', async () => {
    const id = d.start(lpRequest());
    await d.stop(id);
    await d.cancel(id);
    const e = await new Promise<JobEvent>((resolve) => {
      const off = d.onJobEvent((ev) => {
        if (ev.jobId === id && (ev.kind === 'result' || ev.kind === 'error')) (off(), resolve(ev));
      });
    });
    expect(e.kind === 'error' && e.error.code).toBe('cancelled');
  }, 60_000);

  it('a measure job of an optimal spec is stoppable, a vertices job is not; unknown ids give false', async () => {
    const id = d.start({ type: 'vertices', domain: 'line:3', epsilon: Math.LN2 });
    expect(d.isStoppable(id)).toBe(false);
    const m = d.start({ type: 'measure', mechanism: { domain: 'line:5', epsilon: 1, kind: 'optimal', loss: 'dist' } });
    expect(d.isStoppable(m)).toBe(true);
    expect(await d.stop('job-nope')).toBe(false);
    await Promise.all(
      [id, m].map(
        (j) =>
          new Promise<void>((resolve) => {
            const off = d.onJobEvent((ev) => {
              if (ev.jobId === j && (ev.kind === 'result' || ev.kind === 'error')) (off(), resolve());
            });
          }),
      ),
    );
  }, 60_000);
});

describe('stop on a job that is not an LP', () => {
  it('cancels it (the test worker loop ends only on the cancel value 1 of the flag)', async () => {
    const d = new Dispatcher({ threads: 1, workerFile: testWorker, cancelGraceMs: 30_000 });
    try {
      const q = d.run({ type: 'vertices', domain: 'test:poll', epsilon: Math.LN2 }).then(
        () => 'resolved',
        (e: ApiError) => e.code,
      );
      const id = 'job-1';
      await new Promise<void>((resolve) => {
        const off = d.onJobEvent(
          (e) => e.jobId === id && e.kind === 'progress' && e.message === 'polling' && (off(), resolve()),
        ); // it is polling
      });
      expect(d.isStoppable(id)).toBe(false);
      expect(await d.stop(id)).toBe(true);
      expect(await q).toBe('cancelled');
    } finally {
      await d.close();
    }
  }, 60_000);
});

describe('stop over the web bridge (host, fair queue, dispatcher)', () => {
  it("only the job's own session can stop it; the stop keeps the LP's best mechanism; progress carries typed samples over the wire", async () => {
    const t = await startTestServer({ threads: 1 });
    try {
      const a = await t.connect();
      const b = await t.connect();
      const sub = await a.call('submit', [lpRequest({ lpThreads: undefined })]);
      expect(sub.ok).toBe(true);
      const id = sub.value as string;
      // wait for the first typed LP sample pushed to session a
      for (let k = 0; k < 600 && !a.events.some((e) => e.jobId === id && e.kind === 'progress' && e.lp); k++)
        await new Promise((r) => setTimeout(r, 100));
      const sample = a.events.find((e) => e.jobId === id && e.kind === 'progress' && e.lp);
      expect(sample).toBeDefined();
      expect(lpSampleSchema.safeParse(sample!.kind === 'progress' ? sample!.lp : null).success).toBe(true);
      expect((await b.call('stop', [id])).value).toBe(false); // not b's job
      expect((await a.call('stop', [id])).value).toBe(true);
      const end = await a.jobEnd(id, 60_000);
      expect(end.kind).toBe('result');
      if (end.kind !== 'result' || end.result.type !== 'mechanism') return;
      expect(end.result.lp!.stoppedBy).toBe('stopped');
      expect(worstRatio(end.result.matrix!.data, EPS)).toBeLessThanOrEqual(1 + 1e-9);
      // no job of b was touched, and nothing is left running
      expect(b.events.filter((e) => e.jobId === id)).toEqual([]);
      expect(t.dispatcher.activeJobs).toBe(0);
      expect((await a.call('stop', [id])).value).toBe(false); // finished
    } finally {
      await t.close();
    }
  }, 120_000);
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the built CLI and send SIGINT once its stderr reports an LP round (the handler is installed and a round has
 * priced: a fixed delay raced the CLI's start-up under load); with `again`, a second SIGINT as soon as the first
 * one's stderr line is seen (signals sent back to back may be merged into one by the OS).
 */
function cliWithSigint(args: string[], again = false): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let first = false;
    let second = false;
    child.stdout.on('data', (x) => (stdout += x));
    child.stderr.on('data', (x) => {
      stderr += x;
      if (!first && /LP round \d+:/.test(stderr)) {
        first = true;
        child.kill('SIGINT');
      }
      if (again && !second && stderr.includes('stopping the LP')) {
        second = true;
        child.kill('SIGINT');
      }
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('CLI: Ctrl-C on an LP', () => {
  // A long LP (the exact model of a 20 x 20 grid at eps 0.5 to 1e-9 takes minutes, its rounds reported every few
  // seconds): Ctrl-C lands mid-run.
  const args = argv`mechanism --domain grid:20x20:step=0.5 --epsilon 0.5 --kind optimal --loss dist
    --lp-model exact --target-gap 1e-9 --time-limit 600 --json`;

  it('the first SIGINT writes the best mechanism so far with its certified gap (exit 0) and says so on stderr', async () => {
    const r = await cliWithSigint(args);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/stopping the LP/);
    expect(r.stderr).toMatch(/stopped by Ctrl-C after \d+ rounds?: the mechanism written is private/);
    const o = JSON.parse(r.stdout) as {
      exists: boolean;
      rows: number;
      gap: number;
      lowerBound: number;
      expectedLoss: number;
      effectiveEpsilon: number;
      lp: { stoppedBy: string; objective: number; gap: number };
    };
    expect(o.exists).toBe(true);
    expect(o.rows).toBe(400);
    expect(o.lp.stoppedBy).toBe('stopped');
    expect(o.gap).toBeGreaterThan(1e-9);
    expect(o.lowerBound).toBeLessThanOrEqual(o.lp.objective);
    expect(o.gap).toBeCloseTo((o.lp.objective - o.lowerBound) / o.lp.objective, 12);
    // a bound or none, said as it is
    if (o.lowerBound > 0)
      expect(r.stderr).toMatch(/is within [\d.]+% of the exact model's optimum \(certified lower bound/);
    else expect(r.stderr).toMatch(/bound on the best possible: none yet/);
    // the engine's own check of the released channel: eps*d-private
    expect(o.effectiveEpsilon).toBeLessThanOrEqual(0.5 * (1 + 1e-9));
  }, 300_000);

  it('a second SIGINT cancels (exit 130, nothing on stdout)', async () => {
    const r = await cliWithSigint(args, true);
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/cancelling/);
  }, 300_000);
});
