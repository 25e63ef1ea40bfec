/**
 * Pricing on the queue (npm run bench -- queue): the first rounds of the
 * optimal LP's decomposition on a 30 x 30 grid (spanner model, uniform
 * prior, distance loss, eps 0.5, no coarse start), priced
 *   - here on 2 pricing threads (ThreadedPricing), and
 *   - on 2 `mechstudio worker --concurrency 1` processes through a real
 *     redis-server on a loopback port (QueuePricing: one slice each),
 * the master on this thread either way. Each output keeps its warm basis
 * on its one thread or worker, so both runs take the same path (checked:
 * the same objective and bound after the same rounds). Prints per round
 * the master's time and the pricing time of both runs, the queue's own
 * cost (within the queue run: the master's wait minus the slowest slice's
 * pricing on its worker, as a share of the round; comparing the two runs
 * measures the machine's load as much), the pricing time per output
 * (thread-ms) and the bytes sent and received per round: the figures
 * docs/scaling-out.md projects from.
 * BENCH_QUEUE_PRICING_SIDE (30), BENCH_QUEUE_PRICING_ROUNDS (4) and BENCH_QUEUE_PRICING_MODEL (spanner; auto is
 * exact there, whose first rounds took over 15 minutes on the busy 2-core machine) override.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parseQueueUrl } from '../../src-main/queue/connection';
import { PricingFleet } from '../../src-main/queue/pricing-master';
import { parseDomainSpec } from '../../src-worker/metric/parse-domain-spec';
import { optimalMechanism } from '../../src-worker/lp/optimal/optimal-mechanism';
import type { DecompositionIteration } from '../../src-worker/lp/decomposition/column-decomposition';
import { openPricing, type PricingFactory } from '../../src-worker/lp/pricing/pricing-pool';
import { startRedis, startWorker, type WorkerProc } from '../integration/queue-fixture';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SIDE = Math.max(4, Number(process.env.BENCH_QUEUE_PRICING_SIDE ?? 30));
const ROUNDS = Math.max(2, Number(process.env.BENCH_QUEUE_PRICING_ROUNDS ?? 4));
const THREADS = 2;
const MODEL = (process.env.BENCH_QUEUE_PRICING_MODEL ?? 'spanner') as 'auto' | 'exact' | 'spanner';

interface Run {
  rounds: DecompositionIteration[];
  /** Frame bytes [sent, received] after each round (queue runs). */
  bytes: [number, number][];
  /**
   * ms inside the engine's price() per round (the rest of the decomposition's pricing time is the master's work on the
   * columns).
   */
  engineMs: number[];
  objective: number;
  bound: number;
}

async function run(fleet?: PricingFleet): Promise<Run> {
  const bytes: [number, number][] = [];
  const engineMs: number[] = [];
  const open = fleet?.factory ?? openPricing;
  const pricing: PricingFactory = async (threads, spec) => {
    const engine = await open(threads, spec);
    const price = engine.price.bind(engine);
    engine.price = async (req) => {
      const t = performance.now();
      const r = await price(req);
      engineMs.push(performance.now() - t);
      return r;
    };
    return engine;
  };
  const domain = parseDomainSpec(`grid:${SIDE}x${SIDE}`);
  const n = domain.n;
  const rounds: DecompositionIteration[] = [];
  const mech = await optimalMechanism(domain, 0.5, new Float64Array(n).fill(1 / n), 'dist', {
    model: MODEL,
    threads: THREADS,
    coarseStart: false,
    decompositionOptions: {
      maxIterations: ROUNDS,
      onRound: (r) => (rounds.push(r), fleet && bytes.push([fleet.bytesSent, fleet.bytesReceived])),
      pricing,
    },
  });
  return { rounds, bytes, engineMs, objective: mech.lp!.lpObjective ?? mech.lp!.objective, bound: mech.lp!.lowerBound };
}

/** Per-round master and pricing ms (rounds 2.. : the first one also opens the models), from the cumulative figures. */
function perRound(r: Run): { master: number; pricing: number; engine: number; first: number; count: number } {
  const rs = r.rounds;
  const k = rs.length - 1;
  return {
    master: (rs[k]!.masterMs - rs[0]!.masterMs) / k,
    pricing: (rs[k]!.pricingMs - rs[0]!.pricingMs) / k,
    engine: r.engineMs.slice(1, k + 1).reduce((a, b) => a + b, 0) / k,
    first: rs[0]!.pricingMs,
    count: k,
  };
}

