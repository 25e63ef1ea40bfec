/**
 * Job requests: one discriminated union on `type`. Each maps to a handler in
 * src-worker/jobs/ and to a CLI command of SPEC §8.
 */
import { z } from 'zod';
import {
  channelPayloadSchema,
  channelRefSchema,
  domainInputSchema,
  epsilonSchema,
  lossInputSchema,
  lpOptionsOnlyForOptimal,
  priorInputSchema,
} from './common';
import { mechanismSpecSchema, mechanismSpecShape, type MechanismSpec } from './mechanism-spec';
import { sweepRangeShape } from './sweep';
import { projectSchema } from './project';
import { caseStudyRequestSchema } from './casestudy';
import { pointsBinningSchema, remapNeedsLoss, remapNeedsLossMessage } from './remap';
import { compareRequestSchema } from './compare';
import { explorerRequestSchema } from './explorer';
import { auditRequestSchema } from './audit';

/** Optional "where to stream the dense matrix as CSV" (Node side only; web mode refuses it). */
const outPath = z.string().min(1).max(4096).optional();

const mechanismRequestSchema = z
  .strictObject({
    type: z.literal('mechanism'),
    ...mechanismSpecShape,
    /** Stream the full channel to this CSV file (SPEC §8 channel CSV). */
    out: outPath,
    /** Carry the matrix inline when rows*cols <= this (default INLINE_MATRIX_LIMIT). */
    inlineLimit: z.int().min(0).max(4_000_000).optional(),
    /** Ask the app host to keep the channel and return its `channelRef` (measure, check and rows name it then). */
    keepChannel: z.boolean().optional(),
  })
  .refine(...lpOptionsOnlyForOptimal)
  .refine(remapNeedsLoss, remapNeedsLossMessage);

export { type MechanismSpec };

const oneChannel = <T extends { channel?: unknown; mechanism?: unknown; channelRef?: unknown }>(r: T): boolean =>
  [r.channel, r.mechanism, r.channelRef].filter((x) => x !== undefined).length === 1;
const oneChannelMessage = {
  message:
    'give exactly one of channel (a matrix), mechanism (a construction) or channelRef (a channel the host keeps)',
};

const measureRequestSchema = z
  .strictObject({
    type: z.literal('measure'),
    channel: channelPayloadSchema.optional(),
    mechanism: mechanismSpecSchema.optional(),
    channelRef: channelRefSchema.optional(),
    domain: domainInputSchema.optional(),
    epsilon: epsilonSchema.optional(),
    prior: priorInputSchema.optional(),
    loss: lossInputSchema.optional(),
  })
  .refine(oneChannel, oneChannelMessage);

const checkRequestSchema = z
  .strictObject({
    type: z.literal('check'),
    channel: channelPayloadSchema.optional(),
    mechanism: mechanismSpecSchema.optional(),
    channelRef: channelRefSchema.optional(),
    domain: domainInputSchema,
    epsilon: epsilonSchema,
    /** How many worst violating pairs to list. */
    maxViolations: z.int().min(0).max(1000).optional(),
  })
  .refine(oneChannel, oneChannelMessage);

const capacityRequestSchema = z.strictObject({
  type: z.literal('capacity'),
  domain: domainInputSchema,
  epsilon: epsilonSchema,
  out: outPath,
  inlineLimit: z.int().min(0).max(4_000_000).optional(),
});

const regularRequestSchema = z.strictObject({
  type: z.literal('regular'),
  domain: domainInputSchema,
  epsilon: epsilonSchema,
  prior: priorInputSchema,
});

const thresholdRequestSchema = z
  .strictObject({
    type: z.literal('threshold'),
    domain: domainInputSchema,
    from: epsilonSchema.optional(),
    to: epsilonSchema.optional(),
    step: epsilonSchema.optional(),
  })
  .refine((r) => r.from === undefined || r.to === undefined || r.from <= r.to, {
    message: 'threshold: from must be <= to',
  });

const verticesRequestSchema = z.strictObject({
  type: z.literal('vertices'),
  domain: domainInputSchema,
  epsilon: epsilonSchema,
  kernels: z.boolean().optional(),
  /** Return the vertex coordinates when there are at most this many (default 1000). */
  listLimit: z.int().min(0).max(100_000).optional(),
});

/** A family of mechanisms over an eps range: utility, leakage and bound curves for charts. */
const sweepRequestSchema = z
  .strictObject({
    type: z.literal('sweep'),
    domain: domainInputSchema,
    ...sweepRangeShape,
    prior: priorInputSchema.optional(),
    loss: lossInputSchema.optional(),
    /**
     * Compute only the eps values start .. start+count-1 of the grid (the same floats as the whole sweep),
     * so that a sweep can be fanned out over workers and its parts concatenated (src-main/dispatcher/fan-out.ts).
     */
    slice: z.strictObject({ start: z.int().min(0), count: z.int().min(1) }).optional(),
  })
  .refine((r) => r.from <= r.to, { message: 'sweep: from must be <= to' })
  .refine((r) => !r.slice || r.slice.start + r.slice.count <= r.steps, {
    message: 'sweep: slice must lie within the steps',
  });

/** Most rows a `rows` job returns, and most entries (rows x columns) in one answer. */
const ROWS_MAX_INDICES = 1000;
export const ROWS_MAX_ENTRIES = 2_000_000;
/** Most blocks per side of a block-mean heat map. */
const ROWS_MAX_BLOCKS = 400;

/**
 * Part of a mechanism's channel for a view, computed in the engine from its
 * construction (the page never holds the n x n matrix): the given secret
 * rows (optionally a column range [colFrom, colTo)), or the block means of
 * the whole channel on at most `blocks` x `blocks` blocks (a heat map).
 */
