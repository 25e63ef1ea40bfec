/**
 * LP bench (SPEC §2 optimal mechanism on Euclidean grids, expected-distance
 * loss): solver choice, all-pairs vs spanner LP (objective and time, ratio),
 * and the largest grid whose spanner LP solves within 60 s. Bounded: the
 * all-pairs sweep stops once a solve passes 30 s, the spanner sweep at the
 * first grid over 60 s (HiGHS time limit), so the whole run takes a few minutes.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { highsRuntime } from '../../src-worker/lp/solver/highs-runtime';
import { optimalMechanism, type OptimalMechanismOptions } from '../../src-worker/lp/optimal/optimal-mechanism';
import { uniformPrior } from '../../src-worker/measure/prior';
import { gridDomain } from '../../src-worker/metric/grid';
import { MechError } from '../../src-shared/errors';

interface Run {
  ok: boolean;
  rounds?: number;
  generated?: number;
  full?: number;
  objective: number;
  ms: number;
  vars: number;
  rows: number;
  note: string;
}

async function run(R: number, eps: number, prior: Float64Array, opts: OptimalMechanismOptions, step = 1): Promise<Run> {
  const g = gridDomain(R, R, step);
  const t0 = performance.now();
  try {
    const m = await optimalMechanism(g, eps, prior, 'dist', opts);
    return {
      ok: true,
      objective: m.facts.solve.objective,
      ms: performance.now() - t0,
      vars: m.facts.solve.reducedVariables,
      rows: m.facts.solve.reducedConstraints,
      note: `symmetries ${m.facts.solve.symmetries}, pairs ${m.facts.solve.constrainedPairs}`,
      rounds: (m.facts.solve.generation?.rounds ?? m.facts.solve.decomposition?.rounds) as number | undefined,
      generated: m.facts.solve.generation?.privacyRows,
      full: m.facts.solve.generation?.fullPrivacyRows,
    };
  } catch (e) {
    if (e instanceof MechError)
      return {
        ok: false,
        objective: NaN,
        ms: performance.now() - t0,
        vars: 0,
        rows: 0,
        note: `${e.code}: ${e.message.slice(0, 90)}`,
      };
    throw e;
  }
}

/** The whole model as written (no row generation, no orbit reduction), with the given constraints and limits. */
function runFull(R: number, eps: number, prior: Float64Array, opts: OptimalMechanismOptions): Promise<Run> {
  return run(R, eps, prior, { generation: 'off', symmetry: 'off', ...opts });
}

const f = (x: number, d = 0): string => (Number.isFinite(x) ? x.toFixed(d) : '-');
/** A fixed non-uniform prior: weight 1 + (r + 2c) mod 5 (no grid symmetry). */
function skewPrior(R: number): Float64Array {
  const p = new Float64Array(R * R);
  let s = 0;
  for (let i = 0; i < R * R; i++) s += p[i] = 1 + ((Math.floor(i / R) + 2 * (i % R)) % 5);
  for (let i = 0; i < R * R; i++) p[i] = p[i]! / s;
  return p;
}

