/**
 * What each case study found, as values (protocol/casestudy.ts `findings`): one record per study, discriminated by
 * `kind` (the study's name), carrying the numbers its findings and their mathematics are worded from. The words
 * are written in one place, src-shared/charts/casestudy-words.ts, for the app, the study report and summary.md.
 */
import { z } from 'zod';

/** A double that may be NaN or infinite (a figure the study could not compute), or null where JSON carried one. */
const double = z.union([z.number(), z.nan(), z.literal(Infinity), z.literal(-Infinity)]);
const real = double.nullable();

/** A prior's regularity at one eps (bound/regularity.ts): sum(mu) when regular, else the smallest mu and where. */
const regularitySchema = z.object({ regular: z.boolean(), muSum: real, minMu: real, minMuLabel: z.string() });

const votingFindingsSchema = z.object({
  kind: z.literal('voting'),
  epsilon: z.number(),
  cities: z.object({
    uniform: real,
    sizes: real,
    firstRow: z.array(real),
    cliqueBound: real,
    sizesPrior: regularitySchema,
  }),
  count: z.object({
    tgUniform: real,
    ringUniform: real,
    tgRace: real,
    ringRace: real,
    uniformPrior: regularitySchema,
    racePrior: regularitySchema,
  }),
  /** The eps values of the 0.1..3 grid where the ring construction is more useful than TG (either prior). */
  ringBetterAt: z.array(z.number()),
});

const leakageBoundsFindingsSchema = z.object({
  kind: z.literal('leakage-bounds'),
  u: z.int(),
  /** Per universe size v: the bound at eps 1 and 0.1, and the bits the database holds (u log2 v). */
  values: z.array(z.object({ v: z.number(), eps1: real, eps01: real, holds: real })),
  individualEps1: real,
  /** The outputs-limited bound on v = outputsV: per r, at the grid's low eps and at eps 1. */
  outputsV: z.number(),
  lowEps: z.number(),
  outputs: z.array(z.object({ r: z.number(), atLow: real, eps1: real })),
  /** Largest improvement of the outputs formula on min(log2 r, any-r bound), and where. */
  bestGain: real,
  bestAt: z.object({ r: z.number(), eps: z.number() }).nullable(),
  /**
   * Where the outputs formula is looser than the any-r bound: per r, how many eps, the first and last, and the values
   * at the first.
   */
  looser: z.array(
    z.object({ r: z.number(), count: z.int(), from: z.number(), to: z.number(), bound: real, anyR: real }),
  ),
});

const regularPriorFindingsSchema = z.object({
  kind: z.literal('regular-prior'),
  u: z.int(),
  marginal: z.array(z.number()),
  maxPi: real,
  from: z.number(),
  to: z.number(),
  /** Where the prior becomes regular (bisection), null when it does not change on the range. */
  threshold: real,
  regularAtStart: z.boolean(),
  cases: z.array(
    z.object({
      eps: z.number(),
      regular: z.boolean(),
      minMu: real,
      minMuLabel: z.string(),
      formal: real,
      achievedLeak: real,
      all: real,
    }),
  ),
});

const utilityPointSchema = z.object({ eps: z.number(), tight: real, geo: real });
const thresholdQuerySchema = z.object({
  /**
   * Smallest eps where the tight-constraints mechanism exists (null: none up to `to`), the last eps where it does not,
   * and min z there.
   */
  epsilon: z.number().nullable(),
  lastMissing: z.number().nullable(),
  minZBelow: real,
  points: z.array(utilityPointSchema),
  /** The privacy check of the geometric competitor at `at`. */
  check: z.object({ at: z.number(), effectiveEpsilon: real, passes: z.boolean() }),
});
const sumAndCountsFindingsSchema = z.object({
  kind: z.literal('sum-and-2count'),
  sumU: z.int(),
  sumV: z.int(),
  countU: z.int(),
  sumN: z.int(),
  countN: z.int(),
  to: z.number(),
  step: z.number(),
  sum: thresholdQuerySchema,
  counts: thresholdQuerySchema,
});

