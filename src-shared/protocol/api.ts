/**
 * The ONE typed API between the app's front end and the engine. The Electron
 * preload (window.mechstudio), the web-mode bridge (WebSocket) and the CLI's
 * in-process client all implement MechStudioApi; the Svelte renderer only
 * ever consumes it. Plain TS: no Node, Electron or DOM imports.
 *
 * Contract:
 * - submit() validates the request (jobRequestSchema) and resolves with the
 *   job id at once; a malformed request rejects with an ApiError
 *   (code 'invalid-input') and no job is created.
 * - Every job then emits zero or more 'progress' events and exactly one
 *   terminal event: 'result' or 'error' (a cancelled job ends with an error of
 *   code 'cancelled'; a crashed worker with code 'crashed').
 * - onJobEvent() listeners receive events of every job (filter by jobId) and
 *   the returned function unsubscribes.
 * - stop() ends a job early but keeps its answer: an optimal-mechanism LP
 *   (kind 'optimal' in a mechanism, measure or check request) finishes with
 *   the best private mechanism found so far and its certified gap
 *   (lp.stoppedBy 'stopped'); any other job is cancelled.
 */
import type { z } from 'zod';
import type { ApiMethod, ApiParamsIn, exportRequestSchema, QueueStatus } from './api-calls';
import type { DomainInput } from './common';
import type { JobError } from './errors';
import type { JobEvent, LpSample } from './messages';
import type { ProjectInput } from './project';
import type { ApplyRequest, JobRequest } from './requests';
import type { ApplyResult } from './remap';
import type { ReleaseFile } from './releases';
import type { CheckResult, JobResult, ResultFor } from './results';

export interface OpenedProject {
  /** File path, or null for an example or an unsaved project. */
  path: string | null;
  project: ProjectInput;
}

/**
 * project.open's answer when the project refers to files outside its own
 * folder: only the project file was read. The page lists `outside` and, when
 * the user agrees, opens again with allowOutside.
 */
export interface ProjectNeedsConsent {
  path: string;
  /** The files outside the project's folder (absolute, symbolic links followed). */
  outside: string[];
}

export interface SavedProject {
  /** Where it was written, or null when it was offered as a download (web mode): see `download`. */
  path: string | null;
  /** Web mode: the project (with its kept channels, a bundle) to fetch once from this URL. */
  download?: DownloadOffer;
  /** Kept channels the project's results name that could not be written beside it (each result is then not kept). */
  notKept?: ChannelStatus[];
}

/** Whether the host holds a kept channel (project.channels): `problem` says why not, in one sentence. */
export interface ChannelStatus {
  channelRef: string;
  kept: boolean;
  problem?: string;
  /**
   * Asked with a claim: the engine's privacy check of the channel at the claimed eps (kept only when it is private).
   */
  check?: CheckResult;
}

/**
 * A kept channel with what its result claims (the mechanism's domain and eps): the host checks it private at that eps.
 */
export interface ChannelClaim {
  channelRef: string;
  domain: DomainInput;
  epsilon: number;
}

export interface RecentProject {
  path: string;
  name: string;
  /** ISO date of the last open/save. */
  openedAt: string;
}

export interface ExampleInfo {
  /** Name accepted by `mechstudio example NAME` and examples.load(). */
  name: string;
  title: string;
  description: string;
}

/** What the app may export (schema and kinds: exportRequestSchema in ./api-calls). */
export type ExportRequest = z.input<typeof exportRequestSchema>;

/** An apply request without its file paths (the host supplies them). */
export type ApplyExportRequest = Omit<ApplyRequest, 'type' | 'input' | 'out'>;

/**
 * Largest secrets CSV text the app sends (characters): it travels in one
 * message, so it stays under MAX_BRIDGE_MESSAGE_BYTES with room for the JSON
 * escapes of its line ends (a line of ~20 characters grows by one byte).
 */
