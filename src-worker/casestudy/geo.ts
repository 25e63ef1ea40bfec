/**
 * Case study 5, geo-indistinguishability. (a) A G x G grid of 1 km
 * cells (default 100 x 100 = 10^4 points) under eps*d2: the tight-constraints
 * mechanism (implicit: z from the structured Phi solver, measures and expected
 * error by FFT, never an n x n array) against planar Laplace snapped to the
 * grid (a RowSource whose rows come from translation-invariant cell tables),
 * for eps over a range, saying where the tight-constraints mechanism does not
 * exist (some z < 0, SPEC §2). (b) The 20 x 20 city with its population prior:
 * expected distance error of planar Laplace, tight-constraints and the
 * LP-optimal mechanism (spanner LP, SPEC §2).
 *
 * The grid points and city rows are typed (protocol/casestudy-findings.ts: grid, mechanism id, status, LP facts
 * from the optimal mechanism's typed facts); the study's findings are those values, worded in
 * src-shared/charts/geo-words.ts (labels, notes, findings and their mathematics), never parsed back from text.
 */
import { MechError, invalid, messageOf } from '../../src-shared/errors';
import { gridDomain } from '../metric/grid';
import type { Domain } from '../metric/domain';
import { tightConstraintsStructured } from '../mechanism/implicit/tight-structured';
import { tightChannelMeasures } from '../measure/structured/tight-measures';
import { tightExpectedError } from '../measure/structured/tight-expected-error';
import { planarLaplace } from '../mechanism/planar-laplace';
import type { Mechanism } from '../mechanism/channel';
import { remapMechanism } from '../remap/bayes-remap';
import { posteriorVulnerability } from '../measure/posterior-vulnerability';
import { expectedDistanceError } from '../measure/expected-distance-error';
import { uniformPrior } from '../measure/prior';
import { optimalMechanism, type OptimalMechanism } from '../lp/optimal/optimal-mechanism';
import { checkPrivacy } from '../check/privacy-check';
import {
  numbersPerEps,
  studyParams,
  checkAbort,
  epsGrid,
  normalise,
  type Study,
  type StudyContext,
  type CaseStudyResult,
  type CaseStudyTable,
  type ChartSpec,
} from './study';
import { z } from 'zod';
import {
  cityRowSchema,
  geoGridPointSchema,
  type CaseStudyParams,
  type CityGrid,
  type CityLpFacts,
  type CityMechanism,
  type CityRow,
  type GeoGridPoint as GridPoint,
} from '../../src-shared/protocol/index';
import { cityGridLabel, cityMechanismLabel, cityMechanismName, cityRowNote } from '../../src-shared/charts/geo-words';
import type { SplitStudy } from './study';

function gridComparison(size: number, eps: number[], ctx: StudyContext): GridPoint[] {
  const g = gridDomain(size, size, 1, 'euclidean');
  const pi = uniformPrior(g.n);
  const out: GridPoint[] = [];
  eps.forEach((e, k) => {
    checkAbort(ctx.signal);
    ctx.progress(k / eps.length, `grid ${size}x${size}: eps = ${e}`);
    const t = tightConstraintsStructured(g, e);
    const pl = planarLaplace(g, e).channel;
    const p: GridPoint = {
      eps: e,
      tightExists: t.exists,
      minZ: t.exists ? t.minZ : t.minZ,
      minZAt: t.exists ? g.label(t.argMinZ) : t.argMinLabel,
      tightUtility: null,
      tightError: null,
      plUtility: posteriorVulnerability(pi, pl).value,
      plError: expectedDistanceError(pi, pl, g),
    };
    if (t.exists) {
      p.tightUtility = tightChannelMeasures(pi, t.mechanism.channel).utility;
      p.tightError = tightExpectedError(pi, t.mechanism.channel).value;
    }
    out.push(p);
  });
  return out;
}

/** Sum a row-major R x C weight map into blocks of b x b cells (R, C divisible by b). */
export function coarsen(w: ArrayLike<number>, rows: number, cols: number, b: number): Float64Array {
  const R = rows / b;
  const C = cols / b;
  const out = new Float64Array(R * C);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) out[Math.floor(r / b) * C + Math.floor(c / b)]! += w[r * cols + c]!;
  return out;
}

