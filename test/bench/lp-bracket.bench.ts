/**
 * `npm run bench -- lp-bracket`: both sides of the exact optimum from one set of pairs (docs/lp.md, "A bracket
 * from one set of pairs"). A greedy delta-spanner's pairs with the true eps*d are a relaxation (its certified bound
 * is below the exact optimum); the same pairs at eps / delta_a, delta_a the dilation the spanner achieves, give a
 * private mechanism (above it). Both are the spanner model (factor e^{(eps'/delta) d} on its pairs), at
 * eps' = eps * delta and eps' = eps * delta / delta_a.
 *
 * The k x k grid of 0.5 km cells at ln 4 per km with the city prior resampled (as lp-scale's grid30), expected
 * distance, two threads. Baseline in the same run: the exact model solved to the same gap (small grids) and the
 * cheap candidates (the best of them is what a request returns without an LP).
 *
 * Environment: LP_BRACKET_SIDE (10), LP_BRACKET_DELTAS ('1.1,1.05,1.02'), LP_BRACKET_LIMIT seconds per solve (300),
 * LP_BRACKET_GAP (1e-5), LP_BRACKET_EXACT (1 up to 12 x 12, else 0).
 */
import { greedySpanner } from '../../src-worker/lp/model/greedy-spanner';
import { optimalMechanism, type OptimalMechanism } from '../../src-worker/lp/optimal/optimal-mechanism';
import type { WeightedEdges } from '../../src-worker/metric/domain';
import { gridDomain } from '../../src-worker/metric/grid';
import { weightedAllPairs } from '../../src-worker/metric/shortest-paths';
import { cheapCandidates } from '../../src-worker/jobs/cheap-candidates';
import { candidateLoss, cityPrior, resample } from './lp-scale.bench';

/** The spanner's achieved dilation: the largest (path length) / distance over all pairs. */
export function achievedDilation(n: number, e: WeightedEdges, distance: (i: number, j: number) => number): number {
  const paths = weightedAllPairs(n, e);
  let worst = 1;
  for (let s = 0; s < n; s++)
    for (let v = s + 1; v < n; v++) worst = Math.max(worst, paths[s * n + v]! / distance(s, v));
  return worst;
}

const sec = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export default async function (): Promise<void> {
  const city = cityPrior();
  if (!city) {
    console.log('lp-bracket: resources/data/city-population.csv not readable, skipped');
    return;
  }
  const k = Number(process.env.LP_BRACKET_SIDE ?? 10);
  const deltas = (process.env.LP_BRACKET_DELTAS ?? '1.1,1.05,1.02').split(',').map(Number);
  const limit = Number(process.env.LP_BRACKET_LIMIT ?? 300);
  const gap = Number(process.env.LP_BRACKET_GAP ?? 1e-5);
  const withExact = (process.env.LP_BRACKET_EXACT ?? (k <= 12 ? '1' : '0')) === '1';
  const n = k * k;
  const cell = 0.5;
  const eps = Math.log(4);
  const pi = resample(city, k);
  const g = gridDomain(k, k, cell);
  const distance = (i: number, j: number): number =>
    cell * Math.hypot(Math.floor(i / k) - Math.floor(j / k), (i % k) - (j % k));
  const solve = (epsilon: number, model: 'exact' | 'spanner', delta?: number): Promise<OptimalMechanism> =>
    optimalMechanism(g, epsilon, pi, 'dist', {
      model,
      ...(delta ? { delta } : {}),
      threads: 2,
      timeLimitSeconds: limit,
      targetGap: gap,
      relaxation: 'off',
    });
  console.log(
    `lp-bracket: ${k} x ${k}, ${cell} km cells, eps ln 4 per km, city prior, gap ${gap}, limit ${limit} s per solve`,
  );

  let exact: number | null = null;
  if (withExact) {
    const t0 = performance.now();
    const m = await solve(eps, 'exact');
    exact = m.lp.lpObjective ?? m.lp.objective;
    console.log(
      `  exact model (baseline): ${exact.toFixed(6)} km, bound ${m.lp.lowerBound.toFixed(6)}, ${m.lp.rounds} rounds, ${sec(performance.now() - t0)}`,
    );
  }
  // the cheap candidates (with their optimal remap): what a request returns without an LP
  for (const c of cheapCandidates(
    g,
    eps,
    pi,
    { kind: 'dist' },
    { signal: new AbortController().signal, progress: () => undefined },
  )) {
    if (!c.channel || !c.remap) continue;
    const loss = candidateLoss(c.channel, c.remap, g, pi);
    console.log(
      `  candidate ${c.construction}: ${loss.toFixed(6)} km${exact === null ? '' : ` (${(((loss - exact) / exact) * 100).toFixed(2)}% above the exact optimum)`}`,
    );
  }
  const rows: string[] = [];
  for (const delta of deltas) {
    const e = greedySpanner(n, distance, delta);
    const da = achievedDilation(n, e, distance);
    const t0 = performance.now();
    const below = await solve(eps * delta, 'spanner', delta);
    const t1 = performance.now();
    const above = await solve((eps * delta) / da, 'spanner', delta);
    const t2 = performance.now();
    const lo = below.lp.lowerBound;
    const hi = above.lp.lpObjective ?? above.lp.objective;
    const bracket = (hi - lo) / hi;
    const vsExact =
      exact === null
        ? ''
        : `; relaxation ${(((exact - lo) / exact) * 100).toFixed(2)}% below the exact optimum, private ${(((hi - exact) / exact) * 100).toFixed(2)}% above`;
    console.log(
      `  delta ${delta}: ${e.from.length} pairs, achieved ${da.toFixed(4)}; relaxation bound ${lo.toFixed(6)} (${sec(t1 - t0)}, ${below.lp.rounds} rounds, ${below.lp.stoppedBy}); ` +
        `private at eps/${da.toFixed(4)} ${hi.toFixed(6)} (${sec(t2 - t1)}, ${above.lp.stoppedBy}); bracket ${(bracket * 100).toFixed(2)}%${vsExact}`,
    );
    rows.push(
      `| ${delta} | ${e.from.length} | ${da.toFixed(4)} | ${lo.toFixed(6)} (${sec(t1 - t0)}) | ${hi.toFixed(6)} (${sec(t2 - t1)}) | ${(bracket * 100).toFixed(2)}% |`,
    );
  }
  console.log(
    '\n| asked delta | pairs | achieved | relaxation (below) | at eps/achieved (private) | bracket |\n|---|---|---|---|---|---|',
  );
  for (const r of rows) console.log(r);
}
