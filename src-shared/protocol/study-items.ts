/**
 * Comparisons and audits as project items (project.ts `comparisons`,
 * `audits`): what the Compare and Audit views ran, with their inputs as the
 * user gave them (an eps as typed, "ln 4"; the audited file's name, size and
 * SHA-256, never its rows) and the result they showed, so that a saved study
 * reopens with them. Optional and additive: they do not change the project file's version.
 */
import { z } from 'zod';
import { epsilonSchema, lpOptionsShape } from './common';
import { compareResultSchema } from './compare';
import { auditResultSchema } from './audit';
import { pointsBinningSchema } from './remap';

const itemId = z
  .string()
  .min(1, 'id is empty')
  .max(80)
  .regex(/^[A-Za-z0-9_.-]+$/, 'ids use letters, digits, _ . - only (they name output files)');
/** A number as the user typed it (a number or an expression such as ln 4). */
const typedNumber = z.string().min(1, 'the typed value is empty').max(200);
const when = z.string().max(40);

/** The new constructions a comparison may build (the Compare view's chips). */
export const COMPARE_CANDIDATE_KEYS = [
  'planar-laplace',
  'planar-laplace+remap',
  'tight',
  'tight+remap',
  'exponential',
  'exponential+remap',
  'optimal',
] as const;

export const projectComparisonSchema = z.strictObject({
  id: itemId,
  /** The grid domain compared on, and its prior (absent: uniform). */
  domain: itemId,
  prior: itemId.optional(),
  epsilon: epsilonSchema,
  epsilonText: typedNumber.optional(),
  /** New constructions compared, and the project's own mechanisms (by id) compared as they were kept. */
  kinds: z
    .array(z.enum(COMPARE_CANDIDATE_KEYS, { error: `a compared kind is one of ${COMPARE_CANDIDATE_KEYS.join(', ')}` }))
    .max(8),
  mechanisms: z.array(itemId).max(8),
  /** The optimal entry's LP options. */
  lp: z.strictObject({ ...lpOptionsShape }).optional(),
  result: compareResultSchema.optional(),
  computedAt: when.optional(),
});
export type ProjectComparison = z.infer<typeof projectComparisonSchema>;

/** A file as it was read: its name, size in bytes and SHA-256 (64 hex digits). */
export const fileRecordSchema = z.strictObject({
  name: z.string().min(1).max(4096),
  size: z.int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a file sha256 is 64 lowercase hex digits'),
});
export type FileRecord = z.infer<typeof fileRecordSchema>;

export const projectAuditSchema = z.strictObject({
  id: itemId,
  /** The samples' domain as given (SPEC §8 text). */
  domain: z.string().min(1).max(100_000),
  /** For point samples (x,y or lat,lon): the prior whose points grid bins them, and that binning. */
  pointsPrior: itemId.optional(),
  points: pointsBinningSchema.optional(),
  epsilon: epsilonSchema,
  epsilonText: typedNumber,
  confidence: z.number().refine((c) => c > 0 && c < 1, { message: 'confidence must be strictly between 0 and 1' }),
  detect: z.array(epsilonSchema).min(1).max(20).optional(),
  /** The samples file (absent: the built-in example, named by `example`). */
  file: fileRecordSchema.optional(),
  example: z.string().max(200).optional(),
  result: auditResultSchema.optional(),
  computedAt: when.optional(),
});
export type ProjectAudit = z.infer<typeof projectAuditSchema>;
