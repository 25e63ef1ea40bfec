/**
 * Case studies (resources/examples/, issue 8): a named computation of
 * src-worker/casestudy/ with its parameters, run as one job, answering with
 * tables (CSV), chart specifications (rendered to PNG on the Node side) and
 * findings (markdown sentences for summary.md). Additive to the protocol:
 * projects carry them in an optional top-level `caseStudies` list, so the
 * standard analyses and the app are unchanged.
 */
import { z } from 'zod';

const id = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z0-9_.-]+$/, 'ids use letters, digits, _ . - only (they name output files)');

/** Parameters: numbers, strings, booleans or lists of numbers (each study validates its own). */
export const caseStudyParamsSchema = z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.array(z.number())]));

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
export const caseStudyPartSchema = z.strictObject({ start: z.int().min(0), count: z.int().min(1).max(100_000) });

export const caseStudyRequestSchema = z.strictObject({
  type: z.literal('case-study'),
  study: z.string().min(1).max(80),
  /** csv:FILE parameters must have been resolved to number lists on the Node side. */
  params: caseStudyParamsSchema.optional(),
  part: caseStudyPartSchema.optional(),
});

const cellSchema = z.union([z.number(), z.string(), z.boolean(), z.null()]);
export const caseStudyTableSchema = z.object({
  id,
  title: z.string(),
  header: z.array(z.string()),
  rows: z.array(z.array(cellSchema)),
});
export const chartSeriesSchema = z.object({
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
export const chartSpecSchema = z.object({
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
  /** Markdown paragraphs/bullets stating the numbers and what they mean. */
  findings: z.array(z.string()),
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
export type ProjectCaseStudy = z.infer<typeof projectCaseStudySchema>;
export type CaseStudyRequest = z.infer<typeof caseStudyRequestSchema>;
export type CaseStudyTable = z.infer<typeof caseStudyTableSchema>;
export type ChartSeries = z.infer<typeof chartSeriesSchema>;
export type ChartSpec = z.infer<typeof chartSpecSchema>;
export type CaseStudyResult = z.infer<typeof caseStudyResultSchema>;