export default async function lpBench(): Promise<void> {
  const eps = 1;
  // LP_BENCH=generation / decomposition runs only that section.
  if (process.env.LP_BENCH === 'decomposition') {
    await decompositionBench(eps);
    return;
  }
  if (process.env.LP_BENCH === 'generation') {
    await generationBench(eps);
    return;
  }
  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (timings inflate with load)`,
  );
  const t0 = performance.now();
  await highsRuntime();
  console.log(`HiGHS runtime load: ${f(performance.now() - t0, 1)} ms`);

  console.log('\n-- solver choice (spanner LP, delta 1.1, eps 1, expected distance) --');
  console.log('grid   prior    vars   rows      simplex ms  dual-simplex ms  ipm ms   ipm/simplex');
  for (const [R, prior, name] of [
    [6, uniformPrior(36), 'uniform'],
    [8, skewPrior(8), 'skewed'],
    [12, uniformPrior(144), 'uniform'],
  ] as const) {
    const s = await run(R, eps, prior, { solver: 'simplex', timeLimitSeconds: 60 });
    const d = await run(R, eps, prior, { solver: 'simplex', formulation: 'dual', timeLimitSeconds: 60 });
    const i = await run(R, eps, prior, { solver: 'ipm', timeLimitSeconds: 60 });
    const agree = Math.max(Math.abs(s.objective - i.objective), Math.abs(d.objective - i.objective));
    console.log(
      `${R}x${R}`.padEnd(7) +
        name.padEnd(9) +
        f(i.vars).padStart(6) +
        f(i.rows).padStart(8) +
        f(s.ms).padStart(13) +
        f(d.ms).padStart(16) +
        f(i.ms).padStart(9) +
        f(i.ms / s.ms, 2).padStart(12) +
        `   (objectives agree to ${agree.toExponential(1)})`,
    );
  }

  console.log('\n-- all-pairs (exact) vs spanner LP, uniform prior (orbit-reduced), default solver --');
  console.log(
    'grid    all-pairs obj  ms      spanner obj    ms     obj ratio  time ratio  dilation bound (all-pairs at eps/1.1)',
  );
  let allPairsOn = true;
  for (const R of [5, 6, 7, 8, 9, 10]) {
    const u = uniformPrior(R * R);
    const sp = await run(R, eps, u, { timeLimitSeconds: 60 });
    let ap: Run | undefined;
    let dil: Run | undefined;
    if (allPairsOn) {
      ap = await run(R, eps, u, { constraints: 'all-pairs', timeLimitSeconds: 60 });
      if (R <= 7) dil = await run(R, eps / 1.1, u, { constraints: 'all-pairs', timeLimitSeconds: 60 });
      if (!ap.ok || ap.ms > 30_000) allPairsOn = false;
    }
    console.log(
      `${R}x${R}`.padEnd(8) +
        (ap ? f(ap.objective, 6).padStart(12) + f(ap.ms).padStart(8) : '   (skipped)        ') +
        f(sp.objective, 6).padStart(14) +
        f(sp.ms).padStart(8) +
        (ap?.ok ? f(sp.objective / ap.objective, 4).padStart(11) + f(sp.ms / ap.ms, 3).padStart(12) : ''.padStart(23)) +
        (dil?.ok ? f(dil.objective, 6).padStart(14) : '') +
        (ap && !ap.ok ? `  all-pairs: ${ap.note}` : ''),
    );
  }

  console.log('\n-- without symmetry (fixed non-uniform prior), spanner LP --');
  for (const R of [6, 8, 10]) {
    const r = await run(R, eps, skewPrior(R), { timeLimitSeconds: 60 });
    console.log(
      `${R}x${R}: ${r.ok ? `objective ${f(r.objective, 6)}, ${f(r.ms)} ms, ${r.vars} variables, ${r.rows} rows` : r.note}`,
    );
  }

  console.log(
    '\n-- largest grid whose spanner LP solves within 60 s (uniform prior, orbit-reduced, default solver) --',
  );
  let largest = 0;
  for (const R of [12, 14, 16, 18, 20, 24]) {
    const r = await run(R, eps, uniformPrior(R * R), { timeLimitSeconds: 60 });
    console.log(
      `${R}x${R} (${R * R} locations): ${r.ok ? `objective ${f(r.objective, 6)}, ${f(r.ms)} ms, ${r.vars} variables, ${r.rows} rows, ${r.note}` : `not solved: ${r.note}`}`,
    );
    if (!r.ok || r.ms > 60_000) break;
    largest = R;
  }
  console.log(
    `largest spanner grid within 60 s: ${largest}x${largest} (${largest * largest} locations; goal 20x20 = 400)`,
  );

  console.log('\n-- interior point without crossover (crossover: false) vs with, spanner LP --');
  for (const [R, prior, name] of [
    [10, skewPrior(10), 'skewed'],
    [largest || 16, uniformPrior((largest || 16) ** 2), 'uniform'],
  ] as const) {
    const a = await run(R, eps, prior, { solver: 'ipm', timeLimitSeconds: 90 });
    const b = await run(R, eps, prior, { solver: 'ipm', crossover: false, timeLimitSeconds: 90 });
    console.log(
      `${R}x${R} ${name}: with crossover ${f(a.ms)} ms (objective ${f(a.objective, 9)}), without ${f(b.ms)} ms (objective ${f(b.objective, 9)}), time ratio ${f(b.ms / a.ms, 2)}, relative gap ${((b.objective - a.objective) / a.objective).toExponential(1)}`,
    );
  }
  await generationBench(eps);
  await decompositionBench(eps);
  const h = await highsRuntime();
  console.log(`HiGHS heap at the end: ${f(h.memoryBytes / 2 ** 20)} MiB`);
}

/** The city prior when the city runs are wanted (LP_BENCH_CITY != 0) and readable; else null, saying why. */
function benchCity(): Float64Array | null {
  if (process.env.LP_BENCH_CITY === '0') {
    console.log('20x20 city: skipped (LP_BENCH_CITY=0)');
    return null;
  }
  const city = cityPrior();
  if (!city) console.log('20x20 city: resources/data/city-population.csv not readable, skipped');
  return city;
}

/** The 20 x 20 city prior of the geo example (resources/data/city-population.csv, 20 rows of 20 weights), or null. */
function cityPrior(): Float64Array | null {
  try {
    const url = new URL('../../resources/data/city-population.csv', import.meta.url);
    const nums = readFileSync(url, 'utf8')
      .split(/[\s,]+/)
      .filter((t) => t !== '')
      .map(Number)
      .filter((x) => Number.isFinite(x));
    const w = Float64Array.from(nums.slice(-400));
    if (w.length !== 400) return null;
    let s = 0;
    for (const v of w) s += v;
    return w.map((v) => v / s);
  } catch {
    return null;
  }
}

/**
 * Constraint generation (lp/channel/constraint-generation.ts) against the full model,
 * non-uniform prior (no symmetry to exploit): time, rounds, privacy rows in
 * the last model vs the full model, objective. Bounded by HiGHS time limits
 * (cumulative over the warm re-solves of one model).
 */
async function generationBench(eps: number): Promise<void> {
  console.log(
    '\n-- constraint generation vs full model, skewed prior, eps 1, expected distance (time limit 120 s per solve, 300 s for the 20x20 city) --',
  );
  console.log(
    'grid   model      full ms   full obj       gen ms   gen obj        rounds  rows gen/full       time ratio  rel. gap',
  );
  const line = (R: number, model: string, a: Run | undefined, b: Run): void => {
    const gap = a?.ok && b.ok ? Math.abs(b.objective - a.objective) / a.objective : NaN;
    console.log(
      `${R}x${R}`.padEnd(7) +
        model.padEnd(10) +
        (a
          ? a.ok
            ? f(a.ms).padStart(8) + f(a.objective, 9).padStart(13)
            : `  (${a.note.slice(0, 40)})`.padEnd(21)
          : '   (not run)         ') +
        (b.ok
          ? f(b.ms).padStart(10) +
            f(b.objective, 9).padStart(13) +
            f(b.rounds ?? NaN).padStart(8) +
            `  ${b.generated}/${b.full}`.padEnd(18)
          : `  (${b.note.slice(0, 60)})`) +
        (a?.ok && b.ok ? f(b.ms / a.ms, 2).padStart(9) + `  ${Number.isFinite(gap) ? gap.toExponential(1) : '-'}` : ''),
    );
  };
  let exactOn = true;
  for (const R of [8, 10, 12]) {
    const pi = skewPrior(R);
    const full = await runFull(R, eps, pi, { constraints: 'spanner', timeLimitSeconds: 120 });
    const gen = await run(R, eps, pi, { constraints: 'spanner', generation: 'on', timeLimitSeconds: 120 });
    line(R, 'spanner', full, gen);
    if (exactOn) {
      // The full all-pairs model only up to 8x8 (10x10: ~1M rows, minutes).
      const fullX = R <= 8 ? await runFull(R, eps, pi, { constraints: 'all-pairs', timeLimitSeconds: 120 }) : undefined;
      const genX = await run(R, eps, pi, { constraints: 'exact', generation: 'on', timeLimitSeconds: 120 });
      line(R, 'exact', fullX, genX);
      if (!genX.ok || genX.ms > 60_000) exactOn = false;
      if (genX.ok && gen.ok)
        console.log(
          `       exact optimum ${f(genX.objective, 6)} vs spanner ${f(gen.objective, 6)}: the spanner costs ${f((gen.objective / genX.objective - 1) * 100, 2)}% more`,
        );
    }
  }
  const city = benchCity();
  if (!city) return;
  const full = await runFull(20, eps, city, { constraints: 'spanner', decomposition: 'off' });
  console.log(
    `20x20 city, full spanner model: ${full.ok ? `${f(full.ms)} ms, objective ${f(full.objective, 6)}` : full.note}`,
  );
  const gen = await run(20, eps, city, { constraints: 'spanner', generation: 'on', timeLimitSeconds: 300 });
  line(20, 'spanner', undefined, gen);
}

/**
 * Decomposition by output column (lp/decomposition/column-decomposition.ts) against the
 * full model on the same LPs (spanner, skewed prior, expected distance), then
 * the 20 x 20 city, whose full model does not fit the solver heap.
 */
async function decompositionBench(eps: number): Promise<void> {
  console.log(
    `\n-- decomposition by output column vs full model, skewed prior, eps ${eps}, spanner, expected distance --`,
  );
  console.log('grid   full ms   full obj       dec ms   dec obj        rounds  time ratio  rel. diff');
  for (const R of [8, 10, 12]) {
    const pi = skewPrior(R);
    const full = await runFull(R, eps, pi, { constraints: 'spanner', decomposition: 'off', timeLimitSeconds: 180 });
    const dec = await run(R, eps, pi, { constraints: 'spanner', decomposition: 'on', timeLimitSeconds: 180 });
    const diff = full.ok && dec.ok ? Math.abs(dec.objective - full.objective) / full.objective : NaN;
    console.log(
      `${R}x${R}`.padEnd(7) +
        (full.ok ? f(full.ms).padStart(7) + f(full.objective, 9).padStart(13) : `  (${full.note.slice(0, 30)})`) +
        (dec.ok
          ? f(dec.ms).padStart(10) + f(dec.objective, 9).padStart(13) + f(dec.rounds ?? NaN).padStart(8)
          : `  (${dec.note.slice(0, 60)})`) +
        (full.ok && dec.ok ? f(dec.ms / full.ms, 2).padStart(12) + `  ${diff.toExponential(1)}` : ''),
    );
  }
  const city = benchCity();
  if (!city) return;
  // LP_BENCH_CITY_EPS=1,0.5 adds eps 0.5 (converges much more slowly: wider columns).
  for (const e of (process.env.LP_BENCH_CITY_EPS ?? '1').split(',').map(Number)) {
    const t0 = performance.now();
    try {
      const m = await optimalMechanism(gridDomain(20, 20), e, city, 'dist', {
        constraints: 'spanner',
        timeLimitSeconds: 1200,
      });
      console.log(
        `20x20 city, eps ${e}, spanner, by decomposition: ${f(performance.now() - t0)} ms, objective ${f(m.facts.solve.objective, 6)} km, certified lower bound ${f(m.lp.lowerBound, 6)}, ${m.facts.solve.decomposition?.rounds} rounds, ${m.facts.solve.decomposition?.columns} columns (master ${f(m.facts.solve.decomposition!.masterMs)} ms, pricing ${f(m.facts.solve.decomposition!.pricingMs)} ms)`,
      );
    } catch (err) {
      if (!(err instanceof MechError)) throw err;
      console.log(`20x20 city, eps ${e}: ${err.message}`);
    }
  }
}