/** The typed facts of an LP row from the optimal mechanism and its privacy check. */
function cityLpFacts(m: OptimalMechanism, passes: boolean, mode: 'spanner' | 'exact'): CityLpFacts {
  const s = m.facts.solve;
  return {
    passes,
    delta: mode === 'spanner' ? s.delta : null,
    constraints: s.constraints,
    solverMs: s.solverMs,
    method: m.lp.method,
    ...(s.generation
      ? {
          generation: {
            rounds: s.generation.rounds,
            privacyRows: s.generation.privacyRows,
            fullPrivacyRows: s.generation.fullPrivacyRows,
          },
        }
      : {}),
    ...(s.decomposition
      ? {
          decomposition: {
            rounds: s.decomposition.rounds,
            columns: s.decomposition.columns,
            lowerBound: m.lp.lowerBound,
            relativeGap: s.decomposition.relativeGap,
          },
        }
      : {}),
    stoppedBy: m.lp.stoppedBy,
    exactLowerBound: m.lp.exactLowerBound,
  };
}

export interface CityLpOptions {
  exactLp: boolean;
  fullLp: boolean;
  fullExactLp: boolean;
  fullLpEpsilons: number[];
  timeLimit: number;
}

/** Planar Laplace and tight-constraints on one grid, each followed by its Bayesian remap. */
function cityClosedFormRows(d: Domain, pi: Float64Array, grid: CityGrid, eps: number, ctx: StudyContext): CityRow[] {
  const rows: CityRow[] = [];
  const base = { eps, grid, remap: null, effectiveEps: null };
  const plMech = planarLaplace(d, eps);
  rows.push({
    ...base,
    mechanism: 'planar-laplace',
    status: 'computed',
    error: expectedDistanceError(pi, plMech.channel, d),
  });
  // Each followed by the Bayesian remap of its outputs for the prior and distance loss (still eps*d2-private).
  const remapped = (mech: Mechanism, mechanism: CityMechanism): CityRow => {
    const r = remapMechanism(mech, d, pi, { kind: 'dist' }, { signal: ctx.signal });
    return { ...base, mechanism, remap: { method: r.method }, status: 'computed', error: r.remappedLoss };
  };
  rows.push(remapped(plMech, 'planar-laplace'));
  const t = tightConstraintsStructured(d, eps);
  rows.push(
    t.exists
      ? { ...base, mechanism: 'tight', status: 'computed', error: tightExpectedError(pi, t.mechanism.channel).value }
      : { ...base, mechanism: 'tight', status: 'absent', error: null, minZ: { value: t.minZ, at: t.argMinLabel } },
  );
  if (t.exists) rows.push(remapped(t.mechanism, 'tight'));
  return rows;
}

/** The LP-optimal mechanism for expected distance on one grid (spanner or exact constraints), checked for privacy. */
async function cityLpRow(
  d: Domain,
  pi: Float64Array,
  grid: CityGrid,
  eps: number,
  mode: 'spanner' | 'exact',
  full: boolean,
  o: CityLpOptions,
  ctx: StudyContext,
): Promise<CityRow> {
  const mechanism: CityMechanism = mode === 'spanner' ? 'lp-spanner' : 'lp-exact';
  const base = { eps, grid, mechanism, remap: null };
  ctx.progress(null, `${cityMechanismName(mechanism)} on ${cityGridLabel(grid)}, eps = ${eps}`);
  try {
    // The full city through the privacy model (decomposition, coarse start, certified gap, the best mechanism at the
    // time limit); fullLp off asks for the one-model LP (it does not fit the solver heap on the 20 x 20 city: a failed
    // row).
    const how = !full
      ? { constraints: mode }
      : o.fullLp
        ? { model: mode, timeLimitSeconds: o.timeLimit }
        : { constraints: mode, generation: 'off' as const, decomposition: 'off' as const };
    const m = await optimalMechanism(d, eps, pi, 'dist', {
      signal: ctx.signal,
      ...how,
      onProgress: (_f, msg) => ctx.progress(null, `${cityGridLabel(grid)}, eps = ${eps}: ${msg}`),
    });
    const chk = checkPrivacy(m.channel, d, eps, { topK: 1 });
    return {
      ...base,
      status: 'computed',
      error: expectedDistanceError(pi, m.channel, d),
      effectiveEps: chk.effectiveEpsilon,
      lp: cityLpFacts(m, chk.passes, mode),
    };
  } catch (e) {
    if (e instanceof MechError && e.code === 'cancelled') throw e;
    return { ...base, status: 'failed', error: null, effectiveEps: null, failure: messageOf(e) };
  }
}

