/**
 * Case studies (resources/examples/): a named computation of
 * src-worker/casestudy/ with its parameters, run as one job, answering with
 * tables (CSV), chart specifications (rendered to PNG on the Node side) and
 * findings (typed values, worded in src-shared/charts/casestudy-words.ts). Additive to the protocol:
 * projects carry them in an optional top-level `caseStudies` list, so the
 * standard analyses and the app are unchanged.
 */
import { z } from 'zod';
import { caseStudyFindingsSchema } from './casestudy-findings';

const id = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z0-9_.-]+$/, 'ids use letters, digits, _ . - only (they name output files)');

/** Parameters: numbers, strings, booleans or lists of numbers (each study validates its own). */
const caseStudyParamsSchema = z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.array(z.number())]));

/** A project's case-study entry. */
export const projectCaseStudySchema = z.strictObject({
  id,
  study: z.string().min(1).max(80),
  params: caseStudyParamsSchema.optional(),
  description: z.string().optional(),
});

/**
 * One part of a case study whose items are independent (capacities: its
 * domains; geo: its grid eps values and city eps values): the part computes
 * the items start..start+count-1 of the study's ordered item list and
 * answers with those items only; the caller merges the parts into exactly
 * the single job's result (src-main/dispatcher/fan-out.ts).
 */
const caseStudyPartSchema = z.strictObject({ start: z.int().min(0), count: z.int().min(1).max(100_000) });

export const caseStudyRequestSchema = z.strictObject({
  type: z.literal('case-study'),
  study: z.string().min(1).max(80),
  /** csv:FILE parameters must have been resolved to number lists on the Node side. */
  params: caseStudyParamsSchema.optional(),
  part: caseStudyPartSchema.optional(),
});

const cellSchema = z.union([z.number(), z.string(), z.boolean(), z.null()]);
const caseStudyTableSchema = z.object({
  id,
  title: z.string(),
  header: z.array(z.string()),
  rows: z.array(z.array(cellSchema)),
});
const chartSeriesSchema = z.object({
  label: z.string(),
  /** Points (x, y); y null = gap. For bar charts x is the index of the category. */
  x: z.array(z.number()),
  y: z.array(z.number().nullable()),
  dashed: z.boolean().optional(),
  /** Draw points (markers) instead of a plain line. */
  points: z.boolean().optional(),
  /** Line width in px (default 2). */
  width: z.number().optional(),
  /** CSS colour (default: the palette in series order). */
  color: z.string().max(40).optional(),
  /** Draw this series over all others (bounds: a curve that attains a bound must not hide it). */
  onTop: z.boolean().optional(),
});
const chartSpecSchema = z.object({
  id,
  title: z.string(),
  type: z.enum(['line', 'bar']),
  xLabel: z.string(),
  yLabel: z.string(),
  /** Category names (bar charts). */
  categories: z.array(z.string()).optional(),
  yLog: z.boolean().optional(),
  xLog: z.boolean().optional(),
  yMin: z.number().optional(),
  yMax: z.number().optional(),
  series: z.array(chartSeriesSchema),
  /** Lines shown under the title (e.g. why a curve has no point at some x). */
  notes: z.array(z.string()).optional(),
});
export const caseStudyResultSchema = z.object({
  type: z.literal('case-study'),
  study: z.string(),
  title: z.string(),
  /**
   * What the study found, as values (casestudy-findings.ts): src-shared/charts/casestudy-words.ts words them as the
   * findings (markdown paragraphs and bullets) and the mathematics behind them (definitions, symbols, the reasoning
   * in formulas): the page shows the mathematics behind a details toggle, the summary after the findings. Absent in a
   * part's answer.
   */
  findings: caseStudyFindingsSchema.optional(),
  /** Key numbers by name (tests and the summary refer to them). */
  numbers: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])),
  tables: z.array(caseStudyTableSchema),
  charts: z.array(chartSpecSchema),
  /**
   * A part's answer (request.part): the computed items of its slice, in
   * order, each in the study's own item record (validated by that study's
   * schema when the parts are merged: src-worker/casestudy/parts.ts). A part
   * has no findings, tables or charts of its own.
   */
  part: z.strictObject({ start: z.int().min(0), count: z.int().min(1), items: z.array(z.unknown()) }).optional(),
});

