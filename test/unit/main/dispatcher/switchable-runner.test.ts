/**
 * The app's runner switched at run time (SwitchableRunner, QueueSettings) and
 * the typed API edge (parseApiCall), with fake runners: a job runs, is
 * cancelled and ends on the runner it was submitted to; a runner switched
 * away from closes after its last job; the settings never hand back a
 * password and keep the choice in settings.json.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobEvent } from '../../../../src-shared/protocol/messages';
import { parseApiCall } from '../../../../src-shared/protocol/api-calls';
import { runJob } from '../../../../src-shared/protocol/api';
import type { JobRunner } from '../../../../src-main/dispatcher/job-runner';
import { SwitchableRunner } from '../../../../src-main/dispatcher/switchable-runner';
import { QueueSettings, readSavedQueue } from '../../../../src-main/host/queue-settings';
import { MechError } from '../../../../src-shared/errors';

/** A runner whose jobs end when the test says so. */
class FakeRunner implements JobRunner {
  readonly threads: number;
  readonly submitted: string[] = [];
  readonly cancelled: string[] = [];
  closed = false;
  private seq = 0;
  private readonly listeners = new Set<(e: JobEvent) => void>();
  constructor(
    private readonly prefix: string,
    threads = 2,
  ) {
    this.threads = threads;
  }
  async submit(): Promise<string> {
    const id = `${this.prefix}-${++this.seq}`;
    this.submitted.push(id);
    this.emit({ kind: 'queued', jobId: id, type: 'regular' });
    return id;
  }
  async cancel(id: string): Promise<boolean> {
    this.cancelled.push(id);
    this.emit({ kind: 'error', jobId: id, error: { code: 'cancelled', message: 'job cancelled' }, elapsedMs: 0 });
    return true;
  }
  async stop(id: string): Promise<boolean> {
    return this.cancel(id);
  }
  onJobEvent(l: (e: JobEvent) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  run(): never {
    throw new Error('not used');
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  finish(id: string, value: number): void {
    this.emit({
      kind: 'result',
      jobId: id,
      result: { type: 'regular', domain: 'line:2', regular: value === 1 } as never,
      elapsedMs: 1,
    });
  }
  emit(e: JobEvent): void {
    for (const l of [...this.listeners]) l(e);
  }
}

const request = { type: 'regular', domain: 'line:3', epsilon: 1 };

describe('SwitchableRunner', () => {
  it('jobs run, are cancelled and end on the runner they started on; a retired runner closes after its last job', async () => {
    const local = new FakeRunner('job');
    const queue = new FakeRunner('queue-1');
    const r = new SwitchableRunner(local);
    expect(r.threads).toBe(2);
    const a = runJob(r, request);
    await Promise.resolve();
    r.use(queue);
    const b = runJob(r, request);
    const c = runJob(r, request);
    await new Promise((res) => setImmediate(res));
    expect(local.submitted).toEqual(['job-1']);
    expect(queue.submitted).toEqual(['queue-1-1', 'queue-1-2']);
    r.use(null); // back to the pool: the queue drains, then closes
    expect(r.draining).toBe(2);
    expect(await r.cancel('queue-1-2')).toBe(true);
    expect(queue.cancelled).toEqual(['queue-1-2']);
    await expect(c).rejects.toMatchObject({ code: 'cancelled' });
    expect(queue.closed).toBe(false);
    queue.finish('queue-1-1', 1);
    await expect(b).resolves.toMatchObject({ type: 'regular', regular: true });
    expect(queue.closed).toBe(true);
    expect(r.draining).toBe(0);
    // an unknown id is not cancelled anywhere
    expect(await r.cancel('queue-1-1')).toBe(false);
    local.finish('job-1', 0);
    await expect(a).resolves.toMatchObject({ regular: false });
    expect(local.closed).toBe(false);
    await r.close();
    expect(local.closed).toBe(true);
  });
});

describe('QueueSettings', () => {
  it('connect: status carries the redacted URL only; unreachable leaves the runner alone; the choice is saved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mechstudio-settings-'));
    try {
      const runner = new SwitchableRunner(new FakeRunner('job', 3));
      const made: FakeRunner[] = [];
      const settings = new QueueSettings({
        runner,
        configDir: dir,
        connect: async (t) => {
          if (t.options.port === 1)
            throw new MechError('internal', `cannot reach Redis at ${t.redacted}: connect ECONNREFUSED`);
          const q = Object.assign(new FakeRunner(`queue-${made.length + 1}`), { workerCount: async () => 2 });
          made.push(q);
          return q;
        },
      });
      await settings.start(undefined);
      expect(await settings.status()).toMatchObject({
        runner: 'local',
        url: null,
        localThreads: 3,
        source: 'default',
        persisted: true,
      });
      await expect(settings.connect('redis://bob:hunter22@127.0.0.1:1/0')).rejects.toMatchObject({
        code: 'internal',
        message: 'cannot reach Redis at redis://***@127.0.0.1:1/0: connect ECONNREFUSED',
      });
      await expect(settings.connect('http://x')).rejects.toMatchObject({ code: 'invalid-input' });
      expect(runner.active).toBe(runner.local);
      const st = await settings.connect('redis://bob:hunter22@10.0.0.5:6380/2');
      expect(st).toEqual({
        runner: 'queue',
        url: 'redis://***@10.0.0.5:6380/2',
        prefill: null,
        source: 'settings',
        localThreads: 3,
        workersSeen: 2,
        draining: 0,
        problem: null,
        persisted: true,
        changeable: true,
      });
      expect(JSON.stringify(st)).not.toContain('hunter22');
      expect(runner.active).toBe(made[0]);
      expect(readSavedQueue(dir)).toBe('redis://bob:hunter22@10.0.0.5:6380/2');
      // a restart reads it back
      const again = new QueueSettings({
        runner: new SwitchableRunner(new FakeRunner('job')),
        configDir: dir,
        connect: async () => Object.assign(new FakeRunner('queue-9'), { workerCount: async () => null }),
      });
      await again.start(undefined);
      expect(await again.status()).toMatchObject({ runner: 'queue', source: 'settings', workersSeen: null });
      expect((await settings.useLocal()).runner).toBe('local');
      expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toEqual({ queue: null });
      expect(made[0]!.closed).toBe(true);
      // a queue whose Redis stops answering: the status says "unknown" within seconds instead of waiting
      const stuck = new QueueSettings({
        runner: new SwitchableRunner(new FakeRunner('job')),
        configDir: null,
        connect: async () =>
          Object.assign(new FakeRunner('queue-8'), { workerCount: () => new Promise<number>(() => undefined) }),
      });
      await stuck.connect('redis://127.0.0.1:7001/0');
      expect(await stuck.status()).toMatchObject({ runner: 'queue', workersSeen: null, persisted: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('operator only (web mode): the command-line queue, never the saved one; connect and useLocal are refused and save nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mechstudio-settings-'));
    try {
      writeFileSync(join(dir, 'settings.json'), JSON.stringify({ queue: 'redis://127.0.0.1:7002/0' }));
      const connected: string[] = [];
      const connect = async (t: { redacted: string }) => (
        connected.push(t.redacted),
        Object.assign(new FakeRunner('queue-op'), { workerCount: async () => 1 })
      );
      const runner = new SwitchableRunner(new FakeRunner('job', 2));
      const op = new QueueSettings({ runner, configDir: dir, operatorOnly: true, connect });
      await op.start(undefined);
      // the page's saved choice is not used: the local pool
      expect(await op.status()).toMatchObject({
        runner: 'local',
        source: 'default',
        changeable: false,
        persisted: false,
      });
      expect(connected).toEqual([]);
      for (const call of [() => op.connect('redis://10.9.9.9:6379/0'), () => op.useLocal()])
        await expect(call()).rejects.toMatchObject({
          code: 'not-applicable',
          message: expect.stringMatching(/set by the server's operator/),
        });
      expect(connected).toEqual([]);
      expect(runner.active).toBe(runner.local);
      expect(readSavedQueue(dir)).toBe('redis://127.0.0.1:7002/0'); // untouched
      const withFlag = new QueueSettings({
        runner: new SwitchableRunner(new FakeRunner('job')),
        configDir: dir,
        operatorOnly: true,
        connect,
      });
      await withFlag.start('redis://127.0.0.1:7003/1');
      expect(await withFlag.status()).toMatchObject({
        runner: 'queue',
        source: 'command-line',
        url: 'redis://127.0.0.1:7003/1',
        changeable: false,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a saved queue that is unreachable at start: the local pool, with the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mechstudio-settings-'));
    try {
      const runner = new SwitchableRunner(new FakeRunner('job'));
      const first = new QueueSettings({
        runner,
        configDir: dir,
        connect: async () => Object.assign(new FakeRunner('queue-1'), { workerCount: async () => 0 }),
      });
      await first.connect('redis://127.0.0.1:7000/0');
      const s = new QueueSettings({
        runner: new SwitchableRunner(new FakeRunner('job')),
        configDir: dir,
        connect: async (t) => {
          throw new MechError('internal', `cannot reach Redis at ${t.redacted}`);
        },
      });
      await s.start(undefined);
      expect(await s.status()).toMatchObject({
        runner: 'local',
        problem:
          'the saved job queue was not used, jobs run on this computer: cannot reach Redis at redis://127.0.0.1:7000/0',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseApiCall', () => {
  it('types a call by method and refuses unknown methods and bad parameters in one line', () => {
    expect(parseApiCall('cancel', ['job-1'])).toEqual({ ok: true, value: { method: 'cancel', params: ['job-1'] } });
    expect(parseApiCall('project.open', [null])).toEqual({ ok: true, value: { method: 'project.open', params: [] } });
    expect(parseApiCall('queue.connect', ['redis://h:1/0'])).toMatchObject({ ok: true });
    expect(parseApiCall('rm -rf', [])).toEqual({
      ok: false,
      error: { code: 'invalid-input', message: "unknown API method 'rm -rf'" },
    });
    expect(parseApiCall('toString', [])).toMatchObject({ ok: false });
    expect(parseApiCall('cancel', [42])).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^cancel field '0': /) },
    });
    expect(parseApiCall('project.open', ['a\0b'])).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('NUL') },
    });
    expect(parseApiCall('info', ['extra'])).toMatchObject({ ok: false });
    expect(parseApiCall('project.export', [{ kind: 'zip' }])).toMatchObject({ ok: false });
    expect(
      parseApiCall('project.export', [
        { kind: 'channel-csv', request: { type: 'regular', domain: 'line:3', epsilon: 1, prior: 'uniform' } },
      ]),
    ).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('mechanism or capacity') },
    });
  });
});