/**
 * The city comparison at one eps: planar Laplace, tight-constraints, their
 * remaps and the LP-optimal mechanisms, on the full city and on its
 * coarsening by `coarse` (typed rows; cityRowNote words them).
 */
export async function cityComparison(
  pop: Float64Array,
  side: number,
  eps: number,
  coarse: number,
  o: CityLpOptions,
  ctx: StudyContext,
): Promise<CityRow[]> {
  const rows: CityRow[] = [];
  // The full city's spanner LP (160,000 variables, 1.19M rows) does not fit the
  // solver heap as one model: it is solved by decomposition over output columns
  // (lp/decomposition/column-decomposition.ts, about 30 s at eps 1). The exact (all-pairs) model
  // there is decomposed too, with lazy all-pairs pricing held per group of outputs;
  // it takes longer (certified to ~1e-6 in 2-3 minutes at eps 1, 1% after ~6 minutes
  // at eps 0.5 on 2 threads: docs/lp-measurements.md, "Where the optimal LP stands"), so only on request
  // (fullExactLp), within fullLpTimeLimit.
  const measure = async (
    d: Domain,
    pi: Float64Array,
    grid: CityGrid,
    withLp: boolean,
    withExact = false,
    full = false,
  ) => {
    checkAbort(ctx.signal);
    rows.push(...cityClosedFormRows(d, pi, grid, eps, ctx));
    if (!withLp) return;
    for (const mode of withExact ? (['spanner', 'exact'] as const) : (['spanner'] as const))
      rows.push(await cityLpRow(d, pi, grid, eps, mode, full, o, ctx));
  };
  const fullGrid: CityGrid = { side, cellKm: 1, full: true };
  const full = gridDomain(side, side, 1, 'euclidean');
  if (o.fullLp && !o.fullLpEpsilons.includes(eps)) {
    await measure(full, pop, fullGrid, false);
    rows.push({
      eps,
      grid: fullGrid,
      mechanism: 'lp-spanner',
      remap: null,
      status: 'skipped',
      error: null,
      effectiveEps: null,
      optimisedAt: o.fullLpEpsilons,
    });
  } else await measure(full, pop, fullGrid, true, o.fullExactLp, true);
  if (coarse > 1 && side % coarse === 0) {
    const c = side / coarse;
    await measure(
      gridDomain(c, c, coarse, 'euclidean'),
      coarsen(pop, side, side, coarse),
      { side: c, cellKm: coarse, full: false },
      true,
      o.exactLp,
    );
  }
  return rows;
}

/** The geo study's parameters, validated (defaults filled). */
interface GeoParams {
  size: number;
  grid: number[];
  citySide: number;
  cityEpsList: number[];
  lpCoarsen: number;
  skipCity: boolean;
  /** The city's population prior (null with skipCity). */
  population: Float64Array | null;
  lp: CityLpOptions;
}

