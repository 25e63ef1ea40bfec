/**
 * Hostile pricing workers on the queue (src-main/queue/pricing-master.ts, pricing-trust.ts): a real redis-server,
 * two honest `mechstudio worker` processes holding the queue secret, and a third worker played by the test
 * (rogue-worker.ts) that prices honestly and then forges its reply. In every case the job ends within its limit,
 * with exit 0 and the optimum of the local run, its certified bound never above it, and one line naming what was
 * refused:
 * - bounds of 0, bounds too high, columns outside the polytope, NaN, negative columns, a reply without columns;
 * - silence (with a time limit; alone on its queue: priced on this machine; alone and Ctrl-C);
 * - replies for another worker (its id in the head, guessed sessions);
 * - a process without the secret (its registration refused, never opened).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { bin, cli, redisInstalled, startRedis, startWorker, type RedisServer, type WorkerProc } from './queue-fixture';
import { startRogue, type RogueReply } from './rogue-worker';
import { encodeFrame, WORKER_KEY_PATTERN } from '../../src-main/queue/pricing-wire';
import { argv } from '../unit/support/argv';

const SECRET = 'a-queue-secret-for-the-tests-0123456789';
const KEY = Buffer.from(SECRET);
const ENV = { MECHSTUDIO_QUEUE_LOCK_MS: '3000', MECHSTUDIO_QUEUE_STALLED_MS: '1000', MECHSTUDIO_QUEUE_SECRET: SECRET };

interface Lp {
  objective: number;
  lowerBound: number;
  method: string;
  pricingWorkers?: number;
}

const lpOf = (stdout: string): Lp => (JSON.parse(stdout) as { lp: Lp }).lp;

/**
 * The master said the rogue worker was silent, for how long, and what became of its slice. The silence allowed is a
 * quarter of the LP's time left when it is measured (silentAfterMs): at most a quarter of the limit, at least 2 s; the
 * exact tenth depends on how loaded the machine is, so it is read, not matched.
 */
function expectSilentFor(stderr: string, limitSeconds: number, then: RegExp): void {
  const m = new RegExp(`pricing worker rogue-box \\(pid 4244\\) sent nothing for (\\d+\\.\\d) s: ${then.source}`).exec(
    stderr,
  );
  expect(m, stderr).not.toBeNull();
  const s = Number(m![1]);
  expect(s).toBeGreaterThanOrEqual(2);
  expect(s).toBeLessThanOrEqual(limitSeconds / 4);
}

/** The bound certified is at or below the optimum, and the run found the local optimum and bound. */
function expectLocalOptimum(got: Lp, want: Lp): void {
  expect(want.method).toBe('decomposition');
  expect(got.lowerBound).toBeLessThanOrEqual(want.objective * (1 + 1e-9));
  expect(Math.abs(got.objective - want.objective)).toBeLessThan(1e-6 * want.objective);
  expect(Math.abs(got.lowerBound - want.lowerBound)).toBeLessThan(1e-6 * want.objective);
}

/** Change every outcome's arrays of a reply. */
const each =
  (f: (a: RogueReply['arrays']) => void) =>
  (reply: RogueReply): RogueReply => {
    f(reply.arrays);
    return reply;
  };

