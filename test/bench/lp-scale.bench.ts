/**
 * `npm run bench -- lp-scale`: the optimal-mechanism LP at city scale,
 * through the typed API (optimalMechanism with `model`): time to a certified
 * 1% gap and to the target gap (1e-6), with 1 and 2 pricing threads.
 *
 *  - the 20 x 20 city of the geo example (population prior from
 *    resources/data/city-population.csv, 1 km cells, expected distance) at
 *    eps 1 and 0.5, spanner (delta 1.1) and exact (all pairs);
 *  - a 30 x 30 grid of 0.5 km cells at level ln 4 within 1 km (eps = ln 4 per km),
 *    the city prior resampled to 30 x 30;
 *  - 50 x 50 (0.5 km cells, same level), the city prior resampled.
 *
 *  - grid10-0.5: a 10 x 10 grid of 1 km cells, the city prior resampled, eps 0.5
 *    (small and quick; before the start channel it stalled at an 86% gap).
 *  - grid30-auto, grid50-auto: the 30 x 30 and 50 x 50 grids with the default model (exact), what a user gets.
 *
 * Every solve is the optimal request as a job makes it: the cheap candidates (planar Laplace, tight constraints,
 * exponential, each with the optimal remap; jobs/cheap-candidates.ts) first, timed and printed as the baseline of
 * the same run, then the LP seeded with the cheapest; the line says which is returned, its gap to the certified
 * bound on the exact optimum (when the run has one), and when the LP's best mechanism first beat the candidates.
 *
 * Environment: LP_SCALE = comma list of cases to run (default 'city-spanner-1,city-exact-1';
 * all: grid10-0.5, city-spanner-1, city-spanner-0.5, city-exact-1, city-exact-0.5, grid30, grid50),
 * LP_SCALE_THREADS = '1,2' (default), LP_SCALE_LIMIT = seconds per solve (default 600),
 * LP_SCALE_GAP = target gap (default 1e-6), LP_SCALE_BASELINE = cases also solved
 * with the baseline settings (default: the first case run; 'none' for none).
 * LP_SCALE_QUICK=1: every case, 1 thread, 45 s per solve (a few minutes in all).
 * Each line: model, threads, time to 1%, time to the target or the limit, rounds,
 * objective, certified bound, gap, exact lower bound, and the 2-thread / 1-thread time ratio;
 * for baseline cases the same with baselineFor(case) (the settings before the current ones) and the ratio of times and
 * rounds; at the end a Markdown table of every run (for docs/lp.md, "Measurements").
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { MechError } from '../../src-shared/errors';
import { Deadline } from '../../src-worker/base/deadline';
import type { DecompositionOptions } from '../../src-worker/lp/decomposition/column-decomposition';
import { checkPrivacy } from '../../src-worker/check/privacy-check';
import {
  type LpPrivacyModel,
  type OptimalLpResult,
  optimalMechanism,
} from '../../src-worker/lp/optimal/optimal-mechanism';
import { gridDomain } from '../../src-worker/metric/grid';
import type { Domain } from '../../src-worker/metric/domain';
import type { RowSource } from '../../src-worker/mechanism/channel';
import { cheapCandidates } from '../../src-worker/jobs/cheap-candidates';

export function cityPrior(): Float64Array | null {
  try {
    const nums = readFileSync(new URL('../../resources/data/city-population.csv', import.meta.url), 'utf8')
      .split(/[\s,]+/)
      .filter((t) => t !== '')
      .map(Number)
      .filter((x) => Number.isFinite(x));
    const w = Float64Array.from(nums.slice(-400));
    return w.length === 400 ? normalise(w) : null;
  } catch {
    return null;
  }
}

function normalise(w: Float64Array): Float64Array {
  let s = 0;
  for (const v of w) s += v;
  return w.map((v) => v / s);
}

/** Nearest-neighbour resampling of the 20 x 20 prior to k x k (with a floor so no cell is empty). */
export function resample(p: Float64Array, k: number): Float64Array {
  const out = new Float64Array(k * k);
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) {
      const si = Math.min(19, Math.floor(((i + 0.5) * 20) / k));
      const sj = Math.min(19, Math.floor(((j + 0.5) * 20) / k));
      out[i * k + j] = p[si * 20 + sj]! + 1e-4;
    }
  return normalise(out);
}

/** Expected distance of a candidate after its remap (output y reported as remap[y]). */
export function candidateLoss(ch: RowSource, remap: Int32Array, g: Domain, pi: Float64Array): number {
  const row = new Float64Array(ch.cols);
  let v = 0;
  for (let x = 0; x < ch.rows; x++) {
    ch.row(x, row);
    for (let y = 0; y < row.length; y++) if (row[y]! > 0) v += pi[x]! * row[y]! * g.distance(remap[y]!, x);
  }
  return v;
}

function coarse(c: OptimalLpResult['coarseStart']): string {
  if (!c) return 'no coarse start';
  return `coarse start ${c.rows}x${c.cols} (${c.cellSize} km, ${c.levels} level(s) below) ${c.objective.toFixed(4)} km, gap ${c.gap.toExponential(1)}, ${(c.timeMs / 1000).toFixed(1)} s`;
}

