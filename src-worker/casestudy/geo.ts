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
 * The city rows are typed (CityRow: grid, mechanism id, status, LP facts
 * from the optimal mechanism's typed facts); labels, notes, findings, tables
 * and charts are worded from those fields (cityGridLabel,
 * cityMechanismLabel, cityRowNote), never parsed back from text.
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
import { optimalMechanism, type OptimalMechanism } from '../lp/optimal-mechanism';
import { checkPrivacy } from '../check/privacy-check';
import {
  numbersPerEps,
  studyParams,
  checkAbort,
  epsGrid,
  f,
  normalise,
  type Study,
  type StudyContext,
  type CaseStudyResult,
  type CaseStudyTable,
  type ChartSpec,
} from './study';
import { z } from 'zod';
import type { CaseStudyParams } from '../../src-shared/protocol/index';
import type { SplitStudy } from './study';

interface GridPoint {
  eps: number;
  tightExists: boolean;
  minZ: number;
  minZAt: string;
  tightUtility: number | null;
  tightError: number | null;
  plUtility: number;
  plError: number;
}

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
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[Math.floor(r / b) * C + Math.floor(c / b)]! += w[r * cols + c]!;
  return out;
}

/** The mechanisms the city comparison measures (ids; display names in CITY_MECHANISM_NAMES). */
export type CityMechanism = 'planar-laplace' | 'tight' | 'lp-spanner' | 'lp-exact';
const CITY_MECHANISM_NAMES: Record<CityMechanism, string> = {
  'planar-laplace': 'planar Laplace',
  tight: 'tight-constraints',
  'lp-spanner': 'optimised for the prior (fast)',
  'lp-exact': 'optimised for the prior (exact)',
};

/** The city grid a row was measured on: the full city (1 km cells) or its coarsening. */
interface CityGrid {
  side: number;
  cellKm: number;
  full: boolean;
}

/** What an LP row's solve did (from the optimal mechanism's typed facts). */
interface CityLpFacts {
  /** The SPEC §4 check of the LP's channel passed. */
  passes: boolean;
  /** Spanner dilation (spanner rows only). */
  delta: number | null;
  constraints: number;
  solverMs: number;
  method: 'full-model' | 'constraint-generation' | 'decomposition';
  generation?: { rounds: number; privacyRows: number; fullPrivacyRows: number };
  /** Decomposition by output column: rounds, columns, the certified lower bound (km) and its relative gap. */
  decomposition?: { rounds: number; columns: number; lowerBound: number; relativeGap: number };
  /**
   * The typed LP record's certificate (full-city rows, solved through the privacy model with a time limit):
   * why the solve ended and a certified lower bound (km) on the exact all-pairs optimum, or null when none was computed.
   */
  stoppedBy?: string;
  exactLowerBound?: number | null;
}

/**
 * One row of the city comparison, typed: what was measured (grid, mechanism,
 * remapped or not), whether it was computed, and the facts its note is
 * rendered from (cityRowNote, the one place that words them).
 */
export interface CityRow {
  eps: number;
  grid: CityGrid;
  mechanism: CityMechanism;
  /** Followed by the Bayesian remap of its outputs, with the remap method. */
  remap: { method: string } | null;
  /** 'computed'; 'absent' (tight-constraints does not exist here); 'skipped' (parameter fullLpEpsilons); 'failed' (the LP threw). */
  status: 'computed' | 'absent' | 'skipped' | 'failed';
  error: number | null;
  effectiveEps: number | null;
  /** Tight-constraints that does not exist: min z and where. */
  minZ?: { value: number; at: string };
  lp?: CityLpFacts;
  /** Why a row was skipped or failed. */
  reason?: string;
}

export const cityGridLabel = (g: CityGrid): string => `${g.side} x ${g.side}, ${g.cellKm} km`;
export const cityMechanismLabel = (r: Pick<CityRow, 'mechanism' | 'remap'>): string => `${CITY_MECHANISM_NAMES[r.mechanism]}${r.remap ? ', remapped' : ''}`;
const exists = (r: CityRow): boolean => r.status === 'computed';

