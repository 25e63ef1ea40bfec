/**
 * The API's wire edge, typed: every method a renderer may call (Electron IPC
 * or the web bridge) with the zod schema of its positional parameters and
 * the type of its answer. The host parses each call with parseApiCall before
 * it dispatches, so a handler only ever sees validated, typed parameters;
 * the preload and the web bridge build their calls from the same table, so
 * a method is declared once for both transports.
 *
 * Also here: the export request (ExportRequest) and the job-runner settings
 * of the app (queue.* methods: local pool or a Redis queue, see
 * docs/scaling-out.md, "Setting it up").
 */
import { z } from 'zod';
import { JOB_TYPES, jobRequestSchema, type JobType } from './requests';
import { projectSchema } from './project';
import { channelRefSchema, describeZodError, domainInputSchema, epsilonSchema } from './common';
import { jobErrorSchema, type JobError } from './errors';
import type { Parsed } from './validate';

const jobIdSchema = z.string().min(1, 'job id is empty').max(200, 'job id is too long');
const pathSchema = z
  .string()
  .min(1, 'path is empty')
  .max(4096, 'path is too long')
  .refine((p) => !p.includes('\0'), 'path contains a NUL byte');
/** A path the caller may leave out (null over the wire): the host asks with a dialog or uses its last one. */
const optionalPathSchema = pathSchema.nullish();

/**
 * A file name as the user knows it (an upload's, a download's suggested name): shown in messages, never a path on the
 * server.
 */
const fileNameSchema = z
  .string()
  .min(1, 'file name is empty')
  .max(300, 'file name is too long')
  .refine((p) => !p.includes('\0'), 'file name contains a NUL byte');
/** One-time token of an upload slot (transfer.slot). */
const transferTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{32}$/, 'not an upload token of this server');

/** Largest queue URL the app accepts (it is a host, a port, a database and perhaps credentials). */
const MAX_QUEUE_URL_CHARS = 2048;

/**
 * What the app may export. channel-csv: stream a mechanism's full channel to
 * CSV (re-runs it with `out`; not for an optimal LP, whose kept channel is
 * exported by kept-channel-csv); result-json: any result (and a CSV of its
 * table when it has one); project-run: `mechstudio run` equivalent; apply:
 * release one output per row of the secrets CSV text (the host
 * writes the text to a private temp file and supplies the paths, then checks
 * the whole apply request); study-report: the study report as one HTML page
 * (src-main/project/study-report.ts). Without a path, Electron asks with its save
 * dialog and web mode writes a private file it offers as a one-time download
 * (ExportResult.download) under `name`, the file name suggested to the user.
 */
export const exportRequestSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('channel-csv'),
    request: jobRequestSchema.refine(
      (r) => r.type === 'mechanism' || r.type === 'capacity',
      'channel-csv export needs a mechanism or capacity request',
    ),
    path: optionalPathSchema,
    name: fileNameSchema.optional(),
  }),
  // A result as the page holds it: through JSON an Infinity became null, so only its record shape is checked; it is
  // written as is.
  z.strictObject({
    kind: z.literal('result-json'),
    result: z.looseObject({ type: z.enum(JOB_TYPES as [JobType, ...JobType[]]) }),
    path: optionalPathSchema,
    name: fileNameSchema.optional(),
  }),
  z.strictObject({
    kind: z.literal('project-run'),
    project: projectSchema,
    projectPath: optionalPathSchema,
    dir: optionalPathSchema,
  }),
  // The study report of the project as the page holds it (kept results included); `states` is the page's view of each
  // kept mechanism result (its inputs' hash compared). The host reads the project's files and checks its kept channels
  // again.
  z.strictObject({
    kind: z.literal('study-report'),
    project: projectSchema,
    projectPath: optionalPathSchema,
    states: z.record(z.string().max(80), z.enum(['current', 'stale'])).optional(),
    path: optionalPathSchema,
    name: fileNameSchema.optional(),
  }),
  // A channel the host keeps (an optimal LP's), written by the host from the kept doubles: never solved again.
  z.strictObject({
    kind: z.literal('kept-channel-csv'),
    channelRef: channelRefSchema,
    path: optionalPathSchema,
    name: fileNameSchema.optional(),
  }),
  z.strictObject({
    kind: z.literal('apply'),
    /** An apply request without type, input and out (the host supplies them and validates the whole). */
    request: z.record(z.string(), z.unknown()),
    /** The secrets CSV text (the host refuses more than MAX_APP_SECRETS_CHARS with 'too-large'). */
    secrets: z.string(),
    /** The secrets file's name as the user picked it: messages about the secrets name it. */
    secretsName: fileNameSchema.optional(),
    path: optionalPathSchema,
    name: fileNameSchema.optional(),
  }),
]);

/** The app's job runner: the local pool (default) or a Redis queue served by `mechstudio worker` processes. */
const queueStatusSchema = z.strictObject({
  runner: z.enum(['local', 'queue']),
  /** The queue's URL with credentials masked (redis://***@HOST:PORT/DB), or null on the local pool. */
  url: z.string().nullable(),
  /** The URL to prefill the settings field with: the redacted URL when it has no credentials, else null. */
  prefill: z.string().nullable(),
  /** Where the choice came from: none (default), the saved settings, or --queue / MECHSTUDIO_QUEUE. */
  source: z.enum(['default', 'settings', 'command-line']),
  /** Threads of the local pool. */
  localThreads: z.int().min(1),
  /** Workers connected to the queue now (null on the local pool or when Redis does not say). */
  workersSeen: z.int().min(0).nullable(),
  /** Jobs still running on a queue the app switched away from (they finish there). */
  draining: z.int().min(0),
  /** Why the saved queue could not be used at start (the app fell back to the local pool), else null. */
  problem: z.string().nullable(),
  /** Whether the choice is kept for the next start (false when the settings file cannot be written). */
  persisted: z.boolean(),
  /**
   * Whether the page may change it (false in web mode: the queue is the server operator's, --queue / MECHSTUDIO_QUEUE).
   */
  changeable: z.boolean(),
});
export type QueueStatus = z.infer<typeof queueStatusSchema>;