export const MAX_APP_SECRETS_CHARS = 12 * 1024 * 1024;
/** At most this many released labels come back to the page (for the true-vs-released chart). */
export const MAX_APP_RELEASED_ROWS = 100_000;

/**
 * A file the web host wrote for the page and serves once at `url` (a
 * one-time, unguessable token; never a path of the server), saved by the
 * browser as `name`.
 */
export interface DownloadOffer {
  url: string;
  name: string;
  bytes: number;
}

/** Where the page uploads a picked file (POST its bytes to `url`) and the token the call that uses it names. */
export interface UploadSlot {
  url: string;
  token: string;
}

export interface ExportResult {
  /** Files written (absolute paths), or an empty list when the user cancelled or the file is offered as a download. */
  files: string[];
  /** Web mode: the export to fetch once (the browser's download). */
  download?: DownloadOffer;
  /** kind 'apply': the job's result and the first MAX_APP_RELEASED_ROWS released labels, in order. */
  apply?: { result: ApplyResult; released: string[]; input?: ReleaseFile; output?: ReleaseFile };
}

interface ProjectApi {
  /**
   * Open a project file (path given, or a file dialog when omitted). null = the user cancelled. A project
   * referring to files outside its folder answers with those files (ProjectNeedsConsent) unless allowOutside.
   */
  open(path?: string, allowOutside?: boolean): Promise<OpenedProject | ProjectNeedsConsent | null>;
  /** Save atomically to `path` (or the dialog / last path when omitted). null = cancelled. */
  save(project: ProjectInput, path?: string): Promise<SavedProject | null>;
  /** Open a project file the page uploaded (transfer.slot, then a POST of its bytes): web mode's Open. */
  openUpload(token: string): Promise<OpenedProject | ProjectNeedsConsent>;
  /** Most recent first. */
  recent(): Promise<RecentProject[]>;
  export(request: ExportRequest): Promise<ExportResult>;
  /**
   * Which of these kept channels the host holds (read back and checked from disk when not in memory; privacy-checked at
   * a claim given).
   */
  channels(refs: (string | ChannelClaim)[]): Promise<ChannelStatus[]>;
}

/** A built-in audit example: a claim and the samples (secret, released) it is audited on, generated from a seed. */
export interface AuditExample {
  name: string;
  title: string;
  description: string;
  domain: string;
  /** The claimed eps per unit of the domain's distance (km). */
  epsilon: number;
  /** Samples CSV text: secret,released (grid labels, quoted). */
  samples: string;
}

interface ExamplesApi {
  list(): Promise<ExampleInfo[]>;
  load(name: string): Promise<OpenedProject>;
  /** A built-in audit example by name (vendor-planar-laplace). */
  audit(name: string): Promise<AuditExample>;
}

export interface AppInfo {
  mode: 'electron' | 'web' | 'cli';
  version: string;
  /** Worker threads of the host's job pool: also the default lpThreads of an optimal LP that leaves it out. */
  workers: number;
}

/**
 * Where the app's jobs run (its settings): the local pool, or a Redis queue
 * served by `mechstudio worker` processes. Switching affects jobs submitted
 * afterwards; running jobs finish where they started.
 */
interface QueueApi {
  status(): Promise<QueueStatus>;
  /**
   * Connect to redis://[USER:PASSWORD@]HOST:PORT[/DB] and run new jobs there; rejects with one clear line when Redis is
   * unreachable (within seconds).
   */
  connect(url: string): Promise<QueueStatus>;
  /** Run new jobs on the local pool again. */
  useLocal(): Promise<QueueStatus>;
}

export interface MechStudioApi {
  submit(request: JobRequest): Promise<string>;
  cancel(jobId: string): Promise<boolean>;
  /** Stop with the best answer so far (optimal LPs), else cancel; resolves true if the job was running or queued. */
  stop(jobId: string): Promise<boolean>;
  onJobEvent(listener: (event: JobEvent) => void): () => void;
  project: ProjectApi;
  examples: ExamplesApi;
  info(): Promise<AppInfo>;
  queue: QueueApi;
  transfer: TransferApi;
}

