/**
 * Building blocks of the job protocol (plain TS + zod, no Node imports: the
 * worker, the main process and the Svelte renderer all import this folder).
 * Every message that crosses a boundary (IPC, CLI, worker thread, web bridge)
 * is parsed with these schemas; the inferred types are the only types used.
 */
import { z } from 'zod';

/** Largest matrix (entries) a result carries inline; bigger ones carry only a summary. */
export const INLINE_MATRIX_LIMIT = 200 * 200;
/** Largest channel (entries) a request may carry inline (measure/check). */
export const MAX_REQUEST_CHANNEL_ENTRIES = 4_000_000;
/** Largest inline domain (points) a request may describe by a distance matrix. */
const MAX_INLINE_DOMAIN_POINTS = 2000;

const finite = z.number().refine(Number.isFinite, { message: 'must be a finite number' });
export const epsilonSchema = z
  .number({ error: 'epsilon must be a number' })
  .refine((v) => Number.isFinite(v) && v > 0, { message: 'epsilon must be a finite number > 0' });
const probability = z.number().refine((v) => Number.isFinite(v) && v >= 0, { message: 'must be a finite number >= 0' });

/**
 * A domain: the SPEC §8 text (line:6, grid:20x20:step=1, db:5,4:metric=hamming,
 * ...) or an inline custom metric (labels + flat n x n distances; Infinity is
 * sent as null = "fully distinguishable") or an inline graph (labels + edges).
 */
export const domainInputSchema = z.union([
  z.string().min(1, 'domain is empty').max(4096, 'domain text is too long'),
  z
    .strictObject({
      kind: z.literal('custom'),
      labels: z.array(z.string().max(200)).min(1).max(MAX_INLINE_DOMAIN_POINTS),
      /** Row-major n x n distances; null means +Infinity. */
      distances: z.array(
        z
          .number()
          .refine((v) => !Number.isNaN(v), 'distance is NaN')
          .nullable(),
      ),
    })
    .refine((d) => d.distances.length === d.labels.length * d.labels.length, {
      message: 'custom domain: distances must have labels.length^2 entries',
    }),
  z.strictObject({
    kind: z.literal('graph'),
    labels: z.array(z.string().max(200)).min(1).max(1_000_000),
    /** Undirected edges [from, to] or [from, to, weight] (indices into labels). */
    edges: z.array(
      z.union([
        z.tuple([z.int().min(0), z.int().min(0)]),
        z.tuple([z.int().min(0), z.int().min(0), z.number().positive()]),
      ]),
    ),
  }),
]);
export type DomainInput = z.infer<typeof domainInputSchema>;

/**
 * A prior: 'uniform', a full probability vector, or a product prior given by
 * the per-individual value distribution (db domains). File and comma-list
 * forms (csv:FILE, "0.2,0.8") are resolved to vectors before a request is sent.
 */
export const priorInputSchema = z.union([
  z.literal('uniform'),
  z.strictObject({ kind: z.literal('vector'), values: z.array(probability).min(1).max(50_000_000) }),
  z.strictObject({ kind: z.literal('product'), values: z.array(probability).min(1).max(10_000) }),
]);
export type PriorInput = z.infer<typeof priorInputSchema>;

/** The built-in losses by name (the one list: the CLI and the app check names against it). */
export const builtinLossSchema = z.enum(['bin', 'nib', 'dist', 'dist2']);

/** A loss l(w, x) (SPEC §3): built-in name or a custom guesses x secrets matrix. */
export const lossInputSchema = z.union([
  builtinLossSchema,
  z
    .strictObject({
      kind: z.literal('matrix'),
      rows: z.int().min(1),
      cols: z.int().min(1),
      data: z.array(finite),
      rowLabels: z.array(z.string()).optional(),
    })
    .refine((l) => l.data.length === l.rows * l.cols, { message: 'loss matrix: data must have rows*cols entries' }),
]);
export type LossInput = z.infer<typeof lossInputSchema>;

/**
 * The loss an optimal LP on a grid minimises when none is given: the expected distance (a location is guessed); binary
 * gain elsewhere.
 */
export const OPTIMAL_GRID_LOSS = 'dist' as const;

/** A dense channel carried inline: row-major data with labels. */
export const channelPayloadSchema = z
  .strictObject({
    rows: z.int().min(1),
    cols: z.int().min(1),
    data: z.array(finite),
    rowLabels: z.array(z.string()),
    colLabels: z.array(z.string()),
  })
  .refine((c) => c.rows * c.cols <= MAX_REQUEST_CHANNEL_ENTRIES, {
    message: `channel is too large to send inline (limit ${MAX_REQUEST_CHANNEL_ENTRIES} entries)`,
  })
  .refine((c) => c.data.length === c.rows * c.cols, { message: 'channel: data must have rows*cols entries' })
  .refine((c) => c.rowLabels.length === c.rows && c.colLabels.length === c.cols, {
    message: 'channel: label counts must match rows and cols',
  });
export type ChannelPayload = z.infer<typeof channelPayloadSchema>;

/**
 * A channel the app host keeps: a mechanism job with keepChannel returns
 * `channelRef`, and measure, check, rows and apply requests may name the
 * channel by it instead of carrying the matrix. Only the host (the job
 * dispatcher) holds the channels: it passes the one named to the worker with
 * the job (src-main/dispatcher/channel-store.ts).
 */
export const channelRefSchema = z
  .string()
  .regex(/^ch-[0-9a-f]{16,64}$/, 'channelRef must be an id the host returned with a mechanism result (ch-...)');

/** The fields a result about one domain at one eps starts with: its job type, the domain's canonical text and eps. */
export function domainEpsilonResultShape<T extends string>(type: T) {
  return { type: z.literal(type), domain: z.string(), epsilon: z.number() };
}

