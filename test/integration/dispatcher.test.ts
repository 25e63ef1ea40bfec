/**
 * The REAL piscina pool (worker threads through tsx): crashes, out-of-memory,
 * cancellation of cooperative and non-cooperative jobs, progress, isolation.
 * A test worker (fixtures/test-worker.ts) misbehaves on magic domains and
 * otherwise runs the production worker entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Dispatcher } from '../../src-main/dispatcher/dispatcher';
import { ApiError } from '../../src-shared/protocol/api';
import type { JobEvent } from '../../src-shared/protocol/messages';

const testWorker = fileURLToPath(new URL('./fixtures/test-worker.ts', import.meta.url));
const req = (domain: string) => ({ type: 'vertices', domain, epsilon: Math.LN2 });

async function outcome(
  d: Dispatcher,
  r: unknown,
): Promise<{ ok: boolean; code?: string; message?: string; result?: unknown }> {
  try {
    return { ok: true, result: await d.run(r) };
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return { ok: false, code: (e as ApiError).code, message: (e as ApiError).message };
  }
}

/** The job's next event of this kind (call it before the event can come: right after start()). */
function waitFor(d: Dispatcher, id: string, kind: JobEvent['kind']): Promise<JobEvent> {
  return new Promise((resolve) => {
    const off = d.onJobEvent((e) => {
      if (e.jobId === id && e.kind === kind) {
        off();
        resolve(e);
      }
    });
  });
}

describe('dispatcher on the real pool', () => {
  let d: Dispatcher;
  beforeAll(() => {
    d = new Dispatcher({ threads: 2, workerFile: testWorker, maxOldGenerationSizeMb: 48, cancelGraceMs: 300 });
  });
  afterAll(async () => {
    await d.close();
  });

  it('runs a real engine job: line:3 at eps ln 2 has 4 private-posterior vertices (SPEC §7)', async () => {
    const r = await outcome(d, req('line:3'));
    expect(r.ok).toBe(true);
    expect((r.result as { vertices: number }).vertices).toBe(4);
  });

  it('a worker that exits becomes that job\'s "crashed" error, and the pool keeps working', async () => {
    const [crash, fine] = await Promise.all([outcome(d, req('test:exit')), outcome(d, req('line:4'))]);
    expect(crash).toMatchObject({ ok: false, code: 'crashed' });
    expect(crash.message).toMatch(/crashed and was replaced/);
    expect(fine.ok).toBe(true);
    expect((fine.result as { vertices: number }).vertices).toBe(8);
    const again = await outcome(d, req('line:2'));
    expect((again.result as { vertices: number }).vertices).toBe(2);
  });

  it("out of memory in a worker is that job's error; the next job runs", async () => {
    const oom = await outcome(d, req('test:oom'));
    expect(oom).toMatchObject({ ok: false, code: 'crashed' });
    expect(oom.message).toMatch(/out of memory/);
    expect((await outcome(d, req('line:5'))).ok).toBe(true);
  });

  it('cancels a synchronous loop that never polls (the thread is terminated and replaced)', async () => {
    const id = d.start(req('test:spin'));
    await waitFor(d, id, 'progress'); // it is spinning
    const ended = waitFor(d, id, 'error');
    expect(await d.cancel(id)).toBe(true);
    const e = await ended; // the spinner never ends by itself: only the terminated thread ends it
    expect(e.kind === 'error' && e.error.code).toBe('cancelled');
    expect((await outcome(d, req('line:3'))).ok).toBe(true);
  });

  it('jobs queued behind non-polling jobs still run after those are cancelled (thread terminated)', async () => {
    // Two spinning jobs fill both threads, two more spinners and four real
    // jobs wait in the queue; all four spinners are cancelled.
    const spinners = [1, 2, 3, 4].map(() => d.start(req('test:spin')));
    const spinning = spinners.slice(0, 2).map((id) => waitFor(d, id, 'progress'));
    const queued = ['line:2', 'line:3', 'line:4', 'line:5'].map((dom) => outcome(d, req(dom)));
    await Promise.all(spinning);
    for (const id of spinners) expect(await d.cancel(id)).toBe(true);
    const results = await Promise.all(queued);
    expect(results.map((r) => r.message ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(results.map((r) => (r.result as { vertices: number }).vertices)).toEqual([2, 4, 8, 16]);
  });

  it('cancels a loop that polls the shared flag cooperatively, well before the grace period', async () => {
    // a grace period longer than the test's timeout: the job ends only if the loop stopped by itself
    const patient = new Dispatcher({ threads: 1, workerFile: testWorker, cancelGraceMs: 3_600_000 });
    try {
      const id = patient.start(req('test:poll'));
      await waitFor(patient, id, 'progress'); // it is polling
      const ended = waitFor(patient, id, 'error');
      await patient.cancel(id);
      const e = await ended;
      expect(e.kind === 'error' && e.error.code).toBe('cancelled');
    } finally {
      await patient.close();
    }
  });

  it('streams progress in order, then exactly one result', async () => {
    const events: JobEvent[] = [];
    const off = d.onJobEvent((e) => events.push(e));
    const fractions: number[] = [];
    const r = await d.run(req('test:slow'), { onProgress: (f) => f !== null && fractions.push(f) });
    off();
    expect(r.type).toBe('vertices');
    expect(fractions.length).toBeGreaterThan(3);
    for (let i = 1; i < fractions.length; i++) expect(fractions[i]!).toBeGreaterThanOrEqual(fractions[i - 1]!);
    const mine = events.filter((e) => e.kind === 'result');
    expect(mine).toHaveLength(1);
  });

  it('an aborted signal cancels through run()', async () => {
    const ac = new AbortController();
    // aborted once the job is polling (an abort before it starts is a different path: cancelled while queued)
    const q = d
      .run(req('test:poll'), { signal: ac.signal, onProgress: (_f, m) => m === 'polling' && ac.abort() })
      .catch((e: ApiError) => e.code);
    expect(await q).toBe('cancelled');
  });

  it('rejects malformed requests before a job exists', async () => {
    await expect(d.submit({ type: 'vertices', domain: 'line:3', epsilon: -1 })).rejects.toMatchObject({
      code: 'invalid-input',
    });
    expect(() => d.start(null)).toThrow(/JSON object/);
  });
});

describe('dispatcher when workers cannot start', () => {
  it('fails queued jobs with the reason instead of leaving them pending forever', async () => {
    const broken = new Dispatcher({ threads: 1, execArgv: ['--import', 'mechstudio-no-such-package'] });
    try {
      const r = await outcome(broken, req('line:3'));
      expect(r).toMatchObject({ ok: false, code: 'crashed' });
      expect(r.message).toMatch(/mechstudio-no-such-package/);
    } finally {
      await broken.close();
    }
  });
});
