/**
 * Job queue (npm run bench -- queue): a sweep of 200 small optimal LPs
 * (line:7, eps from 0.2 in steps of 0.01: one `mechanism` job each, as a
 * project's items are) run
 *   - on the local pool (Dispatcher) with 1, 2 and 4 threads, and
 *   - through a real redis-server on a loopback port with 1, 2 and 4
 *     `mechanism worker --concurrency 1` processes (the built CLI),
 * each after a warm-up of a few jobs, in the same run. Prints wall time,
 * throughput and the overhead per job against the local pool with the same
 * parallelism, plus the round trip of one job at a time (median of 20), and
 * checks that every queue result equals the local one.
 * BENCH_QUEUE_POINTS overrides the 200.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Dispatcher } from '../../src-main/dispatcher/dispatcher';
import type { JobRunner } from '../../src-main/dispatcher/job-runner';
import { QueueClient } from '../../src-main/queue/client';
import { parseQueueUrl } from '../../src-main/queue/connection';
import type { JobRequest } from '../../src-shared/protocol/requests';
import type { JobResult } from '../../src-shared/protocol/results';
import { startRedis, startWorker, type WorkerProc } from '../integration/queue-fixture';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const POINTS = Math.max(10, Number(process.env.BENCH_QUEUE_POINTS ?? 200));

const point = (i: number): JobRequest => ({
  type: 'mechanism',
  domain: 'line:7',
  kind: 'optimal',
  epsilon: Math.round((0.2 + 0.01 * i) * 100) / 100,
  inlineLimit: 0,
});

async function sweep(runner: JobRunner, n: number): Promise<{ ms: number; results: JobResult[] }> {
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: n }, (_, i) => runner.run(point(i))));
  return { ms: performance.now() - t0, results };
}

async function roundTrip(runner: JobRunner, n = 20): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await runner.run({ type: 'mechanism', domain: 'line:3', kind: 'tg', epsilon: 0.5 });
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return ms[n >> 1]!;
}

const utility = (r: JobResult): number => (r.type === 'mechanism' ? (r.utility ?? NaN) : NaN);

export default async function queueBench(): Promise<void> {
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build:cli failed: ${b.stderr}`);
  process.stdout.write(b.stdout);
  console.log(`${POINTS} optimal LPs on line:7 (eps 0.2, 0.21, ...), one job each`);
  const rows: { name: string; par: number; ms: number; rt: number }[] = [];
  const reference: number[] = [];
  for (const threads of [1, 2, 4]) {
    const d = new Dispatcher({ threads });
    try {
      await sweep(d, threads * 2);
      const { ms, results } = await sweep(d, POINTS);
      if (reference.length === 0) reference.push(...results.map(utility));
      const rt = await roundTrip(d);
      rows.push({ name: `local pool, ${threads} thread${threads > 1 ? 's' : ''}`, par: threads, ms, rt });
    } finally {
      await d.close();
    }
  }
  const redis = await startRedis();
  try {
    for (const k of [1, 2, 4]) {
      const workers: WorkerProc[] = await Promise.all(
        Array.from({ length: k }, () => startWorker(redis.url, { concurrency: 1 })),
      );
      const client = await QueueClient.connect(parseQueueUrl(redis.url));
      try {
        await sweep(client, k * 3);
        const { ms, results } = await sweep(client, POINTS);
        const bad = results.map(utility).findIndex((u, i) => !Object.is(u, reference[i]));
        if (bad >= 0)
          throw new Error(
            `queue result ${bad} differs from the local pool: ${utility(results[bad]!)} vs ${reference[bad]}`,
          );
        const rt = await roundTrip(client);
        rows.push({ name: `queue, ${k} worker process${k > 1 ? 'es' : ''}`, par: k, ms, rt });
      } finally {
        await client.close();
        await Promise.all(workers.map((w) => w.kill('SIGTERM')));
      }
    }
  } finally {
    await redis.stop();
  }
  const local = new Map(rows.filter((r) => r.name.startsWith('local')).map((r) => [r.par, r.ms]));
  console.log('runner                          wall s   jobs/s   ms/job   overhead/job vs local   one-job round trip');
  for (const r of rows) {
    const base = local.get(r.par)!;
    const over = r.name.startsWith('queue') ? `${((r.ms - base) / POINTS).toFixed(1).padStart(8)} ms` : '           -';
    console.log(
      `${r.name.padEnd(30)} ${(r.ms / 1000).toFixed(2).padStart(7)} ${((POINTS * 1000) / r.ms).toFixed(1).padStart(8)} ${(r.ms / POINTS).toFixed(1).padStart(8)}   ${over.padStart(21)}   ${r.rt.toFixed(1).padStart(8)} ms`,
    );
  }
  console.log("(every queue result equals the local pool's)");
}