/** Mechanism constructions of SPEC §2 / §8. */
export const mechanismKindSchema = z.enum([
  'tg',
  'rr',
  'exponential',
  'laplace',
  'planar-laplace',
  'tight',
  'symmetric',
  'optimal',
]);
export type MechanismKindName = z.infer<typeof mechanismKindSchema>;

/**
 * Options of the optimal-mechanism LP (kind 'optimal'), shared by
 * mechanism requests, mechanism specs and project mechanisms. Any of them
 * selects the typed path (decomposition with a certified gap); without them
 * the legacy model choice applies.
 */
export const LP_MODELS = ['exact', 'spanner', 'edges', 'auto'] as const;
const lpModelSchema = z.enum(LP_MODELS, { error: `lpModel must be one of ${LP_MODELS.join(', ')}` });
/** Largest time limit a request may set (a week): beyond it, "no limit" is meant. */
export const MAX_LP_TIME_LIMIT_SECONDS = 7 * 24 * 3600;
/** Most pricing threads a request may ask for. */
export const MAX_LP_THREADS = 64;
export const lpOptionsShape = {
  /**
   * exact (all pairs), spanner (with delta), edges (graph metrics) or auto (edges where the domain has them, else
   * exact; the spanner only when asked).
   */
  lpModel: lpModelSchema.optional(),
  /** Spanner dilation, in [1, 10] (default 1.1). */
  delta: z
    .number({ error: 'delta must be a number' })
    .refine((v) => Number.isFinite(v) && v >= 1 && v <= 10, {
      message: 'delta (spanner dilation) must be a number from 1 to 10',
    })
    .optional(),
  /** Stop after this many seconds with the best private mechanism so far (and its certified gap). */
  timeLimitSeconds: z
    .number({ error: 'timeLimitSeconds must be a number' })
    .refine((v) => Number.isFinite(v) && v > 0 && v <= MAX_LP_TIME_LIMIT_SECONDS, {
      message: `timeLimitSeconds must be a number > 0 and at most ${MAX_LP_TIME_LIMIT_SECONDS} (a week)`,
    })
    .optional(),
  /** Stop when the certified relative gap (objective - lowerBound) / objective is at most this; in (0, 1). */
  targetGap: z
    .number({ error: 'targetGap must be a number' })
    .refine((v) => Number.isFinite(v) && v > 0 && v < 1, {
      message: 'targetGap must be a number > 0 and < 1 (a relative gap, e.g. 0.01)',
    })
    .optional(),
  /** Worker threads for the LP's pricing problems (one HiGHS instance each; default 1). Same optimum. */
  lpThreads: z
    .int({ error: 'lpThreads must be an integer' })
    .min(1, 'lpThreads must be at least 1')
    .max(MAX_LP_THREADS, `lpThreads must be at most ${MAX_LP_THREADS}`)
    .optional(),
};
/**
 * The LP options as a request, spec or project mechanism carries them: every other LP-option shape is derived from this
 * one.
 */
const lpOptionsSchema = z.strictObject(lpOptionsShape);
export type LpOptions = z.infer<typeof lpOptionsSchema>;
export type LpOptionKey = keyof LpOptions;
/** The privacy model as a request names it ('auto' included). */
export type LpModelChoice = (typeof LP_MODELS)[number];
/** Their names, in the protocol's order. */
export const LP_OPTION_KEYS = Object.keys(lpOptionsShape) as LpOptionKey[];
/**
 * One LP option's value checked by the protocol's own schema (its bounds are the only bounds): the value, or
 * null when the schema refuses it, so that a caller (the CLI's flags, the app's editor) words the refusal its way.
 */
export function checkedLpOption<K extends LpOptionKey>(key: K, value: unknown): NonNullable<LpOptions[K]> | null {
  const r = lpOptionsShape[key].safeParse(value);
  return r.success && r.data !== undefined ? (r.data as NonNullable<LpOptions[K]>) : null;
}
/** The LP options set on `r` (unset ones left out), in the protocol's order: what a construction is built with. */
export function definedLpOptions(r: LpOptions): LpOptions {
  const out: Record<string, unknown> = {};
  for (const k of LP_OPTION_KEYS) if (r[k] !== undefined) out[k] = r[k];
  return out as LpOptions;
}
type WithLpOptions = { kind: string } & Partial<Record<LpOptionKey, unknown>>;
/**
 * The LP options are only for kind 'optimal': a refinement (check and message) for
 * `.refine(...lpOptionsOnlyForOptimal)`.
 */
export const lpOptionsOnlyForOptimal = [
  (r: WithLpOptions): boolean => r.kind === 'optimal' || LP_OPTION_KEYS.every((k) => r[k] === undefined),
  { message: `${LP_OPTION_KEYS.slice(0, -1).join(', ')} and ${LP_OPTION_KEYS.at(-1)} apply only to kind optimal` },
] as const;

/** A matrix returned inline (only when rows*cols <= INLINE_MATRIX_LIMIT). */
export const matrixPayloadSchema = channelPayloadSchema;
export type MatrixPayload = ChannelPayload;

/** Turn a zod failure into one readable line naming the field. */
export function describeZodError(err: z.ZodError, what = 'request'): string {
  const first = err.issues[0];
  if (!first) return `${what} is invalid`;
  const path = first.path.length ? first.path.map(String).join('.') : '';
  const extra =
    err.issues.length > 1 ? ` (and ${err.issues.length - 1} more problem${err.issues.length > 2 ? 's' : ''})` : '';
  return `${what}${path ? ` field '${path}'` : ''}: ${first.message}${extra}`;
}
