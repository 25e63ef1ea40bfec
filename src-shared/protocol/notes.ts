/**
 * Why a result's figures are missing or qualified, as values (each note discriminated by `kind`, carrying its
 * numbers); src-shared/charts/note-words.ts words them for the app, the CLI and the reports. Results kept by an
 * earlier version carry a note as one sentence instead: it is shown as recorded.
 */
import { z } from 'zod';

const double = z.union([z.number(), z.nan(), z.literal(Infinity), z.literal(-Infinity)]).nullable();

/**
 * A prior's regularity at one eps (SPEC §5): decided by mu Phi = pi (the smallest mu and where) or, Phi singular, by an
 * LP.
 */
export const regularityNoteSchema = z.discriminatedUnion('kind', [
  /** mu >= 0: regular. */
  z.object({ kind: z.literal('regular'), minMu: double, minMuAt: z.string() }),
  /** Some mu < 0: not regular, the weight the prior would need on a corner prior. */
  z.object({
    kind: z.literal('not-regular'),
    domain: z.string(),
    epsilon: z.number(),
    minMu: double,
    minMuAt: z.string(),
  }),
  /** Phi singular: an LP decided whether some mu >= 0 solves mu Phi = pi. */
  z.object({ kind: z.literal('singular'), regular: z.boolean() }),
]);
export type RegularityNote = z.infer<typeof regularityNoteSchema>;

/** Why a sweep point or bound is missing. */
export const sweepNoteSchema = z.discriminatedUnion('kind', [
  ...regularityNoteSchema.options,
  /** The tight-constraints mechanism does not exist: Phi z = 1 has a negative entry (the smallest and where). */
  z.object({ kind: z.literal('tight-does-not-exist'), minZ: double, minZAt: z.string() }),
  /** The bounds were refused on this domain (their cost, in the admission's words). */
  z.object({ kind: z.literal('bounds-too-costly'), reason: z.string() }),
  /** The construction or the bound failed (the error's message). */
  z.object({ kind: z.literal('failed'), message: z.string() }),
]);
/** A sweep note, or (results kept by an earlier version) its sentence as recorded. */
export const storedSweepNoteSchema = z.union([sweepNoteSchema, z.string()]);
export type StoredSweepNote = z.infer<typeof storedSweepNoteSchema>;

/** What qualifies a threshold search's answer. */
export const thresholdNoteSchema = z.discriminatedUnion('kind', [
  /** No grid point of [from, to] has a tight-constraints mechanism. */
  z.object({ kind: z.literal('none-in-range') }),
  /** It exists at the range's lower end already: the true threshold may be lower. */
  z.object({ kind: z.literal('at-lower-end') }),
]);
export type ThresholdNote = z.infer<typeof thresholdNoteSchema>;

/** What qualifies a release. */
export const applyNoteSchema = z.discriminatedUnion('kind', [
  /** A seeded stream (--seed): reproducible, not for release; the file's first line says so. */
  z.object({ kind: z.literal('seeded-stream') }),
]);
export type ApplyNote = z.infer<typeof applyNoteSchema>;

/** Why the explorer has no simplex view. */
export const simplexNoteSchema = z.discriminatedUnion('kind', [
  /** The view draws 3-point domains only. */
  z.object({ kind: z.literal('needs-three-points'), points: z.int() }),
  /** It could not be computed (the error's message). */
  z.object({ kind: z.literal('failed'), message: z.string() }),
]);
export type SimplexNote = z.infer<typeof simplexNoteSchema>;

/**
 * Why a capacity-table row's cells are empty: the vertex or kernel enumeration refused its domain (src-worker/explorer:
 * the refusal's detail is this note).
 */
export const capacityNoteSchema = z.discriminatedUnion('kind', [
  /** More points than the enumeration takes. */
  z.object({ kind: z.literal('too-many-points'), n: z.int(), limit: z.int() }),
  /** e^(eps d) overflows a double for the pair (a, b) at distance `distance`. */
  z.object({
    kind: z.literal('ratio-overflow'),
    a: z.string(),
    b: z.string(),
    distance: z.number(),
    epsilon: z.number(),
  }),
  /**
   * The vertex enumeration met more extreme rays than its limit while adding constraint `constraint` of
   * `constraints`.
   */
  z.object({ kind: z.literal('too-many-rays'), maxRays: z.int(), constraint: z.int(), constraints: z.int() }),
  /** The kernel enumeration could examine more vertex subsets (of at most n of the vertices) than its limit. */
  z.object({
    kind: z.literal('too-many-subsets'),
    domain: z.string(),
    epsilon: z.number(),
    upperBound: z.number(),
    maxSubsets: z.number(),
    vertices: z.int(),
    n: z.int(),
  }),
  /** Another refusal as too large (the error's message). */
  z.object({ kind: z.literal('refused'), message: z.string() }),
]);
export type CapacityNote = z.infer<typeof capacityNoteSchema>;

/** Why an audit tested no pair of secrets (its verdict is not-tested). */
export const auditNoteSchema = z.discriminatedUnion('kind', [
  /** The log has samples of fewer than two secrets. */
  z.object({ kind: z.literal('too-few-secrets'), secrets: z.int() }),
  /** Fewer than two of its secrets have two samples or more. */
  z.object({ kind: z.literal('too-few-sampled'), sampled: z.int(), secrets: z.int() }),
  /**
   * No pair of the `sampled` secrets with two samples or more is at a finite distance > 0 with samples in both
   * parts.
   */
  z.object({ kind: z.literal('no-usable-pair'), sampled: z.int() }),
]);
export type AuditNote = z.infer<typeof auditNoteSchema>;

/** Why a cheap construction tried before the optimal LP has no expected loss. */
export const candidateNoteSchema = z.discriminatedUnion('kind', [
  /** Left out: it would end past the time limit. */
  z.object({ kind: z.literal('not-tried') }),
  /** The tight-constraints mechanism does not exist: its output weight at `minZAt` would be negative. */
  z.object({ kind: z.literal('tight-does-not-exist'), minZAt: z.string() }),
  /** Planar Laplace applies to grids only. */
  z.object({ kind: z.literal('grids-only') }),
  /** A candidate handed to the LP without a channel or a reason. */
  z.object({ kind: z.literal('not-built') }),
  /** Its construction failed (the error's message). */
  z.object({ kind: z.literal('failed'), message: z.string() }),
]);
export type CandidateNote = z.infer<typeof candidateNoteSchema>;