/** Web mode's uploads: a slot per picked file (Electron has none: its dialogs hand the host a path). */
interface TransferApi {
  slot(name: string, bytes: number): Promise<UploadSlot>;
}

/** A transport's call: a method of the API table (./api-calls) with its positional parameters, typed by method. */
type ApiCall = <M extends ApiMethod>(method: M, ...params: ApiParamsIn<M>) => Promise<unknown>;

/**
 * The MechStudioApi over a transport (Electron IPC in the preload, WebSocket
 * in the web bridge): the one place that maps API methods to wire methods,
 * so a new method is added once for both. The host validates every call
 * (parseApiCall) and answers with the types declared in MechStudioApi.
 */
export function apiOverCall(call: ApiCall, onJobEvent: MechStudioApi['onJobEvent']): MechStudioApi {
  const typed = <T>(p: Promise<unknown>): Promise<T> => p as Promise<T>;
  return {
    submit: (request) => typed(call('submit', request)),
    cancel: (jobId) => typed(call('cancel', jobId)),
    stop: (jobId) => typed(call('stop', jobId)),
    onJobEvent,
    project: {
      open: (path, allowOutside) => typed(call('project.open', path, allowOutside)),
      save: (project, path) => typed(call('project.save', project, path)),
      recent: () => typed(call('project.recent')),
      openUpload: (token) => typed(call('project.openUpload', token)),
      export: (request) => typed(call('project.export', request)),
      channels: (refs) => typed(call('project.channels', refs)),
    },
    examples: {
      list: () => typed(call('examples.list')),
      load: (name) => typed(call('examples.load', name)),
      audit: (name) => typed(call('examples.audit', name)),
    },
    info: () => typed(call('info')),
    queue: {
      status: () => typed(call('queue.status')),
      connect: (url) => typed(call('queue.connect', url)),
      useLocal: () => typed(call('queue.useLocal')),
    },
    transfer: { slot: (name, bytes) => typed(call('transfer.slot', name, bytes)) },
  };
}

/** Error thrown by API calls that fail before a job exists (e.g. a malformed request). */
export class ApiError extends Error {
  readonly code: JobError['code'];
  readonly detail?: Record<string, unknown>;
  constructor(error: JobError) {
    super(error.message);
    this.name = 'ApiError';
    this.code = error.code;
    if (error.detail !== undefined) this.detail = error.detail;
  }
}

/** What runJob needs of an API or a job runner. */
export interface JobSubmitter {
  submit(request: JobRequest | unknown): Promise<string>;
  cancel(jobId: string): Promise<boolean>;
  stop?(jobId: string): Promise<boolean>;
  onJobEvent(listener: (event: JobEvent) => void): () => void;
}

export interface RunJobOptions {
  onProgress?: (fraction: number | null, message: string, lp?: LpSample) => void;
  /** Called with the job's id as soon as it has one (a jobs panel, a Stop button). */
  onSubmitted?: (jobId: string) => void;
  /** Aborting cancels the job. */
  signal?: AbortSignal;
  /** Aborting stops the job: an optimal LP ends with its best mechanism so far (stop()); without stop(), cancels. */
  stopSignal?: AbortSignal;
}

/**
 * The one submit-and-await: submit a job and await its result, forwarding
 * progress; events that arrive before submit() has answered are kept and
 * replayed. Aborting `signal` cancels, aborting `stopSignal` stops. Rejects
 * with an ApiError (the job's error, or the submit's).
 */
