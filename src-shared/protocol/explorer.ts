/**
 * The privacy-type explorer's job (SPEC §6): for a small domain and an eps,
 * the simplex view's data (3 points) and the capacity table's rows (up to 5
 * points; for line, ring and clique every size from 2 up). The renderer draws
 * them; the engine computes them (src-worker/jobs/explorer-job.ts).
 */
import { z } from 'zod';
import { capacityNoteSchema, simplexNoteSchema } from './notes';
import { domainEpsilonResultShape, domainInputSchema, epsilonSchema } from './common';

const num = z.number();

const point2Schema = z.object({ x: num, y: num });
const barySchema = z.tuple([num, num, num]);
const ternaryPointSchema = z.object({ bary: barySchema, xy: point2Schema });
const ternaryPosteriorSchema = ternaryPointSchema.extend({
  /** Outer probability p(y) of the output. */
  outer: num,
  /** Output label (column). */
  label: z.string(),
});
const ternaryMechanismViewSchema = z.object({ name: z.string(), posteriors: z.array(ternaryPosteriorSchema) });

/** Everything the simplex view draws, as plain serialisable data. */
const ternaryViewSchema = z.object({
  labels: z.tuple([z.string(), z.string(), z.string()]),
  eps: num,
  corners: z.array(point2Schema),
  /** The eps*d-private posteriors: polygon vertices in counter-clockwise order. */
  privateRegion: z.array(ternaryPointSchema),
  /** Area of the private region as a fraction of the simplex. */
  privateArea: num,
  cornerPriors: z.array(ternaryPointSchema),
  /** Convex hull of the corner priors (SPEC §5), counter-clockwise. */
  regularRegion: z.array(point2Schema),
  regularArea: num,
  uniform: ternaryPointSchema.extend({ regular: z.boolean() }),
  /** Mechanisms whose posteriors can be shown (e.g. the kernel mechanisms). */
  mechanisms: z.array(ternaryMechanismViewSchema),
});

/** One row of the explorer's capacity table. */
const capacityRowSchema = z.object({
  /** Domain spec, e.g. "line:4". */
  domain: z.string(),
  /** Number of secrets n. */
  size: z.int(),
  /** Vertices of the private-posterior polytope (null when not computed). */
  vertices: z.int().nullable(),
  /** Kernel mechanisms of every size (null when the enumeration was refused or skipped). */
  kernels: z.int().nullable(),
  /** Multiplicative capacity max sum_y max_x C[x][y] over eps*d-private C. */
  multiplicative: num.nullable(),
  /** Additive capacity 1 - min sum_y min_x C[x][y]. */
  additive: num.nullable(),
  /** Where the capacities come from: the kernel enumeration, an LP, or nowhere. */
  source: z.enum(['kernels', 'lp']).nullable(),
  /**
   * Why the cells are empty (the enumeration refused the domain), if they are; a sentence in results kept by an older
   * version, shown as recorded.
   */
  note: z.union([capacityNoteSchema, z.string()]).optional(),
});

export const explorerRequestSchema = z.strictObject({
  type: z.literal('explorer'),
  domain: domainInputSchema,
  epsilon: epsilonSchema,
});

export const explorerResultSchema = z.object({
  ...domainEpsilonResultShape('explorer'),
  /** The simplex view (3-point domains), or null with `simplexNote` saying why. */
  simplex: ternaryViewSchema.nullable(),
  /** Why there is no simplex view (a sentence in results kept by an older version, shown as recorded). */
  simplexNote: z.union([simplexNoteSchema, z.string()]).optional(),
  /** The capacity table (domains of at most EXPLORER_TABLE_MAX_N points), or null. */
  capacityRows: z.array(capacityRowSchema).nullable(),
});

/** Largest domain whose capacity table the explorer computes (kernel enumeration stays instant). */
export const EXPLORER_TABLE_MAX_N = 5;

export type Bary = z.infer<typeof barySchema>;
export type Point2 = z.infer<typeof point2Schema>;
export type TernaryPoint = z.infer<typeof ternaryPointSchema>;
export type TernaryPosterior = z.infer<typeof ternaryPosteriorSchema>;
export type TernaryView = z.infer<typeof ternaryViewSchema>;
export type CapacityRow = z.infer<typeof capacityRowSchema>;
export type ExplorerRequest = z.infer<typeof explorerRequestSchema>;
export type ExplorerResult = z.infer<typeof explorerResultSchema>;