function geoParams(params: CaseStudyParams): GeoParams {
  const p = studyParams('geo', params);
  const grid = epsGrid(p.from, p.to, p.step);
  const lp = {
    exactLp: p.exactLp,
    fullLp: p.fullLp,
    fullExactLp: p.fullExactLp,
    fullLpEpsilons: Array.from(p.fullLpEpsilons ?? p.cityEpsilons),
    timeLimit: p.fullLpTimeLimit,
  };
  const population = p.skipCity
    ? null
    : normalise(
        p.population ??
          invalid(
            `case-study parameter 'population' is missing (a list of ${p.citySide * p.citySide} population weights (row-major))`,
          ),
      );
  if (population && population.length !== p.citySide * p.citySide)
    invalid(
      `population has ${population.length} weights, the ${p.citySide} x ${p.citySide} city needs ${p.citySide * p.citySide}`,
    );
  return {
    size: p.size,
    grid,
    citySide: p.citySide,
    cityEpsList: p.cityEpsilons,
    lpCoarsen: p.lpCoarsen,
    skipCity: p.skipCity,
    population,
    lp,
  };
}

/** An item of a split geo run: one grid eps, or one city eps (all its rows, LPs included). */
type GeoItem = { kind: 'grid'; point: GridPoint } | { kind: 'city'; rows: CityRow[] };

const geoItemSchema: z.ZodType<GeoItem> = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('grid'), point: geoGridPointSchema }),
  z.strictObject({ kind: z.literal('city'), rows: z.array(cityRowSchema) }),
]);

/** Items start..start+count-1 of the list [grid eps..., city eps... (none with skipCity)]. */
async function geoItems(p: GeoParams, start: number, count: number, ctx: StudyContext): Promise<GeoItem[]> {
  const end = start + count;
  const gridEps = p.grid.slice(start, Math.min(end, p.grid.length));
  const items: GeoItem[] = gridComparison(p.size, gridEps, ctx).map((point) => ({ kind: 'grid', point }));
  const cityEps =
    p.skipCity || !p.population
      ? []
      : p.cityEpsList.slice(Math.max(0, start - p.grid.length), Math.max(0, end - p.grid.length));
  for (const e of cityEps)
    items.push({ kind: 'city', rows: await cityComparison(p.population!, p.citySide, e, p.lpCoarsen, p.lp, ctx) });
  return items;
}

const geoItemCount = (p: GeoParams): number => p.grid.length + (p.skipCity ? 0 : p.cityEpsList.length);

/** Items of the geo study for a split run (src-worker/casestudy/parts.ts). */
export const geoParts: SplitStudy<GeoItem> = {
  itemCount: (params) => geoItemCount(geoParams(params)),
  computeItems: (params, start, count, ctx) => geoItems(geoParams(params), start, count, ctx),
  itemSchema: geoItemSchema,
  assemble: (params, items) => geoReport(geoParams(params), items),
};

/** The city's categories (grid: mechanism), each marked where it is n/a, keyed by its label. */
function cityCategories(city: CityRow[]): { keys: string[]; labels: string[] } {
  const key = (r: CityRow): string => `${cityGridLabel(r.grid)}: ${cityMechanismLabel(r)}`;
  const keys = [...new Set(city.map(key))];
  const labels = keys.map((c) => {
    const na = city.filter((r) => key(r) === c && !exists(r));
    return na.length ? `${c} (${na.map((r) => `n/a at ${r.eps}`).join(', ')})` : c;
  });
  return { keys, labels };
}

const exists = (r: CityRow): boolean => r.status === 'computed';

/** The case study: (a) the grid comparison, (b) the city comparison; findings, numbers, tables and charts. */
export const geoStudy: Study = async (params, ctx): Promise<CaseStudyResult> => {
  const p = geoParams(params);
  return geoReport(p, await geoItems(p, 0, geoItemCount(p), ctx));
};