export type CaseStudyParams = z.infer<typeof caseStudyParamsSchema>;
export type CaseStudyRequest = z.infer<typeof caseStudyRequestSchema>;
export type CaseStudyTable = z.infer<typeof caseStudyTableSchema>;
export type ChartSeries = z.infer<typeof chartSeriesSchema>;
export type ChartSpec = z.infer<typeof chartSpecSchema>;
export type CaseStudyResult = z.infer<typeof caseStudyResultSchema>;

/* ---------- each study's parameters (validated by these schemas; defaults filled) ---------- */

type Range = { min?: number; max?: number; int?: boolean };

/** A number parameter with its default and range; every message names the parameter. */
function numberParam(name: string, def: number, r: Range = {}) {
  const what = `case-study parameter '${name}'`;
  let s = z.number({ error: (iss) => `${what} must be a number, got ${JSON.stringify(iss.input)}` });
  if (r.int) s = s.int({ error: (iss) => `${what} must be an integer, got ${String(iss.input)}` });
  if (r.min !== undefined)
    s = s.min(r.min, { error: (iss) => `${what} must be >= ${r.min}, got ${String(iss.input)}` });
  if (r.max !== undefined)
    s = s.max(r.max, { error: (iss) => `${what} must be <= ${r.max}, got ${String(iss.input)}` });
  return s.default(def);
}

/** A non-empty list of finite numbers (`what` says what they are). */
function listParam(name: string, what = 'numbers') {
  const msg = (input: unknown): string =>
    input === undefined
      ? `case-study parameter '${name}' is missing (a list of ${what})`
      : `case-study parameter '${name}' must be a non-empty list of ${what}`;
  return z
    .array(z.number({ error: () => msg(null) }), { error: (iss) => msg(iss.input) })
    .min(1, { error: () => msg(null) });
}

const flag = (name: string) => z.boolean({ error: `case-study parameter '${name}' must be true or false` });

/** One study's parameters: exactly these names (a typo is refused, never ignored). */
function studyParams<S extends z.ZodRawShape>(study: string, shape: S) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `case study '${study}' has no parameter '${iss.keys[0]}' (known: ${known})`
        : undefined,
  });
}