export function runJob<R extends JobRequest>(
  api: JobSubmitter,
  request: R,
  options?: RunJobOptions,
): Promise<ResultFor<R['type']>>;
export function runJob(api: JobSubmitter, request: unknown, options?: RunJobOptions): Promise<JobResult>;
export function runJob(api: JobSubmitter, request: unknown, options: RunJobOptions = {}): Promise<JobResult> {
  return new Promise((resolve, reject) => {
    let jobId: string | null = null;
    const early: JobEvent[] = [];
    const handle = (e: JobEvent): void => {
      if (jobId === null) {
        early.push(e);
        return;
      }
      if (e.jobId !== jobId) return;
      if (e.kind === 'progress') options.onProgress?.(e.fraction, e.message, e.lp);
      else if (e.kind === 'result') {
        done();
        resolve(e.result);
      } else if (e.kind === 'error') {
        done();
        reject(new ApiError(e.error));
      }
    };
    const unsubscribe = api.onJobEvent(handle);
    const onAbort = (): void => {
      if (jobId !== null) void api.cancel(jobId);
    };
    const onStop = (): void => {
      if (jobId !== null) void (api.stop ? api.stop(jobId) : api.cancel(jobId));
    };
    const done = (): void => {
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
      options.stopSignal?.removeEventListener('abort', onStop);
    };
    options.signal?.addEventListener('abort', onAbort);
    options.stopSignal?.addEventListener('abort', onStop);
    api.submit(request).then(
      (id) => {
        jobId = id;
        options.onSubmitted?.(id);
        for (const e of early.splice(0)) handle(e);
        if (options.signal?.aborted) onAbort();
        else if (options.stopSignal?.aborted) onStop();
      },
      (err: unknown) => {
        done();
        reject(toApiError(err));
      },
    );
  });
}

/**
 * Anything a submit rejected with, as an ApiError (an ApiError-shaped object from the context bridge keeps its code).
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const o = (err ?? {}) as { code?: unknown; message?: unknown; detail?: unknown };
  const code = typeof o.code === 'string' ? (o.code as JobError['code']) : 'internal';
  const message = typeof o.message === 'string' ? o.message : String(err);
  return new ApiError({
    code,
    message,
    ...(o.detail && typeof o.detail === 'object' ? { detail: o.detail as Record<string, unknown> } : {}),
  });
}

/**
 * Web-mode bridge wire format (one JSON message per WebSocket frame): the
 * browser sends calls, the server answers each by id and pushes job events.
 * A message that is not a call gets a reply with id null (the call's id when
 * it can be read: a message over the size cap starts with it).
 */
export type BridgeCall = {
  id: number;
  method: ApiMethod;
  params: unknown[];
};
export type BridgeReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: JobError };
export type BridgePush = { event: JobEvent };
/** The reply to a message that is not a call, or too large to be read as one. */
export type BridgeFrameError = {
  id: number | null;
  ok: false;
  error: { code: 'invalid-input' | 'too-large'; message: string };
};

/**
 * Largest message one call may be (UTF-8 bytes of its JSON). A larger one is
 * answered with a typed 'too-large' reply and the connection (and the page's
 * jobs on it) stays; the page checks its calls against this before sending.
 */
export const MAX_BRIDGE_MESSAGE_BYTES = 16 * 2 ** 20;
/**
 * Largest frame the web server reads at all: a message must be received
 * whole before it can be answered, so one over this closes the connection
 * (1009) instead of being buffered. The page never sends one (above).
 */
export const MAX_BRIDGE_FRAME_BYTES = 64 * 2 ** 20;

/** Why a call's message is too large to send, or null (bytes counted only when its length leaves a doubt). */
export function bridgeMessageTooLarge(text: string): JobError | null {
  if (text.length * 3 <= MAX_BRIDGE_MESSAGE_BYTES) return null;
  const bytes = text.length > MAX_BRIDGE_MESSAGE_BYTES ? text.length : new TextEncoder().encode(text).length;
  if (bytes <= MAX_BRIDGE_MESSAGE_BYTES) return null;
  return {
    code: 'too-large',
    message: `this call is ${(bytes / 2 ** 20).toFixed(1)} MiB, over the ${MAX_BRIDGE_MESSAGE_BYTES / 2 ** 20} MiB one message to the server may carry: give large inputs as files (csv:FILE, graph:FILE), or use the mechstudio command line`,
  };
}
