/**
 * `npm run bench -- exact-pricing`: one pricing round of the column decomposition, exact (exact-pricing.ts)
 * against HiGHS over the lazy pricing rows (the baseline), on one core, inside the real solve: the exact model
 * of a grid with the city prior, eps per km as named, decomposed from lambda = 0 (no coarse start, no relaxation
 * first) for a fixed number of rounds, each round's pricing time read from the solve's own round records.
 * Printed per case and method: the first (cold) round, the median of the later (warm) rounds, pivots or simplex
 * iterations, and the certified bound after the last round (exact pricing bounds the exact model every round;
 * HiGHS' lazy rows bound a relaxation of it). Environment: EXACT_PRICING_CASES (default 'grid20-0.5,grid30'),
 * EXACT_PRICING_ROUNDS (default 6).
 */
import { loadavg } from 'node:os';
import { optimalMechanism } from '../../src-worker/lp/optimal/optimal-mechanism';
import { gridDomain } from '../../src-worker/metric/grid';
import type { DecompositionIteration } from '../../src-worker/lp/decomposition/column-decomposition';
import { cityPrior, resample } from './lp-scale.bench';

interface Case {
  name: string;
  side: number;
  cell: number;
  eps: number;
}

const CASES: Case[] = [
  { name: 'grid10', side: 10, cell: 1, eps: 0.5 },
  { name: 'grid20-0.5', side: 20, cell: 1, eps: 0.5 },
  { name: 'grid20-1', side: 20, cell: 1, eps: 1 },
  { name: 'grid30', side: 30, cell: 0.5, eps: Math.log(4) },
];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
};

export default async function (): Promise<void> {
  const city = cityPrior();
  if (!city) return console.log('exact-pricing: resources/data/city-population.csv not readable, skipped');
  const wanted = (process.env.EXACT_PRICING_CASES ?? 'grid20-0.5,grid30').split(',');
  const rounds = Number(process.env.EXACT_PRICING_ROUNDS ?? 6);
  console.log(`-- pricing rounds on one core, ${rounds} rounds from lambda = 0; load ${loadavg()[0]!.toFixed(1)} --`);
  for (const c of CASES) {
    if (!wanted.includes(c.name)) continue;
    const g = gridDomain(c.side, c.side, c.cell);
    const pi = c.side === 20 ? city : resample(city, c.side);
    const result: Record<string, { cold: number; warm: number; bound: number; iterations: number }> = {};
    for (const exact of [true, false]) {
      const records: DecompositionIteration[] = [];
      const m = await optimalMechanism(g, c.eps, pi, 'dist', {
        model: 'exact',
        threads: 1,
        coarseStart: false,
        decompositionOptions: { exactPricing: exact, maxIterations: rounds, onRound: (r) => records.push(r) },
      });
      const priced = records.filter((r) => r.exactPricing);
      const per = priced.map((r, k, all) => r.pricingMs - (k > 0 ? all[k - 1]!.pricingMs : 0));
      const masterPer = records.map((r, k, all) => r.masterMs - (k > 0 ? all[k - 1]!.masterMs : 0));
      const s = m.facts.solve.decomposition!;
      result[exact ? 'exact' : 'highs'] = {
        cold: per[0] ?? NaN,
        warm: median(per.slice(1)),
        bound: m.lp.lowerBound,
        iterations: Number(m.facts.solve.iterations ?? 0),
      };
      console.log(
        `${c.name} (${c.side}x${c.side}, ${c.cell} km, eps ${c.eps.toFixed(4)}/km), ${exact ? 'exact pricing' : 'HiGHS lazy-row pricing (baseline)'}: first round ${(per[0]! / 1000).toFixed(2)} s, later rounds median ${(median(per.slice(1)) / 1000).toFixed(2)} s (${per.length} rounds; ${Number(m.facts.solve.iterations ?? 0)} pivots or iterations in all), master per round median ${(median(masterPer) / 1000).toFixed(2)} s (first ${((masterPer[0] ?? NaN) / 1000).toFixed(2)} s), bound after them ${m.lp.lowerBound.toFixed(6)}, objective ${m.lp.objective.toFixed(6)}, pricing rows ${s.pricingRows}`,
      );
    }
    const e = result['exact']!;
    const h = result['highs']!;
    console.log(
      `${c.name}: HiGHS / exact time ratio, first round ${(h.cold / e.cold).toFixed(1)}, later rounds ${(h.warm / e.warm).toFixed(1)}; bound ${e.bound.toFixed(6)} against ${h.bound.toFixed(6)}`,
    );
  }
}