export default async function queuePricingBench(): Promise<void> {
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build:cli failed: ${b.stderr}`);
  const m = SIDE * SIDE;
  console.log(
    `optimal LP on grid:${SIDE}x${SIDE} (eps 0.5, uniform prior, dist, model ${MODEL}), ${ROUNDS} decomposition rounds, ${m} outputs priced per round`,
  );
  const local = await run();
  const redis = await startRedis();
  let queued: Run;
  let fleet: PricingFleet | undefined;
  const workers: WorkerProc[] = [];
  try {
    workers.push(
      ...(await Promise.all(Array.from({ length: THREADS }, () => startWorker(redis.url, { concurrency: 1 })))),
    );
    fleet = await PricingFleet.connect(parseQueueUrl(redis.url));
    queued = await run(fleet);
  } finally {
    await fleet?.close();
    await Promise.all(workers.map((w) => w.kill('SIGTERM')));
    await redis.stop();
  }
  const L = perRound(local);
  const Q = perRound(queued);
  const rounds = queued.rounds.length;
  const same =
    local.rounds.length === rounds && Math.abs(local.objective - queued.objective) <= 1e-9 * Math.abs(local.objective);
  console.log('pricing                        master ms/round   pricing ms/round   first round pricing ms');
  console.log(
    `here, ${THREADS} threads                ${L.master.toFixed(0).padStart(12)}   ${L.pricing.toFixed(0).padStart(16)}   ${L.first.toFixed(0).padStart(22)}`,
  );
  console.log(
    `queue, ${THREADS} worker processes      ${Q.master.toFixed(0).padStart(12)}   ${Q.pricing.toFixed(0).padStart(16)}   ${Q.first.toFixed(0).padStart(22)}`,
  );
  const f = fleet!;
  const over = Q.pricing - L.pricing;
  // Rounds 2.. (the first one also opens the slices' models on the workers, which local pricing does before its
  // rounds).
  const later = f.rounds.slice(1);
  const direct = later.reduce((a, r) => a + r.wallMs - r.workerMs, 0) / later.length;
  console.log(
    `queue cost per round, measured in the queue run itself (master's wait minus the slowest slice's pricing on its worker, rounds 2-${f.rounds.length}): ${direct.toFixed(0)} ms = ${((100 * direct) / (Q.master + Q.pricing)).toFixed(1)}% of its round (${(Q.master + Q.pricing).toFixed(0)} ms)`,
  );
  console.log(
    `difference of the two runs' pricing per round (includes the machine's load moving between runs): ${over.toFixed(0)} ms = ${((100 * over) / (L.master + L.pricing)).toFixed(1)}% of a local round (${(L.master + L.pricing).toFixed(0)} ms), rounds 2-${rounds}`,
  );
  console.log(
    `pricing per output: ${((L.engine * THREADS) / m).toFixed(2)} thread-ms (engine ${L.engine.toFixed(0)} ms a round here, ${Q.engine.toFixed(0)} ms on the queue); per round on the master: ${L.master.toFixed(0)} ms master LP, ${(L.pricing - L.engine).toFixed(0)} ms on the columns (lift, lazy rows, reduced costs)`,
  );
  const [s1, r1] = queued.bytes[0]!;
  const [sk, rk] = queued.bytes[queued.bytes.length - 1]!;
  const k = queued.bytes.length - 1;
  const mb = (x: number): string => `${(x / 1e6).toFixed(2)} MB`;
  console.log(
    `bytes per round: first ${mb(s1)} sent (seed rows and costs) and ${mb(r1)} received; then ${mb((sk - s1) / k)} sent and ${mb((rk - r1) / k)} received (${((rk - r1) / k / (8 * m * m)).toFixed(2)} x the m n doubles of the columns)`,
  );
  console.log(
    `same path: ${same ? 'yes' : 'NO'} (objective ${queued.objective} vs ${local.objective}, bound ${queued.bound} vs ${local.bound}, ${rounds} vs ${local.rounds.length} rounds)`,
  );
}