/** How an LP row was solved, in the notation (the study's details). */
function lpDetails(lp: CityLpFacts, mechanism: CityMechanism): string {
  const dec = lp.decomposition;
  const gen = lp.generation
    ? `constraint generation: ${lp.generation.rounds} rounds, ${lp.generation.privacyRows} of ${lp.generation.fullPrivacyRows} privacy rows, `
    : dec
      ? `decomposition by output column: ${dec.rounds} rounds, ${dec.columns} columns, certified lower bound ${f(dec.lowerBound, 8)} km (gap ${f(dec.relativeGap, 2)}${lp.stoppedBy === 'time-limit' ? ', stopped by the time limit' : ''}), `
      : '';
  return `${lp.passes ? 'privacy check passes' : 'privacy check FAILS'}; ${mechanism === 'lp-spanner' ? `spanner dilation ${lp.delta ?? '?'}, ` : ''}${gen || `${lp.constraints} constraints, `}solver ${f(lp.solverMs / 1000, 3)} s`;
}

/** The note column of a city row, in words (rendered from its typed fields only; the notation in cityRowDetails). */
export function cityRowNote(r: CityRow): string {
  if (r.remap) return 'each report replaced by the best guess for this prior (a post-processing step: the privacy is unchanged)';
  if (r.status === 'skipped' || r.status === 'failed') return r.reason ?? '';
  switch (r.mechanism) {
    case 'planar-laplace':
      return 'private at ε exactly (the continuous mechanism, snapped to the grid)';
    case 'tight':
      return r.minZ
        ? `does not exist: its weights would have to be negative (smallest ${f(r.minZ.value)} at cell ${r.minZ.at})`
        : 'the best for guessing the exact cell when the prior allows it, not for closeness';
    default:
      return r.lp ? `${r.lp.passes ? 'the privacy check passes' : 'the privacy check FAILS'}; solved in ${f(r.lp.solverMs / 1000, 3)} s` : '';
  }
}