interface Case {
  name: string;
  side: number;
  cell: number;
  eps: number;
  model: LpPrivacyModel | 'auto';
  prior: (city: Float64Array) => Float64Array;
}

const CASES: Case[] = [
  { name: 'grid10-0.5', side: 10, cell: 1, eps: 0.5, model: 'spanner', prior: (c) => resample(c, 10) },
  { name: 'city-spanner-1', side: 20, cell: 1, eps: 1, model: 'spanner', prior: (c) => c },
  { name: 'city-spanner-0.5', side: 20, cell: 1, eps: 0.5, model: 'spanner', prior: (c) => c },
  { name: 'city-exact-1', side: 20, cell: 1, eps: 1, model: 'exact', prior: (c) => c },
  { name: 'city-exact-0.5', side: 20, cell: 1, eps: 0.5, model: 'exact', prior: (c) => c },
  { name: 'grid30', side: 30, cell: 0.5, eps: Math.log(4), model: 'spanner', prior: (c) => resample(c, 30) },
  { name: 'grid50', side: 50, cell: 0.5, eps: Math.log(4), model: 'spanner', prior: (c) => resample(c, 50) },
  { name: 'grid30-auto', side: 30, cell: 0.5, eps: Math.log(4), model: 'auto', prior: (c) => resample(c, 30) },
  { name: 'grid50-auto', side: 50, cell: 0.5, eps: Math.log(4), model: 'auto', prior: (c) => resample(c, 50) },
];

/**
 * The baseline: the settings before the current ones. Spanner models: duals started at 0 and no remapped incumbent.
 * Exact: the HiGHS pricing LPs over lazy rows instead of exact pricing.
 */
function baselineFor(c: Case): { options: Baseline; name: string } {
  if (c.model !== 'spanner')
    return { options: { decompositionOptions: { exactPricing: false } }, name: 'HiGHS pricing over lazy rows' };
  return {
    options: { coarseStart: false, decompositionOptions: { remap: false } },
    name: 'no coarse start, no remapped incumbent',
  };
}

interface Baseline {
  coarseStart?: boolean;
  decompositionOptions?: DecompositionOptions;
}

/** One row of the summary table printed at the end (Markdown, for docs/lp.md, "Measurements"). */
interface SummaryRow {
  run: string;
  to1: string;
  toTarget: string;
  stop: string;
  rounds: number;
  objective: string;
  bound: string;
  gap: string;
}