/** One eps of the geo study's grid comparison (uniform prior). */
export const geoGridPointSchema = z.strictObject({
  eps: z.number(),
  tightExists: z.boolean(),
  minZ: double,
  minZAt: z.string(),
  tightUtility: real,
  tightError: real,
  plUtility: double,
  plError: double,
});
export type GeoGridPoint = z.infer<typeof geoGridPointSchema>;

/** What an LP row of the city comparison solved (from the optimal mechanism's typed facts). */
const cityLpFactsSchema = z.strictObject({
  /** The SPEC §4 check of the LP's channel passed. */
  passes: z.boolean(),
  /** Spanner dilation (spanner rows only). */
  delta: real,
  constraints: z.number(),
  solverMs: double,
  method: z.enum(['full-model', 'constraint-generation', 'decomposition']),
  generation: z.strictObject({ rounds: z.number(), privacyRows: z.number(), fullPrivacyRows: z.number() }).optional(),
  /** Decomposition by output column: rounds, columns, the certified lower bound (km) and its relative gap. */
  decomposition: z
    .strictObject({ rounds: z.number(), columns: z.number(), lowerBound: double, relativeGap: double })
    .optional(),
  /**
   * Why the solve ended and a certified lower bound (km) on the exact all-pairs optimum, or null when none was
   * computed.
   */
  stoppedBy: z.string().optional(),
  exactLowerBound: real.optional(),
});
export type CityLpFacts = z.infer<typeof cityLpFactsSchema>;

/** The mechanisms the city comparison measures. */
const cityMechanismSchema = z.enum(['planar-laplace', 'tight', 'lp-spanner', 'lp-exact']);
export type CityMechanism = z.infer<typeof cityMechanismSchema>;

/**
 * One row of the city comparison: what was measured (grid, mechanism, remapped or not), whether it was computed, and
 * the facts its note is worded from (casestudy-words.ts cityRowNote).
 */
export const cityRowSchema = z.strictObject({
  eps: z.number(),
  /** The full city (1 km cells) or its coarsening. */
  grid: z.strictObject({ side: z.number(), cellKm: z.number(), full: z.boolean() }),
  mechanism: cityMechanismSchema,
  /** Followed by the Bayesian remap of its outputs, with the remap method. */
  remap: z.strictObject({ method: z.string() }).nullable(),
  /**
   * 'computed'; 'absent' (tight-constraints does not exist here); 'skipped' (parameter fullLpEpsilons); 'failed' (the
   * LP threw).
   */
  status: z.enum(['computed', 'absent', 'skipped', 'failed']),
  error: real,
  effectiveEps: real,
  /** Tight-constraints that does not exist: min z and where. */
  minZ: z.strictObject({ value: double, at: z.string() }).optional(),
  lp: cityLpFactsSchema.optional(),
  /** A skipped row: the eps values the full city is optimised at. */
  optimisedAt: z.array(z.number()).optional(),
  /** A failed row: the error's message. */
  failure: z.string().optional(),
});
export type CityRow = z.infer<typeof cityRowSchema>;
export type CityGrid = CityRow['grid'];

/**
 * How far the full city's spanner LP is from the exact all-pairs optimum, certified: the exact optimum lies in
 * [lower, upper], lower the largest certified bound on it (the exact row's Lagrangian bound, or the spanner row's
 * exactLowerBound), upper the exact row's mechanism when it was computed (else the spanner's own error); so the
 * spanner's extra error is between spanner / upper - 1 and spanner / lower - 1. Null when no bound is known.
 */
export function spannerExtraError(
  spanner: CityRow,
  exact: CityRow | undefined,
): { lower: number; upper: number; extraMin: number; extraMax: number } | null {
  const sp = spanner.status === 'computed' ? spanner.error : null;
  if (sp === null) return null;
  const ex = exact && exact.status === 'computed' ? exact.error : null;
  // -Infinity (no bound) and 0 (the trivial one) leave the bracket open.
  const lower = Math.max(
    spanner.lp?.exactLowerBound ?? 0,
    ex === null ? 0 : (exact!.lp?.decomposition?.lowerBound ?? ex),
  );
  if (!(lower > 0)) return null;
  const upper = ex === null ? sp : Math.min(ex, sp);
  return { lower, upper, extraMin: sp / upper - 1, extraMax: sp / lower - 1 };
}