/** The mathematics of a city row (the study's details): the remap's method, the missing weight, how an LP was solved; null when there is none. */
export function cityRowDetails(r: CityRow): string | null {
  if (r.remap) return `Bayesian remap of its outputs (${r.remap.method}): post-processing, still eps*d2-private`;
  if (r.status !== 'computed' && r.status !== 'absent') return null;
  if (r.mechanism === 'tight') return r.minZ ? `Phi z = 1 has min z = ${f(r.minZ.value)} < 0 at ${r.minZ.at}` : null;
  return r.lp ? lpDetails(r.lp, r.mechanism) : null;
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
      ? { generation: { rounds: s.generation.rounds, privacyRows: s.generation.privacyRows, fullPrivacyRows: s.generation.fullPrivacyRows } }
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

/**
 * How far the full city's spanner LP is from the exact all-pairs optimum, certified: the exact optimum lies in
 * [lower, upper], lower the largest certified bound on it (the exact row's Lagrangian bound, or the spanner row's
 * exactLowerBound), upper the exact row's mechanism when it was computed (else the spanner's own error); so the
 * spanner's extra error is between spanner / upper - 1 and spanner / lower - 1. Null when no bound is known.
 */
export function spannerExtraError(spanner: CityRow, exact: CityRow | undefined): { lower: number; upper: number; extraMin: number; extraMax: number } | null {
  const sp = exists(spanner) ? spanner.error : null;
  if (sp === null) return null;
  const ex = exact && exists(exact) ? exact.error : null;
  // -Infinity (no bound) and 0 (the trivial one) leave the bracket open.
  const lower = Math.max(spanner.lp?.exactLowerBound ?? 0, ex === null ? 0 : (exact!.lp?.decomposition?.lowerBound ?? ex));
  if (!(lower > 0)) return null;
  const upper = ex === null ? sp : Math.min(ex, sp);
  return { lower, upper, extraMin: sp / upper - 1, extraMax: sp / lower - 1 };
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
  rows.push({ ...base, mechanism: 'planar-laplace', status: 'computed', error: expectedDistanceError(pi, plMech.channel, d) });
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
  ctx.progress(null, `${CITY_MECHANISM_NAMES[mechanism]} on ${cityGridLabel(grid)}, eps = ${eps}`);
  try {
    // The full city through the privacy model (decomposition, coarse start, certified gap, the best mechanism at the
    // time limit); fullLp off asks for the one-model LP (it does not fit the solver heap on the 20 x 20 city: a failed row).
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
    return { ...base, status: 'failed', error: null, effectiveEps: null, reason: `not computed: ${messageOf(e)}` };
  }
}

/**
 * The city comparison at one eps: planar Laplace, tight-constraints, their
 * remaps and the LP-optimal mechanisms, on the full city and on its
 * coarsening by `coarse` (typed rows; cityRowNote words them).
 */
export async function cityComparison(pop: Float64Array, side: number, eps: number, coarse: number, o: CityLpOptions, ctx: StudyContext): Promise<CityRow[]> {
  const rows: CityRow[] = [];
  // The full city's spanner LP (160,000 variables, 1.19M rows) does not fit the
  // solver heap as one model: it is solved by decomposition over output columns
  // (lp/column-decomposition.ts, about 30 s at eps 1). The exact (all-pairs) model
  // there is decomposed too, with lazy all-pairs pricing held per group of outputs;
  // it takes longer (certified to ~1e-6 in 2-3 minutes at eps 1, 1% after ~6 minutes
  // at eps 0.5 on 2 threads: docs/lp.md, "Where the optimal LP stands"), so only on request
  // (fullExactLp), within fullLpTimeLimit.
  const measure = async (d: Domain, pi: Float64Array, grid: CityGrid, withLp: boolean, withExact = false, full = false) => {
    checkAbort(ctx.signal);
    rows.push(...cityClosedFormRows(d, pi, grid, eps, ctx));
    if (!withLp) return;
    for (const mode of withExact ? (['spanner', 'exact'] as const) : (['spanner'] as const)) rows.push(await cityLpRow(d, pi, grid, eps, mode, full, o, ctx));
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
      reason: `not computed at this ε (the full city is optimised at ε = ${o.fullLpEpsilons.join(', ')} only)`,
    });
  } else await measure(full, pop, fullGrid, true, o.fullExactLp, true);
  if (coarse > 1 && side % coarse === 0) {
    const c = side / coarse;
    await measure(gridDomain(c, c, coarse, 'euclidean'), coarsen(pop, side, side, coarse), { side: c, cellKm: coarse, full: false }, true, o.exactLp);
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
    : normalise(p.population ?? invalid(`case-study parameter 'population' is missing (a list of ${p.citySide * p.citySide} population weights (row-major))`));
  if (population && population.length !== p.citySide * p.citySide)
    invalid(`population has ${population.length} weights, the ${p.citySide} x ${p.citySide} city needs ${p.citySide * p.citySide}`);
  return { size: p.size, grid, citySide: p.citySide, cityEpsList: p.cityEpsilons, lpCoarsen: p.lpCoarsen, skipCity: p.skipCity, population, lp };
}

/** An item of a split geo run: one grid eps, or one city eps (all its rows, LPs included). */
type GeoItem = { kind: 'grid'; point: GridPoint } | { kind: 'city'; rows: CityRow[] };

