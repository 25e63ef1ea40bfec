/**
 * The `compare` job (several mechanisms on
 * one domain, prior and eps, one row of figures each, with units) and its
 * typed result, rendered to the table, the CSV and the PNG in one place
 * (src-shared/charts/compare-report.ts).
 */
import { z } from 'zod';
import {
  channelPayloadSchema,
  channelRefSchema,
  domainInputSchema,
  epsilonSchema,
  lossInputSchema,
  LP_OPTION_KEYS,
  lpOptionsOnlyForOptimal,
  lpOptionsShape,
  mechanismKindSchema,
  priorInputSchema,
} from './common';
import { mechanismSpecSchema } from './mechanism-spec';
import { remapFieldShape } from './remap';

/** Largest domain whose prior and focus rows the result carries for the map (cells). */
export const COMPARE_MAP_MAX_CELLS = 40_000;

/**
 * One mechanism to compare. By default a construction of `kind` on the job's
 * domain, prior, loss and eps (remapped if asked, with the LP options for
 * kind optimal). A mechanism already computed elsewhere (a project's) is
 * given instead by exactly one of: `mechanism`, its own construction (on the
 * job's domain and at its eps); `channelRef`, a channel the app host keeps
 * (an optimal LP: the host replaces the reference by `channel` before the job
 * reaches a worker); `channel`, the matrix itself. `kind` then says what it
 * was built as (the row's kind); remap and the LP options belong to that
 * construction and are not given here.
 */
const compareMechanismSchema = z
  .strictObject({
    kind: mechanismKindSchema,
    ...remapFieldShape,
    /** Display name (default: the kind, with "+ remap"). */
    label: z.string().min(1).max(80).optional(),
    ...lpOptionsShape,
    mechanism: mechanismSpecSchema.optional(),
    channelRef: channelRefSchema.optional(),
    channel: channelPayloadSchema.optional(),
  })
  .refine(...lpOptionsOnlyForOptimal)
  .refine((m) => [m.mechanism, m.channelRef, m.channel].filter((x) => x !== undefined).length <= 1, {
    message:
      'a mechanism to compare gives at most one of mechanism (a construction), channelRef (a channel the app keeps) or channel (a matrix)',
  })
  .refine((m) => !isGivenMechanism(m) || (m.remap === undefined && LP_OPTION_KEYS.every((k) => m[k] === undefined)), {
    message:
      'remap and the LP options belong to the construction: with mechanism, channelRef or channel they are not given again',
  })
  .refine((m) => m.mechanism === undefined || m.mechanism.kind === m.kind, {
    message: "kind must be the kind of the given mechanism's construction",
  });
export type CompareMechanism = z.infer<typeof compareMechanismSchema>;

/** A mechanism computed elsewhere (its construction, a kept channel or a matrix), not built from `kind` by the job. */
export function isGivenMechanism(m: { mechanism?: unknown; channelRef?: unknown; channel?: unknown }): boolean {
  return m.mechanism !== undefined || m.channelRef !== undefined || m.channel !== undefined;
}

export const compareRequestSchema = z.strictObject({
  type: z.literal('compare'),
  domain: domainInputSchema,
  epsilon: epsilonSchema,
  prior: priorInputSchema.optional(),
  /** The loss the optimal LP minimises and the remap of a `remap: true` row follows (default dist). */
  loss: lossInputSchema.optional(),
  mechanisms: z
    .array(compareMechanismSchema)
    .min(1, 'compare needs at least one mechanism')
    .max(8, 'compare takes at most 8 mechanisms'),
  /**
   * The secret (cell index) whose output distributions the result carries for the map (default: the most likely cell).
   */
  focus: z.int().min(0).optional(),
});
export type CompareRequest = z.infer<typeof compareRequestSchema>;

/**
 * The comparison solves an optimal LP itself (Stop then keeps its best mechanism); a kept or given channel is not
 * solved again.
 */
export function compareBuildsLp(req: Pick<CompareRequest, 'mechanisms'>): boolean {
  return req.mechanisms.some((m) => m.kind === 'optimal' && m.channel === undefined && m.channelRef === undefined);
}

const fig = z.number().nullable();

/**
 * Why a row's figures are missing or qualified, one typed note each; the
 * words are written in one place (src-shared/charts/compare-words.ts) for the
 * CLI and the app, which also says there what an optimal row's `lp` record means.
 */