const geoFindingsSchema = z.object({
  kind: z.literal('geo'),
  size: z.int(),
  /** The grid comparison's eps values and points. */
  grid: z.array(z.number()),
  points: z.array(geoGridPointSchema),
  /** The city comparison (null with skipCity). */
  city: z.object({ side: z.int(), epsilons: z.array(z.number()), rows: z.array(cityRowSchema) }).nullable(),
});

/**
 * A query of the smart-meter sensitivity check: its Delta, whether it is uniformly 1-sensitive, and the counterexample
 * when not.
 */
const sensitivityFindingSchema = z.object({
  query: z.string(),
  delta: real,
  uniform: z.boolean(),
  counterexample: z.object({ labels: z.array(z.string()), reason: z.string() }).nullable(),
});
export type SensitivityFinding = z.infer<typeof sensitivityFindingSchema>;

const smartMeterFindingsSchema = z.object({
  kind: z.literal('smart-meter'),
  readings: z.int(),
  stepSeconds: real,
  trueMean: real,
  peak: real,
  sd: real,
  unit: z.number(),
  noisy: z.array(z.object({ eps: z.number(), mae: real, b: real, rmse: real })),
  levels: z.int(),
  levelWidth: z.number(),
  avgLevel: real,
  roundedAvg: z.number(),
  percentile: z.number(),
  percentileLevel: z.number(),
  epsilon: z.number(),
  /** The released numbers: probability of the exact level and the expected levels off. */
  exact: z.object({ avg: real, pct: real }),
  off: z.object({ avg: real, pct: real }),
  sensitivityU: z.int(),
  sensitivityV: z.int(),
  sensitivity: z.array(sensitivityFindingSchema),
});

const registrationDateFindingsSchema = z.object({
  kind: z.literal('registration-date'),
  days: z.int(),
  scale: z.number(),
  aMax: z.number(),
  /** The last error allowed on the first chart, and the middle of the range (the second chart's reference point). */
  aLast: z.number(),
  mid: z.number(),
  /**
   * Per eps, b(a) = the worst chance of an error larger than a: randomised response (rr) and the d_1 mechanism (tg).
   */
  curves: z.array(
    z.object({
      eps: z.number(),
      rr0: real,
      rrLast: real,
      tg10: real,
      tgLast: real,
      /** The smallest a (days) with b(a) <= 0.1, null when beyond aMax. */
      tg90: z.number().nullable(),
      rr90: z.number().nullable(),
      rrMid: real,
    }),
  ),
});

/**
 * One domain of the capacities study: family, domain, n, multiplicative, additive, log2 multiplicative, closed forms
 * and their source.
 */
const capacityStudyRowSchema = z.tuple([z.string(), z.string(), z.number(), real, real, real, real, real, z.string()]);
export type CapacityStudyRow = z.infer<typeof capacityStudyRowSchema>;

const capacitiesFindingsSchema = z.object({
  kind: z.literal('capacities'),
  epsilon: z.number(),
  rows: z.array(capacityStudyRowSchema),
});

export const caseStudyFindingsSchema = z.discriminatedUnion('kind', [
  votingFindingsSchema,
  leakageBoundsFindingsSchema,
  regularPriorFindingsSchema,
  sumAndCountsFindingsSchema,
  geoFindingsSchema,
  smartMeterFindingsSchema,
  registrationDateFindingsSchema,
  capacitiesFindingsSchema,
]);
export type CaseStudyFindings = z.infer<typeof caseStudyFindingsSchema>;
export type FindingsOf<K extends CaseStudyFindings['kind']> = Extract<CaseStudyFindings, { kind: K }>;