/** Every API method with its parameter tuple (trailing optional parameters may be left out or sent as null). */
const apiParamSchemas = {
  submit: z.tuple([z.unknown()]),
  cancel: z.tuple([jobIdSchema]),
  stop: z.tuple([jobIdSchema]),
  'project.open': z.tuple([optionalPathSchema.optional(), z.boolean().nullish()]),
  'project.save': z.tuple([z.unknown(), optionalPathSchema.optional()]),
  'project.recent': z.tuple([]),
  /** Open a project the page uploaded into a slot (web mode): its token; the answer has path null. */
  'project.openUpload': z.tuple([transferTokenSchema]),
  /**
   * A one-time slot for uploading the user's file `name` of `bytes` bytes (web mode): the URL to POST it to and its
   * token.
   */
  'transfer.slot': z.tuple([fileNameSchema, z.int().min(0)]),
  'project.export': z.tuple([exportRequestSchema]),
  /**
   * Whether the host holds these kept channels (in memory, the project's channel folder or its cache), each checked;
   * a channel given with the domain and eps its result claims is also privacy-checked at that eps.
   */
  'project.channels': z.tuple([
    z
      .array(
        z.union([
          channelRefSchema,
          z.strictObject({ channelRef: channelRefSchema, domain: domainInputSchema, epsilon: epsilonSchema }),
        ]),
      )
      .max(1000, 'at most 1000 channels at once'),
  ]),
  'examples.list': z.tuple([]),
  'examples.load': z.tuple([z.string().min(1).max(200)]),
  'examples.audit': z.tuple([z.string().min(1).max(200)]),
  info: z.tuple([]),
  'queue.status': z.tuple([]),
  'queue.connect': z.tuple([
    z
      .string()
      .min(1, 'give the queue URL: redis://HOST:PORT[/DB]')
      .max(MAX_QUEUE_URL_CHARS, 'the queue URL is too long'),
  ]),
  'queue.useLocal': z.tuple([]),
} as const;

export type ApiMethod = keyof typeof apiParamSchemas; /** The parameters of a method as a caller writes them. */
export type ApiParamsIn<M extends ApiMethod> = z.input<(typeof apiParamSchemas)[M]>;
/** The parameters of a method after validation. */
export type ApiParams<M extends ApiMethod> = z.output<(typeof apiParamSchemas)[M]>;
/** A validated call: method and typed parameters, discriminated by method. */
export type ParsedApiCall = { [M in ApiMethod]: { method: M; params: ApiParams<M> } }[ApiMethod];

/** Parse a call arriving from a renderer into a typed call, or one 'invalid-input' error naming the method. */
export function parseApiCall(method: unknown, params: unknown): Parsed<ParsedApiCall> {
  const bad = (message: string): { ok: false; error: JobError } => ({
    ok: false,
    error: { code: 'invalid-input', message },
  });
  if (typeof method !== 'string' || !Object.hasOwn(apiParamSchemas, method))
    return bad(`unknown API method '${String(method).slice(0, 100)}'`);
  if (!Array.isArray(params)) return bad(`${method}: params must be an array`);
  // null stands for a parameter left out (undefined does not survive JSON or IPC)
  let trimmed = params;
  while (trimmed.length > 0 && trimmed[trimmed.length - 1] === null) trimmed = trimmed.slice(0, -1);
  const m = method as ApiMethod;
  const r = apiParamSchemas[m].safeParse(trimmed);
  // field paths start at the parameter's position: "project.export field '0.request.prior': ..."
  if (!r.success) return bad(describeZodError(r.error, m));
  return { ok: true, value: { method: m, params: r.data } as ParsedApiCall };
}

/**
 * The shell's commands (Electron menu items, the web top bar's buttons and
 * shortcuts), parsed by the page before it acts on one: a menu item names
 * one of these, never free text.
 */
export const menuCommandSchema = z.union([
  z.enum([
    'new',
    'open',
    'save',
    'save-as',
    'export-csv',
    'export-png',
    'report',
    'compute-all',
    'undo',
    'redo',
    'glossary',
    'settings',
  ]),
  z.templateLiteral(['open-recent:', z.string().min(1).max(4096)]),
  z.templateLiteral(['example:', z.string().min(1).max(200)]),
]);
export type MenuCommand = z.infer<typeof menuCommandSchema>;

/**
 * What the web page accepts from the server (BridgeReply, BridgeFrameError, BridgePush in ./api), checked before use.
 */
export const bridgeInboundSchema = z.union([
  z.strictObject({ event: z.looseObject({ kind: z.string() }) }),
  z.strictObject({ id: z.int(), ok: z.literal(true), value: z.unknown() }),
  z.strictObject({ id: z.int().nullable(), ok: z.literal(false), error: jobErrorSchema }),
]);
