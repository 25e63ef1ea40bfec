/**
 * The `audit` job: samples (secret, released) of a mechanism in, a verdict on
 * a claimed eps out, with a lower confidence bound on the effective eps per
 * unit of distance and the pair and event behind it (src-worker/audit/,
 * docs/audit.md).
 */
import { z } from 'zod';
import { domainInputSchema, epsilonSchema } from './common';
import { pointsBinningSchema } from './remap';
import { auditNoteSchema } from './notes';

/** Largest samples CSV text carried in a request (characters); files are read by path. */
export const MAX_AUDIT_TEXT_CHARS = 64 * 1024 * 1024;

export const auditRequestSchema = z
  .strictObject({
    type: z.literal('audit'),
    /** The secrets' (and outputs') domain. */
    domain: domainInputSchema,
    /** The claimed eps per unit of the domain's distance. */
    epsilon: epsilonSchema,
    /** The confidence at which a true claim is refuted at most 1 - confidence of the time (default 0.99). */
    confidence: z
      .number()
      .refine((c) => c > 0 && c < 1, { message: 'confidence must be strictly between 0 and 1' })
      .optional(),
    /** Samples CSV by path (Node side) ... */
    input: z.string().min(1).max(4096).optional(),
    /** ... or as text (the app). */
    text: z
      .string()
      .max(MAX_AUDIT_TEXT_CHARS, `the samples text is longer than ${MAX_AUDIT_TEXT_CHARS} characters`)
      .optional(),
    /** The samples file's name when sent as text (messages name it). */
    name: z.string().min(1).max(4096).optional(),
    /**
     * For point samples: the grid binning of the prior (secret_x,secret_y,released_x,released_y or the lat,lon forms).
     */
    points: pointsBinningSchema.optional(),
    /** Violation sizes (true eps) whose samples-to-detect are reported (default 1.25, 1.5, 2, 3, 4 x the claim). */
    detect: z.array(epsilonSchema).min(1).max(20).optional(),
  })
  .refine((r) => (r.input === undefined) !== (r.text === undefined), {
    message: 'audit needs the samples as input (a path) or text, exactly one',
  });
export type AuditRequest = z.infer<typeof auditRequestSchema>;

const testSchema = z.object({
  /** The two secrets (labels of the domain): the event is likelier under a than the claim allows relative to b. */
  secrets: z.tuple([z.string(), z.string()]),
  /** Their indices in the domain. */
  indices: z.tuple([z.int(), z.int()]),
  distance: z.number(),
  /** The event: a set of outputs (labels), and their indices. */
  event: z.array(z.string()),
  eventIndices: z.array(z.int()),
  /** Estimation counts: the event under a (countA of samplesA) and under b. */
  countA: z.int(),
  samplesA: z.int(),
  countB: z.int(),
  samplesB: z.int(),
  /** Exact lower bound on P(event | a), upper bound on P(event | b), each at (1 - confidence) / (2 pairsTested). */
  lowerA: z.number(),
  upperB: z.number(),
  /** ln(lowerA / upperB) / distance (null when lowerA is 0). */
  bound: z.number().nullable(),
});
export type AuditTestRecord = z.infer<typeof testSchema>;

export const auditResultSchema = z.object({
  type: z.literal('audit'),
  /** refuted, not-refuted, or not-tested when no pair could be tested (no verdict either way; `note` says why). */
  verdict: z.enum(['refuted', 'not-refuted', 'not-tested']),
  /** The claim and the confidence audited. */
  epsilon: z.number(),
  confidence: z.number(),
  /** A lower confidence bound on the effective eps per unit of distance (0 when nothing beats 0). */
  epsilonLowerBound: z.number(),
  /** The test behind the bound, or null when no pair could be tested. */
  witness: testSchema.nullable(),
  /** Every test made, best first. */
  tested: z.array(testSchema),
  samples: z.int(),
  pairsTested: z.int(),
  selectionSamples: z.int(),
  estimationSamples: z.int(),
  /** Secrets with at least two samples. */
  secretsSeen: z.int(),
  domain: z.string(),
  /** Points of the domain (secrets and outputs). */
  domainPoints: z.int(),
  mode: z.enum(['labels', 'points']),
  /**
   * Samples per secret that detect a violation of a given size (true eps) on a pair at the witness's distance,
   * its event having the witness's probability under b (capped so the one under a stays below 1): the median
   * case, expected counts put in the exact bounds. null when beyond 10^9 or when the size is not above the claim.
   */
  detection: z.object({
    distance: z.number(),
    baseProbability: z.number(),
    tests: z.int(),
    rows: z.array(z.object({ epsilon: z.number(), samplesPerSecret: z.int().nullable() })),
  }),
  timeMs: z.number(),
  /**
   * With verdict not-tested: why no pair could be tested (a sentence in results kept by an older version, shown as
   * recorded).
   */
  note: z.union([auditNoteSchema, z.string()]).optional(),
});
export type AuditResult = z.infer<typeof auditResultSchema>;