const num = z.union([z.number(), z.nan(), z.literal(Infinity), z.literal(-Infinity)]);
const cityLpFactsSchema = z.strictObject({
  passes: z.boolean(),
  delta: num.nullable(),
  constraints: z.number(),
  solverMs: num,
  method: z.enum(['full-model', 'constraint-generation', 'decomposition']),
  generation: z.strictObject({ rounds: z.number(), privacyRows: z.number(), fullPrivacyRows: z.number() }).optional(),
  decomposition: z.strictObject({ rounds: z.number(), columns: z.number(), lowerBound: num, relativeGap: num }).optional(),
  stoppedBy: z.string().optional(),
  exactLowerBound: num.nullable().optional(),
});
const cityRowSchema = z.strictObject({
  eps: z.number(),
  grid: z.strictObject({ side: z.number(), cellKm: z.number(), full: z.boolean() }),
  mechanism: z.enum(['planar-laplace', 'tight', 'lp-spanner', 'lp-exact']),
  remap: z.strictObject({ method: z.string() }).nullable(),
  status: z.enum(['computed', 'absent', 'skipped', 'failed']),
  error: num.nullable(),
  effectiveEps: num.nullable(),
  minZ: z.strictObject({ value: num, at: z.string() }).optional(),
  lp: cityLpFactsSchema.optional(),
  reason: z.string().optional(),
});
const geoItemSchema: z.ZodType<GeoItem> = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('grid'),
    point: z.strictObject({
      eps: z.number(),
      tightExists: z.boolean(),
      minZ: num,
      minZAt: z.string(),
      tightUtility: num.nullable(),
      tightError: num.nullable(),
      plUtility: num,
      plError: num,
    }),
  }),
  z.strictObject({ kind: z.literal('city'), rows: z.array(cityRowSchema) }),
]);

