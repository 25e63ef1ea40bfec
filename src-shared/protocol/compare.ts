/**
 * Issue 15 item 2 in the protocol: the `compare` job (several mechanisms on
 * one domain, prior and eps, one row of figures each, with units) and its
 * typed result, rendered to the table, the CSV and the PNG in one place
 * (src-shared/charts/compare-report.ts).
 */
import { z } from 'zod';
import { domainInputSchema, epsilonSchema, lossInputSchema, lpOptionsOnlyForOptimal, lpOptionsShape, mechanismKindSchema, priorInputSchema } from './common';
import { remapFieldShape } from './remap';

/** Largest domain whose prior and focus rows the result carries for the map (cells). */
export const COMPARE_MAP_MAX_CELLS = 40_000;

/** One mechanism to compare: a construction on the job's domain, prior, loss and eps, remapped if asked. */
export const compareMechanismSchema = z
  .strictObject({
    kind: mechanismKindSchema,
    ...remapFieldShape,
    /** Display name (default: the kind, with "+ remap"). */
    label: z.string().min(1).max(80).optional(),
    ...lpOptionsShape,
  })
  .refine(...lpOptionsOnlyForOptimal);
export type CompareMechanism = z.infer<typeof compareMechanismSchema>;

export const compareRequestSchema = z.strictObject({
  type: z.literal('compare'),
  domain: domainInputSchema,
  epsilon: epsilonSchema,
  prior: priorInputSchema.optional(),
  /** The loss the optimal LP minimises and the remap of a `remap: true` row follows (default dist). */
  loss: lossInputSchema.optional(),
  mechanisms: z.array(compareMechanismSchema).min(1, 'compare needs at least one mechanism').max(8, 'compare takes at most 8 mechanisms'),
  /** The secret (cell index) whose output distributions the result carries for the map (default: the most likely cell). */
  focus: z.int().min(0).optional(),
});
export type CompareRequest = z.infer<typeof compareRequestSchema>;

const fig = z.number().nullable();

export const compareRowSchema = z.object({
  label: z.string(),
  kind: mechanismKindSchema,
  remap: z.boolean(),
  exists: z.boolean(),
  /** E[d(x, y)] = sum_x pi_x sum_y C[x][y] d(x, y): the released output taken at face value (unit: the result's `unit`). */
  expectedDistance: fig,
  /** E[d] after the optimal (Bayesian) remap of the outputs for the distance loss. */
  expectedDistanceRemapped: fig,
  /** sum_x pi_x C[x][x]: probability of reporting the true cell. */
  pTrue: fig,
  /** Min-entropy leakage log2(V[pi > C] / V[pi]) in bits. */
  leakageBits: fig,
  /** Effective eps of the channel as stored: largest ln(C[x][y] / C[x'][y]) / d(x, x'), per unit of distance. */
  effectiveEpsilon: fig,
  /** The construction's guarantee (eps per unit of distance). */
  guaranteedEpsilon: fig,
  /** 100 (E_PL - E) / E_PL with E_PL planar Laplace's expected distance at face value (same eps, prior): > 0 is better. */
  betterThanPlanarLaplacePct: fig,
  /** Optimal rows: the LP's record for the job's loss (objective, certified lower bound on the model's optimum, relative gap). */
  lp: z
    .object({
      model: z.string(),
      objective: z.number(),
      lowerBound: z.number().nullable(),
      gap: z.number().nullable(),
      stoppedBy: z.string(),
    })
    .optional(),
  /** Why a figure is missing or qualified. */
  note: z.string().optional(),
  /** The output distribution of the focus secret (row of the channel), for the map. */
  focusRow: z.array(z.number()).optional(),
  timeMs: z.number(),
});
export type CompareRow = z.infer<typeof compareRowSchema>;

export const compareResultSchema = z.object({
  type: z.literal('compare'),
  domain: z.string(),
  epsilon: z.number(),
  /** Unit of distances: 'km' on grids (the cell step is in km), else 'd' (the metric's unit). */
  unit: z.string(),
  grid: z.object({ rows: z.int(), cols: z.int(), step: z.number() }).nullable(),
  loss: z.string(),
  /** Planar Laplace's expected distance at face value: the baseline of betterThanPlanarLaplacePct (null when not applicable). */
  baseline: fig,
  baselineNote: z.string().optional(),
  rows: z.array(compareRowSchema),
  /** The prior (when the domain has at most COMPARE_MAP_MAX_CELLS points). */
  prior: z.array(z.number()).optional(),
  focus: z.int().nullable(),
  focusLabel: z.string().nullable(),
});
export type CompareResult = z.infer<typeof compareResultSchema>;