describe.skipIf(!redisInstalled())('hostile pricing workers', () => {
  let redis: RedisServer;
  let workers: WorkerProc[] = [];
  let tmp: string;
  let prior: string;
  let local: Lp;
  const args = (...more: string[]): string[] => argv`mechanism --domain grid:6x6 --epsilon 0.5 --kind optimal
    --loss dist --prior csv:${prior} --json ${more}`;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'mechstudio-hostile-'));
    const v = Array.from({ length: 36 }, (_, i) => 1 + ((i * 37) % 11));
    const s = v.reduce((a, b) => a + b, 0);
    prior = join(tmp, 'prior.csv');
    writeFileSync(prior, v.map((x) => String(x / s)).join('\n') + '\n');
    redis = await startRedis();
    const [w1, w2, r] = await Promise.all([
      startWorker(redis.url, { env: ENV }),
      startWorker(redis.url, { env: ENV }),
      cli(args()),
    ]);
    workers = [w1, w2];
    expect(r.code, r.stderr).toBe(0);
    local = lpOf(r.stdout);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill('SIGKILL')));
    await redis?.stop();
  });

  const forgeries: [string, (reply: RogueReply) => RogueReply, RegExp][] = [
    [
      'bounds of 0',
      each((a) => (a.safe as Float64Array).fill(0)),
      /claims a pricing bound of 0 where its multipliers prove -?\d/,
    ],
    [
      'bounds too high',
      each((a) => (a.safe as Float64Array).forEach((_, i, s) => (s[i] = 5))),
      /claims a pricing bound of 5 where its multipliers prove/,
    ],
    [
      'columns outside the polytope',
      each((a) => (a.r as Float64Array).fill(1)),
      /its column is outside the column polytope/,
    ],
    ['NaN', each((a) => ((a.r as Float64Array)[3] = NaN)), /its column has r\[3\] = NaN/],
    ['negative columns', each((a) => (a.r as Float64Array).fill(-1)), /its column is outside the column polytope/],
    ['no columns', each((a) => delete a.r), /its reply lacks r \(f64\)/],
    [
      'multipliers on rows it was not given',
      each((a) => (a.cb as Int32Array).fill(99)),
      /its certificate names secrets \d+ and 99 \(n = 36\)/,
    ],
  ];

  it.each(forgeries)(
    'a worker that forges %s: its reply is refused, its slice moves, the optimum is the local one',
    async (_what, tamper, why) => {
      const rogue = await startRogue(redis.url, { key: KEY, tamper });
      try {
        const r = await cli([...args(), '--queue', redis.url], ENV);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toMatch(
          new RegExp(
            `pricing worker rogue-box \\(pid 4244\\) sent a reply that does not verify \\(.*${why.source}.*\\): outputs \\d+-\\d+ move to `,
          ),
        );
        expect(rogue.received.get('open')).toBe(1);
        expectLocalOptimum(lpOf(r.stdout), local);
      } finally {
        await rogue.stop();
      }
    },
    90_000,
  );

  it('a silent worker: its slice is taken back within a quarter of the time limit and the run keeps it', async () => {
    const rogue = await startRogue(redis.url, { key: KEY, tamper: () => null });
    try {
      const r = await cli([...args('--time-limit', '40'), '--queue', redis.url], ENV);
      expect(r.code, r.stderr).toBe(0);
      expectSilentFor(r.stderr, 40, /outputs \d+-\d+ move to /);
      expectLocalOptimum(lpOf(r.stdout), local);
    } finally {
      await rogue.stop();
    }
  }, 90_000);

  it('replies for another worker (its id, guessed sessions) are ignored', async () => {
    const commands = new Redis(redis.url);
    const keys = await commands.keys(WORKER_KEY_PATTERN);
    const honest = (JSON.parse((await commands.get(keys[0]!))!) as { id: string }).id;
    const rogue = await startRogue(redis.url, {
      key: KEY,
      tamper: (reply, open) => {
        // Its own slice answered as the honest worker, with bounds of 0; and the next sessions guessed, as they once
        // were.
        (reply.arrays.safe as Float64Array).fill(0);
        for (const guess of [0, 1, 2, 3].map((k) => `${String(open.session).split(':')[0]}:${k}:${k + 1}`))
          void commands.rpush(
            String(open.reply),
            encodeFrame({ ...reply.head, session: guess, worker: honest }, reply.arrays, KEY),
          );
        return { head: { ...reply.head, worker: honest }, arrays: reply.arrays };
      },
    });
    try {
      const r = await cli([...args('--time-limit', '40'), '--queue', redis.url], ENV);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`that names ${honest}, not the worker asked (rogue-box, pid 4244)`);
      expectSilentFor(r.stderr, 40, /outputs \d+-\d+ move to /);
      expect(rogue.sessions[0]).toMatch(/^[0-9a-f]{32}$/);
      expectLocalOptimum(lpOf(r.stdout), local);
    } finally {
      await rogue.stop();
      commands.disconnect();
    }
  }, 90_000);

  it('a process without the queue secret is refused at its registration and never sent a slice', async () => {
    const rogue = await startRogue(redis.url, { id: 'outsider', registrationKey: null, tamper: (r) => r });
    try {
      const r = await cli([...args(), '--queue', redis.url], ENV);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        "refused pricing worker outsider: its registration is not signed with this queue's secret",
      );
      expect(rogue.received.size).toBe(0);
      const got = lpOf(r.stdout);
      expect(got.pricingWorkers).toBe(2);
      expectLocalOptimum(got, local);
    } finally {
      await rogue.stop();
    }
  }, 90_000);

  describe('alone on its queue', () => {
    let lone: RedisServer;
    beforeAll(async () => {
      lone = await startRedis();
    });
    afterAll(async () => {
      await lone?.stop();
    });

    it('a silent worker: its slice is priced on this machine and the run keeps the optimum', async () => {
      const rogue = await startRogue(lone.url, { key: KEY, tamper: () => null });
      try {
        const r = await cli([...args('--time-limit', '20'), '--queue', lone.url], ENV);
        expect(r.code, r.stderr).toBe(0);
        expectSilentFor(r.stderr, 20, /outputs 1-36 are priced on this machine/);
        expectLocalOptimum(lpOf(r.stdout), local);
      } finally {
        await rogue.stop();
      }
    }, 90_000);

    it('a silent worker and no time limit: Ctrl-C twice ends the run', async () => {
      const rogue = await startRogue(lone.url, { key: KEY, tamper: () => null });
      try {
        const child = spawn(process.execPath, [bin, ...args(), '--queue', lone.url], {
          env: { ...process.env, ...ENV },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
        // once the rogue holds the slice, the run waits on it
        for (let k = 0; (rogue.received.get('price') ?? 0) === 0; k++) {
          if (k > 600) throw new Error(`the rogue was never asked to price: ${stderr}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        child.kill('SIGINT');
        for (let k = 0; !stderr.includes('stopping the LP'); k++) {
          if (k > 300) throw new Error(`no stop line: ${stderr}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        child.kill('SIGINT');
        const code = await exited;
        expect(stderr).toContain('mechstudio: cancelling');
        expect(code).not.toBe(0);
        expect(code).not.toBeNull();
      } finally {
        await rogue.stop();
      }
    }, 90_000);
  });
});
