/** The jobs panel's list (lib/job-queue.svelte.ts): rows for jobs and the host's other work, settled as they end. */
import { afterEach, describe, expect, it } from 'vitest';
import { useSsrModules } from '../../support/ssr';
import { fakeApi } from '../../support/fake-api';
import type * as QueueModule from '../../../../src-renderer/lib/job-queue.svelte';
import type { JobError, JobResult } from '../../../../src-shared/protocol/index';

const PATH = '/src-renderer/lib/job-queue.svelte.ts';
const ssr = useSsrModules([PATH]);
const mod = (): typeof QueueModule => ssr.module(PATH) as typeof QueueModule;
const rows = { type: 'rows' } as unknown as JobResult;
const mech = { type: 'mechanism', domain: 'grid:2x2', kind: 'optimal', epsilon: 1 } as const;

let queues: QueueModule.JobQueue[] = [];
afterEach(() => {
  for (const q of queues) q.dispose();
  queues = [];
});
function queueOn(api: ReturnType<typeof fakeApi>['api']): QueueModule.JobQueue {
  const q = new (mod().JobQueue)(api);
  queues.push(q);
  return q;
}

describe('the jobs panel list', () => {
  it('a job is a row, newest first, done with its result; an optimal LP can be stopped, its row says so', async () => {
    const f = fakeApi();
    const q = queueOn(f.api);
    const ids: string[] = [];
    const lp = q.run(mech, 'LP', (id) => ids.push(id));
    expect(q.jobs.map((j) => [j.label, j.status, j.stoppable])).toEqual([['LP', 'queued', true]]);
    await Promise.resolve();
    expect([ids, q.jobs[0]!.jobId, q.jobs[0]!.status]).toEqual([['job-1'], 'job-1', 'running']);
    await q.stop('job-1');
    expect([f.stopped, q.jobs[0]!.stopping, q.jobs[0]!.message]).toEqual([
      ['job-1'],
      true,
      'stopping: keeping the best mechanism so far…',
    ]);
    f.emit({ kind: 'result', jobId: 'job-1', result: rows, elapsedMs: 40 });
    await expect(lp).resolves.toBe(rows);
    expect(q.jobs[0]).toMatchObject({ status: 'done', fraction: 1, message: 'done', elapsedMs: 40 });
  });

  it('a failed job rejects with its error and its row says it; a cancelled one says cancelled', async () => {
    const bad: JobError = { code: 'invalid-input', message: 'no such domain' };
    const f = fakeApi({ answer: (r) => (r.type === 'check' ? bad : { code: 'cancelled', message: 'cancelled' }) });
    const q = queueOn(f.api);
    await expect(
      q.run({ type: 'check', domain: 'grid:2x2', epsilon: 1, channelRef: 'c' } as never, 'check'),
    ).rejects.toEqual(bad);
    await expect(q.run(mech, 'LP')).rejects.toMatchObject({ code: 'cancelled' });
    expect(q.jobs.map((j) => [j.label, j.status, j.message])).toEqual([
      ['LP', 'cancelled', 'cancelled'],
      ['check', 'error', 'no such domain'],
    ]);
  });

  it('rows a view fetches are a row while they run and leave when answered or cancelled; a failed one stays', async () => {
    const f = fakeApi({
      answer: (r) => {
        const from = (r as { from?: number }).from;
        if (from === 1) return { code: 'internal', message: 'channel file unreadable' };
        if (from === 2) return { code: 'cancelled', message: 'cancelled' };
        return undefined;
      },
    });
    const q = queueOn(f.api);
    const fetching = q.fetchRows({ type: 'rows', channelRef: 'c', from: 0, count: 10 } as never);
    await Promise.resolve();
    expect(q.jobs.map((j) => [j.label, j.status, j.transient])).toEqual([['rows for a view', 'running', true]]);
    f.emit({ kind: 'result', jobId: 'job-1', result: rows, elapsedMs: 12 });
    await expect(fetching).resolves.toBe(rows);
    expect(q.jobs.length).toBe(0);
    await expect(q.fetchRows({ type: 'rows', channelRef: 'c', from: 2, count: 10 } as never)).rejects.toMatchObject({
      code: 'cancelled',
    });
    expect(q.jobs.length).toBe(0);
    await expect(q.fetchRows({ type: 'rows', channelRef: 'c', from: 1, count: 10 } as never)).rejects.toMatchObject({
      code: 'internal',
    });
    expect(q.jobs.map((j) => [j.label, j.status, j.message])).toEqual([
      ['rows for a view', 'error', 'channel file unreadable'],
    ]);
    expect(f.submitted.length).toBe(3);
  });

  it('the panel keeps the newest 30 rows; a running row of a view does not push one out', async () => {
    const f = fakeApi();
    const q = queueOn(f.api);
    for (let i = 0; i < 32; i++) await q.task(`export ${i}`, 'export', () => Promise.resolve(i));
    expect(q.jobs.length).toBe(mod().MAX_JOB_ROWS);
    expect([q.jobs[0]!.label, q.jobs.at(-1)!.label]).toEqual(['export 31', 'export 2']);
    void q.fetchRows({ type: 'rows', channelRef: 'c', from: 0, count: 10 } as never);
    // not in the caller's own (reactive) step: a microtask later
    expect(q.jobs.length).toBe(mod().MAX_JOB_ROWS);
    await Promise.resolve();
    expect(q.jobs.length).toBe(mod().MAX_JOB_ROWS + 1);
    expect([q.jobs[0]!.label, q.jobs.at(-1)!.label]).toEqual(['rows for a view', 'export 2']);
  });

  it("the host's other work is a row while it runs, then done or failed with its message", async () => {
    const q = queueOn(fakeApi().api);
    let finish!: (v: string) => void;
    const saving = q.task('export a.csv', 'export', () => new Promise<string>((r) => (finish = r)));
    expect(q.jobs[0]).toMatchObject({ label: 'export a.csv', status: 'running', jobId: null });
    finish('ok');
    await expect(saving).resolves.toBe('ok');
    expect(q.jobs[0]).toMatchObject({ status: 'done', fraction: 1 });
    await expect(q.task('apply', 'apply', () => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
    expect(q.jobs[0]).toMatchObject({ label: 'apply', status: 'error', message: 'disk full', error: 'disk full' });
  });

  it('another project keeps only the running rows', async () => {
    const f = fakeApi({ answer: (r) => (r.type === 'rows' ? rows : undefined) });
    const q = queueOn(f.api);
    void q.run(mech, 'LP still running');
    await q.run({ type: 'rows', channelRef: 'c', from: 0, count: 1 } as never, 'finished');
    q.keepLive();
    expect(q.jobs.map((j) => j.label)).toEqual(['LP still running']);
  });
});
