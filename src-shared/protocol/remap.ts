/**
 * The remap and apply in the protocol: the `remap` modifier of a mechanism (request
 * field + typed result record) and the `apply` job (a channel or a
 * construction, a secrets CSV in, a released CSV out).
 */
import { z } from 'zod';
import { applyNoteSchema } from './notes';

/**
 * `remap: true` on a mechanism (request, spec, project item): follow it by the Bayesian remap of its outputs for the
 * prior and loss.
 */
export const remapFieldShape = {
  remap: z.boolean().optional(),
};

/**
 * A remap minimises an expected loss: the loss must be given. The prior is
 * the mechanism's (uniform when none is given, as everywhere in requests and
 * projects; the CLI asks for --prior explicitly).
 */
export function remapNeedsLoss(r: { remap?: boolean | undefined; loss?: unknown }): boolean {
  return r.remap !== true || r.loss !== undefined;
}
export const remapNeedsLossMessage = {
  message: 'remap needs a loss (the remap minimises the expected loss under the prior, uniform when none is given)',
};

/**
 * What the remap did (SPEC §3): the remapped channel C . R is what
 * the mechanism result carries (rows, matrix, csv, effective eps); this
 * record compares the losses.
 */
export const remapResultSchema = z.object({
  /**
   * Expected loss of the original channel at face value (output = guess); null when the outputs are not the guesses.
   */
  originalLoss: z.number().nullable(),
  /** How originalLoss is defined here (one sentence). */
  originalDefinition: z.string(),
  /** Expected loss of the remapped channel C . R = U_l[pi > C] (the optimal-remap measure). */
  remappedLoss: z.number(),
  /** originalLoss - remappedLoss (>= 0 up to rounding), or null. */
  improvement: z.number().nullable(),
  /** On windowed large grids the true losses lie in [value, value + valueSlack]; 0 when exact. */
  valueSlack: z.number(),
  /** How each output's guess was found: certified-grid, certified-window, loss-best or measure. */
  method: z.enum(['certified-grid', 'certified-window', 'loss-best', 'measure']),
  /** Distinct guesses the remap uses (outputs merged into the same guess). */
  guessesUsed: z.int(),
  /** Certified lower bound on the optimal expected loss (from the optimal LP of this job), or null. */
  lpLowerBound: z.number().nullable(),
  /** Certified lower bound on the exact all-pairs optimum, or null. */
  lpExactLowerBound: z.number().nullable(),
  /** Why there is no LP bound, or what it is. */
  lpNote: z.string(),
  timeMs: z.number(),
});
export type RemapResult = z.infer<typeof remapResultSchema>;

/** The grid binning of a points prior (data/points.ts), so points in a secrets CSV map to the same cells. */
export const pointsBinningSchema = z.strictObject({
  rows: z.int().min(1),
  cols: z.int().min(1),
  cellKm: z.number().positive(),
  xMin: z.number(),
  yMax: z.number(),
  /** For lat,lon data: the local projection's centre and latitude range (data/points.ts localProjection). */
  projection: z.strictObject({ lat0: z.number(), lon0: z.number(), latMin: z.number(), latMax: z.number() }).nullable(),
});
export type PointsBinning = z.infer<typeof pointsBinningSchema>;

export const applyResultSchema = z.object({
  type: z.literal('apply'),
  rows: z.int(),
  /** false for a seeded stream: the file starts with the NOT FOR RELEASE comment. */
  forRelease: z.boolean(),
  /** 'labels' (cell labels / values) or 'points' (x,y or lat,lon mapped to cells). */
  mode: z.enum(['labels', 'points']),
  /** Whether line 1 of the secrets CSV was read as a header (else it was released as the first secret). */
  header: z.boolean(),
  domain: z.string(),
  /** Outputs of the channel used (guesses when remapped). */
  outputs: z.int(),
  csvPath: z.string(),
  timeMs: z.number(),
  rowsBuilt: z.int(),
  /** The mechanism's remap record, when the construction was remapped. */
  remap: remapResultSchema.optional(),
  /**
   * A channel released (not a construction): the eps it was checked private at (null: none asked, its effective eps).
   */
  checkedEpsilon: z.number().nullable().optional(),
  /**
   * A channel released: its effective eps on the domain (on the labels' discrete metric without one), as the privacy
   * check found it.
   */
  effectiveEpsilon: z.number().optional(),
  /** What qualifies the release (a seeded stream is not for release). */
  notes: z.array(applyNoteSchema).optional(),
});
export type ApplyResult = z.infer<typeof applyResultSchema>;
