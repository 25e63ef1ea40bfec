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