const rowsRequestSchema = z
  .strictObject({
    type: z.literal('rows'),
    mechanism: mechanismSpecSchema.optional(),
    channel: channelPayloadSchema.optional(),
    channelRef: channelRefSchema.optional(),
    rows: z
      .array(z.int().min(0, 'row indices must be >= 0'))
      .min(1)
      .max(ROWS_MAX_INDICES, `at most ${ROWS_MAX_INDICES} rows per request`)
      .optional(),
    colFrom: z.int().min(0).optional(),
    colTo: z.int().min(1).optional(),
    blocks: z.int().min(1).max(ROWS_MAX_BLOCKS, `at most ${ROWS_MAX_BLOCKS} blocks per side`).optional(),
  })
  .refine(oneChannel, oneChannelMessage)
  .refine((r) => (r.rows === undefined) !== (r.blocks === undefined), {
    message: 'give exactly one of rows (row indices) or blocks (block means)',
  })
  .refine((r) => r.colFrom === undefined || r.colTo === undefined || r.colFrom < r.colTo, {
    message: 'colFrom must be < colTo',
  })
  .refine((r) => r.blocks === undefined || (r.colFrom === undefined && r.colTo === undefined), {
    message: 'colFrom/colTo apply to rows only',
  });

const runProjectRequestSchema = z.strictObject({
  type: z.literal('run-project'),
  project: projectSchema,
  /** Carry each channel inline when rows*cols <= this (the caller writes CSVs). */
  inlineLimit: z.int().min(0).max(4_000_000).optional(),
});

/**
 * Release one output per secret of a CSV file, streaming (Node side: the
 * worker reads `input` and writes `out`, a temp file the caller publishes).
 * The channel is a matrix, a construction (with `remap` if asked) or a
 * channel the app host keeps (`channelRef`: an optimal LP is never solved
 * again to be applied).
 */
export const applyRequestSchema = z
  .strictObject({
    type: z.literal('apply'),
    channel: channelPayloadSchema.optional(),
    mechanism: mechanismSpecSchema.optional(),
    channelRef: channelRefSchema.optional(),
    /**
     * The secrets' domain (defaults to the mechanism's, or to the channel's row labels; required with a channelRef).
     */
    domain: domainInputSchema.optional(),
    /**
     * With a channel or channelRef: the eps it is released under; the release is refused unless the channel is
     * eps*d-private on the domain.
     */
    epsilon: epsilonSchema.optional(),
    /** Secrets CSV: cell labels, values, or x,y / lat,lon points (with `points`). */
    input: z.string().min(1).max(4096),
    /** Released CSV. */
    out: z.string().min(1).max(4096),
    /** Reproducible, NOT-for-release stream (tests only). */
    seed: z.int().min(0).max(0xffffffff).optional(),
    points: pointsBinningSchema.optional(),
    /**
     * Whether line 1 of the secrets CSV is a header; omitted = decided by its content (a secret of the domain is not a
     * header).
     */
    header: z.enum(['yes', 'no']).optional(),
  })
  .refine(oneChannel, oneChannelMessage)
  .refine((r) => r.channelRef === undefined || r.domain !== undefined, {
    message: 'apply with a channelRef needs the domain of its secrets',
  })
  .refine((r) => r.epsilon === undefined || r.mechanism === undefined, {
    message: "apply's epsilon is for a channel; a construction names its own (mechanism.epsilon)",
  })
  .refine((r) => r.epsilon === undefined || r.domain !== undefined, {
    message: 'apply with an epsilon needs the domain of the secrets (the distances eps is about)',
  })
  .refine((r) => r.points === undefined || r.domain !== undefined || r.mechanism !== undefined, {
    message: 'apply with points needs the domain of their grid',
  });

export const jobRequestSchema = z.discriminatedUnion('type', [
  mechanismRequestSchema,
  measureRequestSchema,
  checkRequestSchema,
  capacityRequestSchema,
  regularRequestSchema,
  thresholdRequestSchema,
  verticesRequestSchema,
  sweepRequestSchema,
  runProjectRequestSchema,
  caseStudyRequestSchema,
  applyRequestSchema,
  compareRequestSchema,
  rowsRequestSchema,
  explorerRequestSchema,
  auditRequestSchema,
]);

export type MechanismRequest = z.infer<typeof mechanismRequestSchema>;
export type MeasureRequest = z.infer<typeof measureRequestSchema>;
export type CheckRequest = z.infer<typeof checkRequestSchema>;
export type CapacityRequest = z.infer<typeof capacityRequestSchema>;
export type RegularRequest = z.infer<typeof regularRequestSchema>;
export type ThresholdRequest = z.infer<typeof thresholdRequestSchema>;
export type VerticesRequest = z.infer<typeof verticesRequestSchema>;
export type SweepRequest = z.infer<typeof sweepRequestSchema>;
export type RunProjectRequest = z.infer<typeof runProjectRequestSchema>;
export type ApplyRequest = z.infer<typeof applyRequestSchema>;
export type RowsRequest = z.infer<typeof rowsRequestSchema>;
export type JobRequest = z.infer<typeof jobRequestSchema>;
export type JobType = JobRequest['type'];
export const JOB_TYPES: readonly JobType[] = [
  'mechanism',
  'measure',
  'check',
  'capacity',
  'regular',
  'threshold',
  'vertices',
  'sweep',
  'run-project',
  'case-study',
  'apply',
  'compare',
  'rows',
  'explorer',
  'audit',
];