export default async function (): Promise<void> {
  const city = cityPrior();
  if (!city) {
    console.log('lp-scale: resources/data/city-population.csv not readable, skipped');
    return;
  }
  const quick = process.env.LP_SCALE_QUICK === '1';
  const wanted = (process.env.LP_SCALE ?? (quick ? 'all' : 'city-spanner-1,city-exact-1'))
    .split(',')
    .map((s) => s.trim());
  const threadList = (process.env.LP_SCALE_THREADS ?? (quick ? '1' : '1,2')).split(',').map(Number);
  const limit = Number(process.env.LP_SCALE_LIMIT ?? (quick ? 45 : 600));
  const firstCase = CASES.find((c) => wanted.includes(c.name) || wanted.includes('all'))?.name;
  const baselineCases = (process.env.LP_SCALE_BASELINE ?? firstCase ?? '').split(',').map((s) => s.trim());
  const target = Number(process.env.LP_SCALE_GAP ?? 1e-6);
  const summary: SummaryRow[] = [];
  console.log(
    `-- optimal mechanism LP at scale: time limit ${limit} s per solve, target gap ${target}; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)} (timings inflate under load) --`,
  );
  for (const c of CASES) {
    if (!wanted.includes(c.name) && !wanted.includes('all')) continue;
    const g = gridDomain(c.side, c.side, c.cell);
    const pi = c.prior(city);
    const times: number[] = [];
    const gaps: number[] = [];
    const solve = async (
      threads: number,
      variant: string,
      extra?: Baseline,
    ): Promise<{ ms: number; rounds: number; gap: number }> => {
      let to1 = NaN;
      let beat = NaN;
      const t0 = performance.now();
      try {
        const candidates = cheapCandidates(
          g,
          c.eps,
          pi,
          { kind: 'dist' },
          { signal: new AbortController().signal, progress: () => undefined },
        );
        const bestCandidate = Math.min(
          ...candidates.map((k) => (k.channel && k.remap ? candidateLoss(k.channel, k.remap, g, pi) : Infinity)),
        );
        const m = await optimalMechanism(g, c.eps, pi, 'dist', {
          model: c.model,
          threads,
          timeLimitSeconds: limit,
          targetGap: target,
          candidates,
          deadline: Deadline.after(limit, t0),
          ...extra,
          onLpProgress: (p) => {
            if (Number.isNaN(to1) && p.gap <= 0.01) to1 = p.elapsedMs;
            if (Number.isNaN(beat) && p.objective < bestCandidate) beat = p.elapsedMs;
          },
        });
        const ms = performance.now() - t0;
        const lp = m.lp;
        const cands = lp.candidates.map(
          (k) =>
            `${k.construction} ${k.expectedLoss === null ? 'n/a' : k.expectedLoss.toFixed(6)} (${(k.timeMs / 1000).toFixed(2)} s)`,
        );
        const cheapest = Math.min(...lp.candidates.map((k) => k.expectedLoss ?? Infinity));
        console.log(
          `${c.name}: baseline, the cheap candidates with their remap: ${cands.join(', ')}; returned ${lp.chosen} ${lp.objective.toFixed(6)} km, ${((lp.objective / cheapest - 1) * 100).toFixed(2)}% against the cheapest; the LP's own ${lp.lpObjective.toFixed(6)} km${Number.isNaN(beat) ? ', never below the cheapest' : `, below the cheapest from ${(beat / 1000).toFixed(1)} s`}; gap ${lp.gap.toExponential(2)} to ${lp.gapBasis === 'exact' ? 'the best possible (certified)' : "the model's optimum"}`,
        );
        const priv = c.side <= 30 ? checkPrivacy(m.channel, g, c.eps).passes : 'not checked';
        const reached = lp.gap <= target ? `${target} gap at ${(ms / 1000).toFixed(1)} s` : `${target} gap not reached`;
        console.log(
          `${c.name} (${c.side}x${c.side}, ${c.cell} km cells, eps ${c.eps.toFixed(4)}/km), ${lp.model}, ${threads} thread(s)${variant}: 1% gap ${Number.isNaN(to1) ? 'not reached' : `at ${(to1 / 1000).toFixed(1)} s`}, ${reached}; stopped (${lp.stoppedBy}) at ${(ms / 1000).toFixed(1)} s after ${lp.rounds} rounds; objective ${lp.objective.toFixed(6)} km, bound ${lp.lowerBound.toFixed(6)}, gap ${lp.gap.toExponential(2)}, exact lower bound ${lp.exactLowerBound === null ? '-' : lp.exactLowerBound.toFixed(6)}; master ${(Number(m.facts.solve.decomposition?.masterMs) / 1000).toFixed(1)} s, pricing ${(Number(m.facts.solve.decomposition?.pricingMs) / 1000).toFixed(1)} s, pricing rows ${m.facts.solve.decomposition?.pricingRows}, columns ${m.facts.solve.decomposition?.columns}; private ${priv}; ${coarse(lp.coarseStart)}`,
        );
        summary.push({
          run: `${c.name} ${lp.model}, ${threads} thread(s)${variant ? ' (baseline)' : ''}`,
          to1: Number.isNaN(to1) ? '-' : `${(to1 / 1000).toFixed(1)} s`,
          toTarget: lp.gap <= target ? `${(ms / 1000).toFixed(1)} s` : '-',
          stop: `${lp.stoppedBy} at ${(ms / 1000).toFixed(1)} s`,
          rounds: lp.rounds,
          objective: lp.objective.toFixed(6),
          bound: lp.lowerBound.toFixed(6),
          gap: lp.gap.toExponential(2),
        });
        return { ms, rounds: lp.rounds, gap: lp.gap };
      } catch (e) {
        if (!(e instanceof MechError)) throw e;
        const ms = performance.now() - t0;
        console.log(
          `${c.name} (${c.side}x${c.side}), ${threads} thread(s)${variant}: refused after ${(ms / 1000).toFixed(1)} s: ${e.code}: ${e.message.slice(0, 160)}`,
        );
        summary.push({
          run: `${c.name}, ${threads} thread(s)${variant ? ' (baseline)' : ''}`,
          to1: '-',
          toTarget: '-',
          stop: `refused (${e.code}) at ${(ms / 1000).toFixed(1)} s`,
          rounds: 0,
          objective: '-',
          bound: '-',
          gap: '-',
        });
        return { ms: NaN, rounds: NaN, gap: NaN };
      }
    };
    for (const threads of threadList) {
      const r = await solve(threads, '');
      times.push(r.ms);
      gaps.push(r.gap);
    }
    if (times.length === 2)
      console.log(
        `${c.name}: ${threadList[1]} threads / ${threadList[0]} thread time ratio ${(times[1]! / times[0]!).toFixed(2)}`,
      );
    if (baselineCases.includes(c.name) || baselineCases.includes('all')) {
      const now = { ms: times[0]!, gap: gaps[0]! };
      const baseline = baselineFor(c);
      const base = await solve(threadList[0]!, ` [baseline: ${baseline.name}]`, baseline.options);
      console.log(
        `${c.name}: current / baseline time ratio ${(now.ms / base.ms).toFixed(2)} (both ${threadList[0]} thread(s), same run; a baseline stopped early by a stall is not faster, see its gap); certified gap at the end ${now.gap.toExponential(2)} against ${base.gap.toExponential(2)}`,
      );
    }
  }
  console.log(
    `\n| run | 1% gap at | ${target} at | stopped | rounds | objective (km) | bound | gap |\n|---|---|---|---|---|---|---|---|`,
  );
  for (const r of summary)
    console.log(
      `| ${r.run} | ${r.to1} | ${r.toTarget} | ${r.stop} | ${r.rounds} | ${r.objective} | ${r.bound} | ${r.gap} |`,
    );
}
