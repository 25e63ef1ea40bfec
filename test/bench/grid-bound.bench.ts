/**
 * `npm run bench -- grid-bound`: the certified bound without a master (lp/optimal/bound-without-master.ts) on grids
 * over the decomposition's limits, with the cheap candidates (planar Laplace, tight constraints, exponential, each
 * with the optimal remap: what such a request returns) as the baseline of the same run. Grids of 0.5 km cells at
 * level ln 4 within 1 km (eps = ln 4 per km), the city prior resampled (lp-scale.bench.ts). Printed per case: the
 * candidates' losses and time, the coarse solve (grid, time, gap), the pricing round (outputs priced, time,
 * threads), the bound, and the certified gap of the best candidate. Environment: GRID_BOUND_CASES (default
 * 'grid50,grid100'), GRID_BOUND_THREADS (default 2), GRID_BOUND_LIMIT (seconds for the bound, default 600).
 */
import { loadavg } from 'node:os';
import { Deadline } from '../../src-worker/base/deadline';
import { cheapCandidates } from '../../src-worker/jobs/cheap-candidates';
import { boundWithoutMaster } from '../../src-worker/lp/optimal/bound-without-master';
import { gridDomain } from '../../src-worker/metric/grid';
import { candidateLoss, cityPrior, resample } from './lp-scale.bench';

const CASES = [
  { name: 'grid50', side: 50 },
  { name: 'grid100', side: 100 },
];

export default async function (): Promise<void> {
  const city = cityPrior();
  if (!city) return console.log('grid-bound: resources/data/city-population.csv not readable, skipped');
  const wanted = (process.env.GRID_BOUND_CASES ?? 'grid50,grid100').split(',');
  const threads = Number(process.env.GRID_BOUND_THREADS ?? 2);
  const limit = Number(process.env.GRID_BOUND_LIMIT ?? 600);
  const eps = Math.log(4);
  console.log(`-- bound without a master: ${threads} threads, load ${loadavg()[0]!.toFixed(1)} --`);
  for (const c of CASES) {
    if (!wanted.includes(c.name)) continue;
    const g = gridDomain(c.side, c.side, 0.5);
    const pi = resample(city, c.side);
    const t0 = performance.now();
    const candidates = cheapCandidates(
      g,
      eps,
      pi,
      { kind: 'dist' },
      { signal: new AbortController().signal, progress: () => undefined },
    );
    const losses = candidates.map((k) => ({
      name: k.construction,
      loss: k.channel && k.remap ? candidateLoss(k.channel, k.remap, g, pi) : Infinity,
    }));
    const tc = (performance.now() - t0) / 1000;
    const best = losses.reduce((a, b) => (b.loss < a.loss ? b : a));
    console.log(
      `${c.name}: candidates in ${tc.toFixed(1)} s: ${losses.map((l) => `${l.name} ${l.loss.toFixed(4)} km`).join(', ')}`,
    );
    const b = await boundWithoutMaster(g, eps, pi, 'dist', {
      threads,
      deadline: Deadline.after(limit),
      progress: () => undefined,
    });
    if (!b) {
      console.log(`${c.name}: no bound`);
      continue;
    }
    const cs = b.coarseStart;
    const gap = (best.loss - b.bound) / best.loss;
    console.log(
      `${c.name}: coarse ${cs.rows}x${cs.cols} (${cs.cellSize} km) in ${(cs.timeMs / 1000).toFixed(1)} s, gap ${cs.gap.toExponential(1)}; ` +
        `pricing ${b.priced}/${b.outputs} outputs in ${(b.timeMs / 1000).toFixed(1)} s on ${b.threads} threads ` +
        `(${b.pivots} pivots, ${b.capped} capped); bound ${b.bound.toFixed(4)} km; ${best.name} ${best.loss.toFixed(4)} km ` +
        `certified within ${(gap * 100).toFixed(2)}%`,
    );
  }
}
