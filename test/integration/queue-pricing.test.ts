/**
 * The optimal LP's pricing rounds on the queue's workers (`mechanism --kind
 * optimal --queue URL`, src-main/queue/pricing-master.ts and
 * pricing-service.ts): a real redis-server on a free loopback port, two
 * `mechstudio worker` processes (the bundled CLI), registrations lapsing
 * after 3 s instead of 30.
 *
 * - the same objective and certified bound as the local run, priced by both
 *   workers (`lp.pricingWorkers` 2), from the CLI and from a queued job
 *   (its master on the worker that took it), exactly (the exact model) and
 *   over rows (a spanner model, every bound recomputed by the master);
 * - a worker SIGKILLed mid-run: its slice moves to the other worker (one
 *   line) and the run ends with the same optimum;
 * - Redis killed and started again empty on the same port mid-run: the
 *   slices are opened again and the run ends with the same optimum;
 * - a worker of another version is refused with one line (by the master,
 *   from its registration; by a worker, from an open frame);
 * - a worker whose pricing fails (an error frame): its slice moves to a live
 *   worker (one line) and the run ends with the same optimum.
 * The prior is not uniform, so the local run solves by decomposition too
 * (a uniform one on a grid is one orbit model, no pricing at all).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { cli, redisInstalled, startRedis, startWorker, type RedisServer, type WorkerProc } from './queue-fixture';
import { QueueClient } from '../../src-main/queue/client';
import { parseQueueUrl } from '../../src-main/queue/connection';
import {
  decodeFrame,
  encodeFrame,
  inboxKey,
  pricingVersion,
  replyKey,
  WORKER_KEY_PATTERN,
  workerKey,
} from '../../src-main/queue/pricing-wire';
import { argv } from '../unit/support/argv';

// Registrations lapse after 3 s; queued LPs from 1,000 variables (a 6 x 6 grid has 1,296) price on the queue.
const ENV = {
  MECHSTUDIO_QUEUE_LOCK_MS: '3000',
  MECHSTUDIO_QUEUE_STALLED_MS: '1000',
  MECHSTUDIO_QUEUE_PRICING_MIN_VARIABLES: '1000',
};

interface Lp {
  objective: number;
  lowerBound: number;
  method: string;
  pricingWorkers?: number;
}

/** Resolves when the worker's log, from `from` on, matches `re` `times` times. */
async function logged(w: WorkerProc, from: number, re: RegExp, times = 1): Promise<void> {
  const g = new RegExp(re.source, 'g');
  for (let waited = 0; (w.log().slice(from).match(g)?.length ?? 0) < times; waited += 100) {
    if (waited > 120_000) throw new Error(`worker log never matched ${re} ${times}x: ${w.log().slice(-800)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A fixed, lumpy prior on n cells (a CSV file). */
function priorFile(dir: string, n: number): string {
  const v = Array.from({ length: n }, (_, i) => 1 + ((i * 37) % 11));
  const s = v.reduce((a, b) => a + b, 0);
  const file = join(dir, `prior-${n}.csv`);
  writeFileSync(file, v.map((x) => String(x / s)).join('\n') + '\n');
  return file;
}

describe.skipIf(!redisInstalled())('optimal LP pricing on the queue', () => {
  let redis: RedisServer;
  let workers: WorkerProc[] = [];
  let tmp: string;
  const local = new Map<string, Lp>();

  const args = (side: number): string[] => argv`mechanism --domain grid:${side}x${side} --epsilon 0.5
    --kind optimal --loss dist --prior csv:${priorFile(tmp, side * side)} --json`;
  const lpOf = (stdout: string): Lp => (JSON.parse(stdout) as { lp: Lp }).lp;
  const localLp = async (side: number): Promise<Lp> => {
    const key = String(side);
    if (!local.has(key)) {
      const r = await cli(args(side));
      expect(r.code, r.stderr).toBe(0);
      local.set(key, lpOf(r.stdout));
    }
    return local.get(key)!;
  };
  const expectSameOptimum = (got: Lp, want: Lp): void => {
    expect(want.method).toBe('decomposition');
    expect(Math.abs(got.objective - want.objective)).toBeLessThan(1e-6 * want.objective);
    expect(Math.abs(got.lowerBound - want.lowerBound)).toBeLessThan(1e-6 * want.objective);
  };

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'mechstudio-qpricing-'));
    redis = await startRedis();
    workers = await Promise.all([startWorker(redis.url, { env: ENV }), startWorker(redis.url, { env: ENV })]);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill('SIGKILL')));
    await redis?.stop();
  });

  it('prices on both workers and gives the local objective and bound', async () => {
    const [want, r] = await Promise.all([localLp(6), cli([...args(6), '--queue', redis.url])]);
    expect(r.code, r.stderr).toBe(0);
    const got = lpOf(r.stdout);
    expectSameOptimum(got, want);
    expect(got.pricingWorkers).toBe(2);
    expect(want.pricingWorkers).toBeUndefined();
    for (const w of workers)
      expect(w.log()).toMatch(/pricing the optimal-mechanism LP on grid:6x6 \(outputs \d+-\d+\)/);
  }, 300_000);

  it('a spanner model prices over rows on the workers, every bound recomputed from their multipliers, with the local optimum', async () => {
    const spanner = [...args(6), '--lp-model', 'spanner'];
    const [want, r] = await Promise.all([cli(spanner), cli([...spanner, '--queue', redis.url])]);
    expect(want.code, want.stderr).toBe(0);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/does not verify/);
    const got = lpOf(r.stdout);
    expectSameOptimum(got, lpOf(want.stdout));
    expect(got.pricingWorkers).toBe(2);
  }, 300_000);

  it('a queued LP job prices on the workers from the worker that took it, with the local optimum', async () => {
    const client = await QueueClient.connect(parseQueueUrl(redis.url));
    try {
      const values = readFileSync(priorFile(tmp, 36), 'utf8').trim().split('\n').map(Number);
      const request = {
        type: 'mechanism',
        domain: 'grid:6x6',
        epsilon: 0.5,
        kind: 'optimal',
        loss: 'dist',
        prior: { kind: 'vector', values },
      } as const;
      const [want, got] = await Promise.all([localLp(6), client.run(request)]);
      expect(got.type).toBe('mechanism');
      const lp = (got as { lp: Lp }).lp;
      expectSameOptimum(lp, want);
      expect(lp.pricingWorkers).toBe(2);
    } finally {
      await client.close();
    }
  }, 300_000);

  it('a worker SIGKILLed mid-run: its slice moves to the other worker and the run ends with the same optimum', async () => {
    const extra = await startWorker(redis.url, { env: ENV });
    const victim = workers[1]!;
    workers = [workers[0]!, extra];
    const run = cli([...args(8), '--queue', redis.url]);
    await logged(victim, 0, /pricing the optimal-mechanism LP on grid:8x8/); // it opened its session: it holds a slice
    await victim.kill('SIGKILL');
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /pricing worker .* stopped answering \(its registration lapsed\): outputs \d+-\d+ move to /,
    );
    expectSameOptimum(lpOf(r.stdout), await localLp(8));
  }, 300_000);

  it('Redis restarted empty mid-run: the slices are opened again and the run ends with the same optimum', async () => {
    // 10 x 10 (several seconds of rounds): the restart must come while the run is still pricing (8 x 8 could end first)
    const from = workers.map((w) => w.log().length);
    let finished = false;
    const run = cli([...args(10), '--queue', redis.url]).finally(() => (finished = true));
    await Promise.all(workers.map((w, i) => logged(w, from[i]!, /pricing the optimal-mechanism LP on grid:10x10/)));
    const midRun = !finished;
    await redis.restart(300);
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(midRun).toBe(true);
    // the restart came mid-run: the slices were opened again after it (two opens of this LP on the workers)
    const opens = workers.map(
      (w, i) =>
        w
          .log()
          .slice(from[i])
          .match(/pricing the optimal-mechanism LP on grid:10x10/g)?.length ?? 0,
    );
    expect(opens.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(4);
    expectSameOptimum(lpOf(r.stdout), await localLp(10));
  }, 300_000);

  it('a pricing error on a worker: its slice moves to another worker and the run ends with the same optimum', async () => {
    // A third registered worker of this version, played here: it answers every price frame with an error frame.
    const fake = { id: 'fake-failing', version: pricingVersion(), threads: 1, host: 'failing-box', pid: 4243 };
    const commands = new Redis(redis.url);
    const inbox = new Redis(redis.url);
    let serving = true;
    const serve = (async (): Promise<void> => {
      const replies = new Map<string, string>();
      while (serving) {
        const got = await inbox.blpopBuffer(inboxKey(fake.id), 0.2).catch(() => null);
        if (!got) continue;
        const f = decodeFrame(got[1]);
        const session = String(f.head.session);
        if (f.head.t === 'open') replies.set(session, String(f.head.reply));
        const reply = replies.get(session);
        if (f.head.t === 'price' && reply)
          await commands.rpush(
            reply,
            encodeFrame({
              t: 'error',
              session,
              worker: fake.id,
              code: 'internal',
              message: 'the pricing solver failed (injected)',
            }),
          );
      }
    })();
    try {
      await commands.set(workerKey(fake.id), JSON.stringify(fake), 'PX', 120_000);
      const r = await cli([...args(6), '--queue', redis.url]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /pricing worker failing-box \(pid 4243\) failed: the pricing solver failed \(injected\): outputs \d+-\d+ move to /,
      );
      const got = lpOf(r.stdout);
      expectSameOptimum(got, await localLp(6));
      expect(got.pricingWorkers).toBe(2);
    } finally {
      serving = false;
      await serve;
      await commands.del(workerKey(fake.id));
      commands.disconnect();
      inbox.disconnect();
    }
  }, 300_000);

  it('a worker of another version is refused with one line, and refuses a master of another version', async () => {
    const redisClient = new Redis(redis.url);
    try {
      const fake = { id: 'fake-old', version: '0.0.1/pricing-0', threads: 4, host: 'old-box', pid: 4242 };
      await redisClient.set(workerKey(fake.id), JSON.stringify(fake), 'PX', 60_000);
      const r = await cli([...args(6), '--queue', redis.url]);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stderr.split('\n').filter((l) => l.includes('refused'));
      expect(lines).toEqual([
        expect.stringMatching(
          /^mechstudio: refused pricing worker old-box \(pid 4242\): it runs 0\.0\.1\/pricing-0, this LP \S+; start it from the same version$/,
        ),
      ]);
      expect(lpOf(r.stdout).pricingWorkers).toBe(2);
      await redisClient.del(workerKey(fake.id));

      // A worker sent an open frame of another version answers 'refused' and logs one line.
      const keys = await redisClient.keys(WORKER_KEY_PATTERN);
      const id = (JSON.parse((await redisClient.get(keys[0]!))!) as { id: string }).id;
      const before = workers.map(
        (w) =>
          w
            .log()
            .split('\n')
            .filter((l) => l.includes('refused a pricing session')).length,
      );
      const open = {
        t: 'open',
        v: '0.0.1/pricing-0',
        session: 's1',
        reply: replyKey('test'),
        n: 2,
        m: 2,
        groupSize: 2,
        form: 'dual',
        what: 'x',
      };
      await redisClient.rpush(
        inboxKey(id),
        encodeFrame(open, { from: new Int32Array([0]), to: new Int32Array([1]), factor: new Float64Array([2]) }),
      );
      const got = await redisClient.blpopBuffer(replyKey('test'), 10);
      expect(got).not.toBeNull();
      const f = decodeFrame(got![1]);
      expect(f.head).toMatchObject({ t: 'refused', session: 's1' });
      expect(String(f.head.message)).toMatch(/runs \S+, the master 0\.0\.1\/pricing-0/);
      const after = workers.map(
        (w) =>
          w
            .log()
            .split('\n')
            .filter((l) => l.includes('refused a pricing session')).length,
      );
      expect(after.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0)).toBe(1);
    } finally {
      redisClient.disconnect();
    }
  }, 300_000);
});