/** Items start..start+count-1 of the list [grid eps..., city eps... (none with skipCity)]. */
async function geoItems(p: GeoParams, start: number, count: number, ctx: StudyContext): Promise<GeoItem[]> {
  const end = start + count;
  const gridEps = p.grid.slice(start, Math.min(end, p.grid.length));
  const items: GeoItem[] = gridComparison(p.size, gridEps, ctx).map((point) => ({ kind: 'grid', point }));
  const cityEps = p.skipCity || !p.population ? [] : p.cityEpsList.slice(Math.max(0, start - p.grid.length), Math.max(0, end - p.grid.length));
  for (const e of cityEps) items.push({ kind: 'city', rows: await cityComparison(p.population!, p.citySide, e, p.lpCoarsen, p.lp, ctx) });
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

/** The mathematics behind part (b): what the two LPs constrain, how each row was solved, the certified bracket of the spanner's extra error. */
function cityDetails(p: GeoParams, city: CityRow[]): string[] {
  if (p.skipCity || city.length === 0) return [];
  const out = [
    `City: "optimised for the prior (fast)" is the spanner LP's optimum for expected distance (dilation 1.1; not the best possible): privacy constraints eps/1.1 on spanner edges only, which implies eps*d2-privacy but excludes some eps*d2-private channels; "(exact)" constrains all pairs. The full ${p.citySide} x ${p.citySide} city's LP has ${p.citySide ** 4} variables; it is solved by decomposition over output columns and certified by a Lagrangian lower bound.`,
  ];
  for (const r of city) {
    const d = cityRowDetails(r);
    if (d) out.push(`- eps ${r.eps}, ${cityGridLabel(r.grid)}, ${cityMechanismLabel(r)}: ${d}.`);
  }
  for (const e of p.cityEpsList) {
    const fullRows = city.filter((r) => r.eps === e && r.grid.full);
    const lp = fullRows.find((r) => r.mechanism === 'lp-spanner');
    const lpx = fullRows.find((r) => r.mechanism === 'lp-exact');
    const extra = lp && exists(lp) ? spannerExtraError(lp, lpx) : null;
    if (extra)
      out.push(
        `- eps ${e}, full city: the exact all-pairs optimum lies in [${f(extra.lower)}, ${f(extra.upper)}] km (certified${lpx && exists(lpx) ? `: the exact model by decomposition, ${lpx.lp?.decomposition ? `gap ${f(lpx.lp.decomposition.relativeGap, 2)}` : 'solved'}` : ': the bound of the exact model at the spanner solve'}), so the spanner (dilation 1.1) costs between ${f(extra.extraMin * 100, 3)}% and ${f(extra.extraMax * 100, 3)}% extra error.`,
      );
  }
  return out;
}

/** The mathematics behind part (a): how the grid's mechanisms are computed, and where tight constraints fail. */
function gridDetails(pts: GridPoint[]): string[] {
  const missing = pts.filter((p) => !p.tightExists);
  return [
    'The tight-constraints mechanism is never formed as a matrix: z solves Phi z = 1 by the structured solver, its utility and expected error come from z and FFTs; planar Laplace rows are generated from translation-invariant cell tables.',
    ...(missing.length
      ? [
          `Where tight constraints does not exist, z has negative entries: ${missing.map((p) => `eps ${p.eps}: min z = ${f(p.minZ)} at cell ${p.minZAt}`).join('; ')}.`,
        ]
      : []),
  ];
}

/** Findings of part (a): the G x G grid under the uniform prior. */
function gridFindings(size: number, grid: number[], pts: GridPoint[]): string[] {
  const missing = pts.filter((p) => !p.tightExists);
  const exists = pts.filter((p) => p.tightExists);
  const better = exists.filter((p) => p.tightError! < p.plError);
  return [
    `(a) A ${size} x ${size} km grid of 1 km cells (${size * size} places), every place equally likely, distances as the crow flies.`,
    missing.length === 0
      ? `- The tight-constraints mechanism exists at every ε in ${grid[0]}..${grid[grid.length - 1]}.`
      : `- The tight-constraints mechanism does not exist at ε = ${missing.map((p) => p.eps).join(', ')}: its weights would have to be negative (smallest ${missing.map((p) => `${f(p.minZ)} at cell ${p.minZAt}${missing.length > 1 ? ` at ε = ${p.eps}` : ''}`).join('; ')})${exists.length ? `; it exists at ε = ${exists.map((p) => p.eps).join(', ')}` : ' nor anywhere else in the range'}. On a finite grid the corner and border cells see fewer neighbours, and for small ε the uniform prior is not regular.`,
    ...(exists.length
      ? [
          `- Where it exists its utility (probability of reporting the true cell, best remap) is ${exists.map((p) => `${f(p.tightUtility)} at ${p.eps}`).join(', ')}, against planar Laplace ${exists.map((p) => `${f(p.plUtility)}`).join(', ')}${exists.every((p) => p.tightUtility! >= p.plUtility - 1e-12) ? ': tight-constraints wins at every ε, as it must (it is the best for every regular prior, see the glossary, and the uniform prior is regular wherever it exists)' : ': planar Laplace wins at some ε, which contradicts the optimality of tight-constraints for regular priors and needs investigating'}.`,
          `- Expected distance error (km), tight vs planar Laplace: ${exists.map((p) => `ε ${p.eps}: ${f(p.tightError)} vs ${f(p.plError)}`).join('; ')}. Tight-constraints is ${better.length === exists.length ? 'also better' : better.length === 0 ? 'worse' : 'better only at some ε'} on distance error (${better.length} of ${exists.length} ε values)${better.length === exists.length ? ', although it is designed for the exact cell, not for closeness' : ': it maximises the chance of the exact cell, not closeness'}.`,
        ]
      : []),
    `- Planar Laplace exists at every ε: expected error ${pts.map((p) => `${f(p.plError)} km at ${p.eps}`).join(', ')} (about 2/ε for a continuous plane, less near borders where the tail is snapped).`,
  ];
}

/** Findings of part (b): the city under its population prior (full grid, then the coarse one). */
function cityFindings(p: GeoParams, city: CityRow[]): string[] {
  const { citySide, cityEpsList } = p;
  const findings: string[] = [];
  findings.push(
    `(b) The ${citySide} x ${citySide} km city with its population prior (dense centre, two suburbs, empty river valley), ε = ${cityEpsList.join(' and ')} per km, expected distance error under that prior. "Optimised for the prior" is the mechanism a linear program finds with the least expected error for this prior; the fast version keeps a safety margin between nearby cells only (private, but not always the best), the exact one constrains every pair of cells:`,
  );
  for (const r of city)
    findings.push(
      `- ε ${r.eps}, ${cityGridLabel(r.grid)}, ${cityMechanismLabel(r)}: ${exists(r) ? `${f(r.error)} km` : 'n/a'}${r.effectiveEps !== null ? ` (effective ε ${f(r.effectiveEps)})` : ''}; ${cityRowNote(r)}.`,
    );
  const rel = (a: number, b: number) => (a <= b ? `${f((1 - a / b) * 100, 3)}% below` : `${f((a / b - 1) * 100, 3)}% ABOVE`);
  for (const e of cityEpsList) {
    const fullRows = city.filter((r) => r.eps === e && r.grid.full);
    const lp = fullRows.find((r) => r.mechanism === 'lp-spanner');
    const plf = fullRows.find((r) => r.mechanism === 'planar-laplace' && !r.remap);
    const tcf = fullRows.find((r) => r.mechanism === 'tight' && !r.remap && exists(r));
    // What the Bayesian remap of the outputs buys, and how much of the gap to the LP it recovers.
    const plr = fullRows.find((r) => r.mechanism === 'planar-laplace' && r.remap);
    const tcr = fullRows.find((r) => r.mechanism === 'tight' && r.remap);
    if (plf && plr) {
      const gap =
        lp && exists(lp) && lp.error! < plf.error!
          ? `, ${f(((plf.error! - plr.error!) / (plf.error! - lp.error!)) * 100, 3)}% of its gap to the fast optimised mechanism's ${f(lp.error)} km`
          : '';
      findings.push(
        `- ε = ${e}, full city, each report replaced by the best guess for the prior (post-processing: the privacy is unchanged): planar Laplace ${f(plf.error)} → ${f(plr.error)} km${gap}${tcf && tcr ? `; tight-constraints ${f(tcf.error)} → ${f(tcr.error)} km` : ''}.`,
      );
    }
    if (lp && exists(lp) && plf) {
      findings.push(
        `- ε = ${e}, full ${citySide} x ${citySide} city (1 km cells): the fast optimised mechanism has expected error ${f(lp.error)} km, ${rel(lp.error!, plf.error!)} planar Laplace's ${f(plf.error)} km${tcf ? ` and ${rel(lp.error!, tcf.error!)} tight-constraints' ${f(tcf.error)} km` : ' (tight-constraints does not exist here)'}; its channel passes the privacy check (effective ε ${f(lp.effectiveEps)}).${tcf && lp.error! > tcf.error! ? ' Its safety margin leaves out some private mechanisms, such as tight-constraints, which can then beat it; the best possible error is at most the smaller of the two.' : ''}`,
      );
      const lpx = fullRows.find((r) => r.mechanism === 'lp-exact');
      const extra = spannerExtraError(lp, lpx);
      if (extra)
        findings.push(
          `- ε = ${e}, full city: the best possible expected error lies between ${f(extra.lower)} and ${f(extra.upper)} km (proven bounds), so the fast version's safety margin costs between ${f(extra.extraMin * 100, 3)}% and ${f(extra.extraMax * 100, 3)}% extra error.`,
        );
    } else if (lp && lp.status === 'skipped') {
      findings.push(
        `- ε = ${e}: the optimised mechanism on the full ${citySide} x ${citySide} city is skipped at this ε (parameter fullLpEpsilons): at small ε its solve takes many more rounds. The coarse city below compares all mechanisms on one grid at this ε.`,
      );
    } else if (lp && !exists(lp)) {
      findings.push(
        `- ε = ${e}: the optimised mechanism on the full ${citySide} x ${citySide} city was not computed (${cityRowNote(lp)}). Solved in one piece it has ${citySide ** 4} unknowns, beyond the solver's 2 GiB of memory; solved in parts it takes minutes (parameters fullLp, fullLpTimeLimit). The coarse city below compares all mechanisms on one grid.`,
      );
    }
  }
  for (const e of cityEpsList) {
    const coarseRows = city.filter((r) => r.eps === e && !r.grid.full);
    const lp = coarseRows.find((r) => r.mechanism === 'lp-spanner' && exists(r));
    const lpx = coarseRows.find((r) => r.mechanism === 'lp-exact' && exists(r));
    const plc = coarseRows.find((r) => r.mechanism === 'planar-laplace' && !r.remap);
    const tc = coarseRows.find((r) => r.mechanism === 'tight' && !r.remap && exists(r));
    if (lp && plc) {
      findings.push(
        `- ε = ${e}, coarse city: the fast optimised mechanism's error ${f(lp.error)} km is ${rel(lp.error!, plc.error!)} planar Laplace's ${f(plc.error)} km${tc ? ` and ${rel(lp.error!, tc.error!)} tight-constraints' ${f(tc.error)} km` : ''}. The privacy check of its channel ${lp.effectiveEps !== null && lp.effectiveEps <= e * (1 + 1e-9) ? `confirms it is private at ε = ${e}` : 'FAILS'} (effective ε ${f(lp.effectiveEps)}).`,
      );
      if (tc && lp.error! > tc.error!)
        findings.push(
          `- So the fast optimised mechanism is NOT the best here: its safety margin between nearby cells guarantees privacy but leaves out private mechanisms such as tight-constraints (its effective ε ${f(lp.effectiveEps)} < ${e} shows unused privacy budget). It is the best only among mechanisms with that margin; the best possible error is at most ${f(tc.error)} km.${lpx ? '' : ' The exact optimisation (parameter exactLp) gives the best possible.'}`,
        );
      else if (plc.error! > lp.error!)
        findings.push(`- The optimised mechanism exploits the prior (it can pull reports towards where people live); planar Laplace ignores it.`);
    }
    if (lpx)
      findings.push(
        `- ε = ${e}, coarse city, optimised exactly (the best possible expected distance): ${f(lpx.error)} km (effective ε ${f(lpx.effectiveEps)}); the fast version's safety margin cost ${lp ? f(((lp.error! - lpx.error!) / lpx.error!) * 100, 3) : '?'}% extra error.${tc ? ` It is ${rel(lpx.error!, tc.error!)} tight-constraints' ${f(tc.error)} km${lpx.error! <= tc.error! * (1 + 1e-9) ? ', as it must be: tight-constraints is one of the private mechanisms it searches' : ', which contradicts its optimality and needs investigating'}.` : ''}`,
      );
  }
  return findings;
}

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
  const findings = [...gridFindings(size, grid, pts), ...(skipCity ? [] : cityFindings(p, city))];
  return {
    type: 'case-study',
    study: 'geo',
    title: 'Geo-indistinguishability on grids',
    findings,
    details: [...gridDetails(pts), ...cityDetails(p, city)],
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
      ...Object.fromEntries(city.map((r) => [`city eps ${r.eps} ${cityGridLabel(r.grid)} ${cityMechanismLabel(r)}`, r.error])),
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
      rows: pts.map((p) => [p.eps, p.tightExists, p.minZ, p.minZAt, p.tightUtility, p.plUtility, p.tightError, p.plError]),
    },
    ...(skipCity
      ? []
      : [
          {
            id: 'city-comparison',
            title: `City, population prior, eps = ${cityEpsList.join(', ')}`,
            header: ['epsilon', 'grid', 'mechanism', 'exists', 'expected distance error (km)', 'effective ε', 'note'],
            rows: city.map((r) => [r.eps, cityGridLabel(r.grid), cityMechanismLabel(r), exists(r), r.error, r.effectiveEps, cityRowNote(r)]),
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
  const gridChart = (id: string, what: string, yLabel: string, pl: 'plError' | 'plUtility', tight: 'tightError' | 'tightUtility'): ChartSpec => ({
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
    gridChart('grid-utility', 'utility (uniform prior, binary gain)', 'P(guess the true cell)', 'plUtility', 'tightUtility'),
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
              y: cats.keys.map((c) => city.find((r) => r.eps === e && `${cityGridLabel(r.grid)}: ${cityMechanismLabel(r)}` === c)?.error ?? null),
            })),
          },
        ]),
  ];
}
