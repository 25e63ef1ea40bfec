/**
 * Per-session fairness in time, not only in jobs (src-main/host/fair-jobs.ts):
 * while one session's long jobs (optimal LPs) run, another session's small
 * job starts at once on a thread kept for other sessions, before the first
 * session's queued jobs. The pool here is a stand-in whose jobs end only when
 * the test ends them, so every assertion is about which jobs have started.
 */
import { describe, expect, it } from 'vitest';
import { FairJobs, type JobBackend } from '../../../../src-main/host/fair-jobs';
import { MechStudioHost } from '../../../../src-main/host/host';
import type { ProjectStore } from '../../../../src-main/host/project-store';
import type { HostSession } from '../../../../src-main/host/api-host';
import type { AppInfo, JobRequest } from '../../../../src-shared/protocol';
import { fifoPool } from '../../support/fifo-pool';

const job = (tag: string): JobRequest =>
  ({ type: 'mechanism', domain: 'line:6', epsilon: 1, kind: 'tg', tag }) as unknown as JobRequest;

function hostOver(pool: JobBackend, mode: AppInfo['mode']): MechStudioHost {
  return new MechStudioHost({ mode, version: 'test', jobs: pool, store: {} as ProjectStore });
}

const session = (id: string): HostSession => ({ id, emit: () => undefined });

describe('fair sessions over a held pool', () => {
  it("web mode: session B's small job starts while A's 24 LPs run, before A's queued ones", async () => {
    const pool = fifoPool(2);
    const host = hostOver(pool, 'web');
    const a = session('A');
    const b = session('B');
    const lp = { type: 'mechanism', domain: 'line:40', epsilon: 0.5, kind: 'optimal' };
    for (let i = 0; i < 24; i++) await host.call('submit', [lp], a);
    // A alone holds one thread of two: the other is kept for other sessions
    expect(pool.started).toEqual(['#1']);
    await host.call('submit', [{ type: 'mechanism', domain: 'line:5', epsilon: 1, kind: 'tg' }], b);
    // B's job (the pool's second) runs beside A's first
    expect(pool.started).toEqual(['#1', '#2']);
    expect(pool.running()).toEqual(['#1', '#2']);
    expect(host['fair'].waiting('A')).toBe(23);
    // B's job ends; A's next still waits for A's running one (a thread stays free for others)
    pool.finish('#2');
    expect(pool.started).toEqual(['#1', '#2']);
    pool.finish('#1');
    await Promise.resolve();
    expect(pool.started).toEqual(['#1', '#2', '#3']);
    host.dispose();
  });

  it('the desktop app (one session) uses every thread', async () => {
    const pool = fifoPool(2);
    const host = hostOver(pool, 'electron');
    const lp = { type: 'mechanism', domain: 'line:40', epsilon: 0.5, kind: 'optimal' };
    for (let i = 0; i < 3; i++) await host.call('submit', [lp], session('A'));
    expect(pool.started).toEqual(['#1', '#2']);
    host.dispose();
  });

  it('with three threads: one session holds at most two; a newcomer waits behind no queued job of another session', async () => {
    const pool = fifoPool(3);
    const fair = new FairJobs(pool, { keepFree: 1 });
    for (let i = 1; i <= 10; i++) await fair.submit('A', job(`A${i}`));
    expect(pool.started).toEqual(['A1', 'A2']);
    await fair.submit('B', job('B1'));
    await fair.submit('B', job('B2'));
    expect(pool.started).toEqual(['A1', 'A2', 'B1']);
    // C arrives with every thread busy: its job is the first to start when one frees, before A's and B's queued ones
    await fair.submit('C', job('C1'));
    pool.finish('A1');
    await Promise.resolve();
    expect(pool.started).toEqual(['A1', 'A2', 'B1', 'C1']);
    expect(fair.waiting('A')).toBe(8);
    expect(fair.waiting('B')).toBe(1);
    // B's job ends: B has none inside, so its next one takes the thread (A, with one inside, may not)
    pool.finish('B1');
    await Promise.resolve();
    expect(pool.started).toEqual(['A1', 'A2', 'B1', 'C1', 'B2']);
    pool.finish('C1');
    pool.finish('B2');
    await Promise.resolve();
    // A alone again: two of three threads
    expect(pool.started).toEqual(['A1', 'A2', 'B1', 'C1', 'B2', 'A3']);
    expect(pool.running().sort()).toEqual(['A2', 'A3']);
    fair.dispose();
  });
});