export const CASE_STUDY_PARAMS = {
  voting: studyParams('voting', {
    epsilon: numberParam('epsilon', Math.LN2, { min: 1e-6, max: 50 }),
    cityPrior: listParam('cityPrior').default([0.3, 0.25, 0.15, 0.12, 0.1, 0.08]),
    votePrior: listParam('votePrior').default([0.02, 0.13, 0.35, 0.35, 0.13, 0.02]),
  }),
  'leakage-bounds': studyParams('leakage-bounds', {
    u: numberParam('u', 100, { min: 1, max: 100000, int: true }),
    values: listParam('values', 'universe sizes v >= 2').default([2, 10, 100]),
    from: numberParam('from', 0.05, { min: 1e-6 }),
    to: numberParam('to', 5, { min: 1e-6, max: 700 }),
    step: numberParam('step', 0.05, { min: 1e-6 }),
    outputs: listParam('outputs', 'output counts r').default([2, 16, 1024, 1048576]),
    outputsV: numberParam('outputsV', 2, { min: 2, int: true }),
  }),
  'regular-prior': studyParams('regular-prior', {
    u: numberParam('u', 5, { min: 1, max: 12, int: true }),
    marginal: listParam('marginal').default([0.3, 0.27, 0.23, 0.2]),
    from: numberParam('from', 0.3, { min: 1e-6 }),
    to: numberParam('to', 1.2, { min: 1e-6, max: 50 }),
    step: numberParam('step', 0.05, { min: 1e-6 }),
    showcase: listParam('showcase').default([0.5, 1]),
  }),
  'sum-and-2count': studyParams('sum-and-2count', {
    sumU: numberParam('sumU', 150, { min: 1, max: 1000, int: true }),
    sumV: numberParam('sumV', 5, { min: 1, max: 100, int: true }),
    countU: numberParam('countU', 30, { min: 1, max: 60, int: true }),
    step: numberParam('step', 0.01, { min: 1e-4 }),
    to: numberParam('to', 3, { min: 0.1, max: 20 }),
    sweepStep: numberParam('sweepStep', 0.1, { min: 0.01 }),
  }),
  geo: studyParams('geo', {
    size: numberParam('size', 100, { min: 2, max: 1000, int: true }),
    from: numberParam('from', 0.4, { min: 1e-3 }),
    to: numberParam('to', 1.3, { max: 20 }),
    step: numberParam('step', 0.1, { min: 1e-3 }),
    /** Required unless skipCity: citySide^2 weights, row-major (the study checks the count). */
    population: listParam('population', 'population weights (row-major)').optional(),
    citySide: numberParam('citySide', 20, { min: 2, max: 60, int: true }),
    cityEpsilons: listParam('cityEpsilons').default([0.5, 1]),
    lpCoarsen: numberParam('lpCoarsen', 2, { min: 1, max: 10, int: true }),
    skipCity: flag('skipCity').default(false),
    /** The exact-constraint LP on the coarse city (constraint generation, seconds to a minute on 10x10). */
    exactLp: flag('exactLp').default(true),
    /** The spanner LP on the full city (decomposition, about a minute at eps 1). */
    fullLp: flag('fullLp').default(true),
    /**
     * The exact (all-pairs) model on the full city too, by decomposition within fullLpTimeLimit (on the 20 x 20 city
     * with 2 pricing threads: certified to about 1e-6 in 2-3 minutes at eps 1; a 1% gap after about 6 minutes at
     * eps 0.5): its certified bound and mechanism bracket the exact optimum, and the findings say how much extra
     * error the spanner costs (between two certified percentages).
     */
    fullExactLp: flag('fullExactLp').default(false),
    /**
     * Seconds per full-city LP (spanner or exact): at the limit the best mechanism so far is kept with its certified
     * gap.
     */
    fullLpTimeLimit: numberParam('fullLpTimeLimit', 900, { min: 1, max: 86400 }),
    /** Default: cityEpsilons. */
    fullLpEpsilons: listParam('fullLpEpsilons').optional(),
  }),
  'smart-meter': studyParams('smart-meter', {
    trace: listParam('trace', 'readings in watts'),
    unit: numberParam('unit', 100, { min: 1e-6 }),
    noiseEpsilons: listParam('noiseEpsilons').default([0.1, 0.5]),
    seed: numberParam('seed', 7, { int: true, min: 0 }),
    levelWidth: numberParam('levelWidth', 250, { min: 1e-6 }),
    levels: numberParam('levels', 11, { int: true, min: 2, max: 1000 }),
    epsilon: numberParam('epsilon', 1, { min: 1e-6, max: 50 }),
    percentile: numberParam('percentile', 99, { min: 1e-6, max: 100 }),
    sensitivityU: numberParam('sensitivityU', 3, { int: true, min: 1, max: 6 }),
    sensitivityV: numberParam('sensitivityV', 3, { int: true, min: 1, max: 6 }),
    chartEvery: numberParam('chartEvery', 6, { int: true, min: 1 }),
  }),
  'registration-date': studyParams('registration-date', {
    days: numberParam('days', 5000, { int: true, min: 2, max: 20000 }),
    epsilons: listParam('epsilons').default([0.5, 1, 2]),
    scale: numberParam('scale', 5, { min: 1e-6 }),
    aMax: numberParam('aMax', 200, { int: true, min: 1 }),
    aStep: numberParam('aStep', 1, { int: true, min: 1 }),
  }),
  capacities: studyParams('capacities', {
    epsilon: numberParam('epsilon', Math.LN2, { min: 1e-6, max: 30 }),
    maxHamming: numberParam('maxHamming', 5, { int: true, min: 1, max: 7 }),
    maxLine: numberParam('maxLine', 10, { int: true, min: 2, max: 60 }),
  }),
} as const;
export type CaseStudyName = keyof typeof CASE_STUDY_PARAMS;
export type StudyParams<S extends CaseStudyName> = z.output<(typeof CASE_STUDY_PARAMS)[S]>;

/**
 * A study's parameters, validated with defaults filled, or the one message saying what is wrong (an unknown name
 * first).
 */
export function parseStudyParams<S extends CaseStudyName>(
  study: S,
  params: CaseStudyParams,
): { ok: true; value: StudyParams<S> } | { ok: false; message: string } {
  const r = CASE_STUDY_PARAMS[study].safeParse(params);
  if (r.success) return { ok: true, value: r.data as StudyParams<S> };
  const first = r.error.issues.find((i) => i.code === 'unrecognized_keys') ?? r.error.issues[0]!;
  return { ok: false, message: first.message };
}