/** Findings, numbers, tables and charts from every item, in order (the single job and a merged split run alike). */
function geoReport(p: GeoParams, items: GeoItem[]): CaseStudyResult {
  const { size, grid, skipCity } = p;
  const pts = items.flatMap((it) => (it.kind === 'grid' ? [it.point] : []));
  const city = items.flatMap((it) => (it.kind === 'city' ? it.rows : []));
  return {
    type: 'case-study',
    study: 'geo',
    title: 'Geo-indistinguishability on grids',
    findings: {
      kind: 'geo',
      size,
      grid,
      points: pts,
      city: skipCity ? null : { side: p.citySide, epsilons: p.cityEpsList, rows: city },
    },
    numbers: {
      size,
      tightMissingAt:
        pts
          .filter((q) => !q.tightExists)
          .map((q) => q.eps)
          .join(' ') || 'none',
      ...numbersPerEps(pts, '_', {
        plError: (q) => q.plError,
        tightError: (q) => q.tightError,
        tightUtility: (q) => q.tightUtility,
        plUtility: (q) => q.plUtility,
      }),
      ...Object.fromEntries(
        city.map((r) => [`city eps ${r.eps} ${cityGridLabel(r.grid)} ${cityMechanismLabel(r)}`, r.error]),
      ),
    },
    tables: geoTables(p, pts, city),
    charts: geoCharts(p, pts, city),
  };
}

/** The grid and city tables. */
function geoTables(p: GeoParams, pts: GridPoint[], city: CityRow[]): CaseStudyTable[] {
  const { size, skipCity, cityEpsList } = p;
  return [
    {
      id: 'grid-comparison',
      title: `${size} x ${size} grid, uniform prior`,
      header: [
        'epsilon',
        'tight exists',
        'smallest weight',
        'smallest weight at',
        'tight utility',
        'planar Laplace utility',
        'tight expected error (km)',
        'planar Laplace expected error (km)',
      ],
      rows: pts.map((p) => [
        p.eps,
        p.tightExists,
        p.minZ,
        p.minZAt,
        p.tightUtility,
        p.plUtility,
        p.tightError,
        p.plError,
      ]),
    },
    ...(skipCity
      ? []
      : [
          {
            id: 'city-comparison',
            title: `City, population prior, eps = ${cityEpsList.join(', ')}`,
            header: ['epsilon', 'grid', 'mechanism', 'exists', 'expected distance error (km)', 'effective ε', 'note'],
            rows: city.map((r) => [
              r.eps,
              cityGridLabel(r.grid),
              cityMechanismLabel(r),
              exists(r),
              r.error,
              r.effectiveEps,
              cityRowNote(r),
            ]),
          },
        ]),
  ];
}

/** The grid's error and utility charts, and the city's bar chart. */
function geoCharts(p: GeoParams, pts: GridPoint[], city: CityRow[]): ChartSpec[] {
  const { size, skipCity, cityEpsList } = p;
  const xs = pts.map((q) => q.eps);
  const cats = cityCategories(city);
  // Planar Laplace against tight constraints over eps, one figure of the grid points.
  const gridChart = (
    id: string,
    what: string,
    yLabel: string,
    pl: 'plError' | 'plUtility',
    tight: 'tightError' | 'tightUtility',
  ): ChartSpec => ({
    id,
    title: `${size} x ${size} km grid: ${what}`,
    type: 'line',
    xLabel: 'ε (per km)',
    yLabel,
    yMin: 0,
    series: [
      { label: 'planar Laplace', x: xs, y: pts.map((q) => q[pl]) },
      { label: 'tight-constraints (gap = does not exist)', x: xs, y: pts.map((q) => q[tight]), points: true },
    ],
  });
  return [
    gridChart('grid-error', 'expected distance error (uniform prior)', 'expected error (km)', 'plError', 'tightError'),
    gridChart(
      'grid-utility',
      'utility (uniform prior, binary gain)',
      'P(guess the true cell)',
      'plUtility',
      'tightUtility',
    ),
    ...(skipCity
      ? []
      : [
          {
            id: 'city-error',
            title: `City, population prior: expected distance error (n/a = does not exist / not computed)`,
            type: 'bar' as const,
            xLabel: 'grid and mechanism',
            yLabel: 'km',
            yMin: 0,
            categories: cats.labels,
            series: cityEpsList.map((e) => ({
              label: `eps = ${e} per km`,
              x: cats.labels.map((_, i) => i),
              y: cats.keys.map(
                (c) =>
                  city.find((r) => r.eps === e && `${cityGridLabel(r.grid)}: ${cityMechanismLabel(r)}` === c)?.error ??
                  null,
              ),
            })),
          },
        ]),
  ];
}