const compareNoteSchema = z.discriminatedUnion('kind', [
  /** The tight-constraints mechanism does not exist at this eps: the solution z of Phi z = 1 has a negative entry. */
  z.object({ kind: z.literal('tight-does-not-exist'), epsilon: z.number(), minZ: z.number(), minZAt: z.string() }),
  /** The construction could not be built here (its message). */
  z.object({ kind: z.literal('not-built'), reason: z.string() }),
  /** The channel's outputs are not the secrets: no face-value distance, no probability of the true cell. */
  z.object({ kind: z.literal('outputs-not-secrets'), outputs: z.int() }),
  /** The remapped distance is within `slack` of the best remap (the windowed remap on large grids). */
  z.object({ kind: z.literal('remap-within'), slack: z.number() }),
  /** The effective eps was not computed: the check would be too costly (its message). */
  z.object({ kind: z.literal('check-too-costly'), reason: z.string() }),
  /** Not private as stored: a positive entry faces a 0 in the same column (infinite privacy loss). */
  z.object({ kind: z.literal('not-private-zero') }),
  /**
   * Not private as stored: the effective eps is above the construction's guarantee, or the comparison's eps for a given
   * channel.
   */
  z.object({
    kind: z.literal('not-private-above'),
    effectiveEpsilon: z.number(),
    limit: z.number(),
    against: z.enum(['guaranteed', 'comparison']),
  }),
]);
export type CompareNote = z.infer<typeof compareNoteSchema>;

/** Why there is no planar Laplace baseline (and no "vs planar Laplace" column). */
const compareBaselineNoteSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('not-a-grid') }),
  z.object({ kind: z.literal('failed'), reason: z.string() }),
  z.object({ kind: z.literal('degenerate'), expectedDistance: z.number().nullable() }),
]);
export type CompareBaselineNote = z.infer<typeof compareBaselineNoteSchema>;

const compareRowSchema = z.object({
  label: z.string(),
  kind: mechanismKindSchema,
  remap: z.boolean(),
  exists: z.boolean(),
  /**
   * E[d(x, y)] = sum_x pi_x sum_y C[x][y] d(x, y): the released output taken at face value (unit: the result's `unit`).
   */
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
  /**
   * 100 (E_PL - E) / E_PL with E_PL planar Laplace's expected distance at face value (same eps, prior): > 0 is better.
   */
  betterThanPlanarLaplacePct: fig,
  /**
   * Optimal rows: the LP's record for the job's loss (objective, certified lower bound on the model's optimum, relative
   * gap).
   */
  lp: z
    .object({
      model: z.string(),
      objective: z.number(),
      lowerBound: z.number().nullable(),
      gap: z.number().nullable(),
      stoppedBy: z.string(),
      /**
       * The loss the LP minimised ('dist', 'bin', ..., or 'custom' for a matrix); absent in older results: the
       * comparison's `loss`.
       */
      loss: z.string().optional(),
      /**
       * What `gap` is against: 'exact', a certified bound on the best possible; 'model', the solved model's own bound
       * (a spanner's optimum is not the best possible). Absent in older results: 'model' for a spanner, else 'exact'
       * (the exact and graph-edge models bound the best possible).
       */
      gapBasis: z.enum(['exact', 'model']).optional(),
    })
    .optional(),
  /** Why a figure is missing or qualified (absent when nothing is). */
  notes: z.array(compareNoteSchema).optional(),
  /** Results kept by an older version carry their notes as one sentence, shown as recorded. */
  note: z.string().optional(),
  /** The output distribution of the focus secret (row of the channel), for the map. */
  focusRow: z.array(z.number()).optional(),
  timeMs: z.number(),
});
export type CompareRow = z.infer<typeof compareRowSchema>;

/** The figures of a row whose construction does not exist here (or failed): none. */
export const NO_COMPARE_FIGURES = {
  expectedDistance: null,
  expectedDistanceRemapped: null,
  pTrue: null,
  leakageBits: null,
  effectiveEpsilon: null,
  guaranteedEpsilon: null,
} as const satisfies Partial<CompareRow>;

export const compareResultSchema = z.object({
  type: z.literal('compare'),
  domain: z.string(),
  epsilon: z.number(),
  /** Unit of distances: 'km' on grids (the cell step is in km), else 'd' (the metric's unit). */
  unit: z.string(),
  grid: z.object({ rows: z.int(), cols: z.int(), step: z.number() }).nullable(),
  loss: z.string(),
  /**
   * Planar Laplace's expected distance at face value: the baseline of betterThanPlanarLaplacePct (null when not
   * applicable).
   */
  baseline: fig,
  /** A string in results kept by an older version: shown as recorded. */
  baselineNote: z.union([compareBaselineNoteSchema, z.string()]).optional(),
  rows: z.array(compareRowSchema),
  /** The prior (when the domain has at most COMPARE_MAP_MAX_CELLS points). */
  prior: z.array(z.number()).optional(),
  focus: z.int().nullable(),
  focusLabel: z.string().nullable(),
});
export type CompareResult = z.infer<typeof compareResultSchema>;
