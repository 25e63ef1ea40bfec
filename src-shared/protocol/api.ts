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
import type { JobError } from './common';
import type { JobEvent, LpSample } from './messages';
import type { ProjectInput } from './project';
import type { ApplyRequest, JobRequest } from './requests';
import type { ApplyResult } from './remap';
import type { JobResult, ResultFor } from './results';

export interface OpenedProject {
  /** File path, or null for an example or an unsaved project. */
  path: string | null;
  project: ProjectInput;
}

export interface SavedProject {
  path: string;
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

export type ExportRequest =
  /** Stream a mechanism's full channel to CSV (SPEC §8 format); re-runs it with `out`. */
  | { kind: 'channel-csv'; request: Extract<JobRequest, { type: 'mechanism' | 'capacity' }>; path?: string }
  /** Save any JSON-serialisable analysis result (and a CSV of its table when it has one). */
  | { kind: 'result-json'; result: JobResult; path?: string }
  /** `mechstudio run` equivalent: every channel as CSV, analyses as JSON + CSV, summary.md. */
  | { kind: 'project-run'; project: ProjectInput; projectPath?: string | null; dir?: string }
  /**
   * Issue 14, `mechstudio apply` from the app: release one output per row of
   * the secrets CSV text (a loaded file) into a CSV file; the host writes the
   * text to a private temp file for the worker and removes it after.
   */
  | { kind: 'apply'; request: ApplyExportRequest; secrets: string; path?: string };

/** An apply request without its file paths (the host supplies them). */
export type ApplyExportRequest = Omit<ApplyRequest, 'type' | 'input' | 'out'>;

/** Largest secrets CSV text the app sends (characters). */
export const MAX_APP_SECRETS_CHARS = 64 * 1024 * 1024;
/** At most this many released labels come back to the page (for the true-vs-released chart). */
export const MAX_APP_RELEASED_ROWS = 100_000;

export interface ExportResult {
  /** Files written (absolute paths), or an empty list when the user cancelled. */
  files: string[];
  /** kind 'apply': the job's result and the first MAX_APP_RELEASED_ROWS released labels, in order. */
  apply?: { result: ApplyResult; released: string[] };
}

export interface ProjectApi {
  /** Open a project file (path given, or a file dialog when omitted). null = the user cancelled. */
  open(path?: string): Promise<OpenedProject | null>;
  /** Save atomically to `path` (or the dialog / last path when omitted). null = cancelled. */
  save(project: ProjectInput, path?: string): Promise<SavedProject | null>;
  /** Most recent first. */
  recent(): Promise<RecentProject[]>;
  export(request: ExportRequest): Promise<ExportResult>;
}

export interface ExamplesApi {
  list(): Promise<ExampleInfo[]>;
  load(name: string): Promise<OpenedProject>;
}

export interface AppInfo {
  mode: 'electron' | 'web' | 'cli';
  version: string;
  /** Worker threads of the host's job pool: also the default lpThreads of an optimal LP that leaves it out. */
  workers: number;
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
}

/** A transport's generic call: method name and positional parameters. */
export type ApiCall = <T>(method: BridgeCall['method'], ...params: unknown[]) => Promise<T>;

/**
 * The MechStudioApi over a transport (Electron IPC in the preload, WebSocket
 * in the web bridge): the one place that maps API methods to wire methods,
 * so a new method is added once for both.
 */
export function apiOverCall(call: ApiCall, onJobEvent: MechStudioApi['onJobEvent']): MechStudioApi {
  return {
    submit: (request) => call('submit', request),
    cancel: (jobId) => call('cancel', jobId),
    stop: (jobId) => call('stop', jobId),
    onJobEvent,
    project: {
      open: (path) => call('project.open', path),
      save: (project, path) => call('project.save', project, path),
      recent: () => call('project.recent'),
      export: (request) => call('project.export', request),
    },
    examples: {
      list: () => call('examples.list'),
      load: (name) => call('examples.load', name),
    },
    info: () => call('info'),
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

/**
 * Convenience for consumers: submit a job and await its result, forwarding
 * progress; aborting the signal cancels the job. Rejects with an ApiError.
 */
export function runJob<R extends JobRequest>(
  api: MechStudioApi,
  request: R,
  options: { onProgress?: (fraction: number | null, message: string, lp?: LpSample) => void; signal?: AbortSignal } = {},
): Promise<ResultFor<R['type']>> {
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
        resolve(e.result as ResultFor<R['type']>);
      } else if (e.kind === 'error') {
        done();
        reject(new ApiError(e.error));
      }
    };
    const unsubscribe = api.onJobEvent(handle);
    const onAbort = (): void => {
      if (jobId !== null) void api.cancel(jobId);
    };
    const done = (): void => {
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
    };
    options.signal?.addEventListener('abort', onAbort);
    api.submit(request).then(
      (id) => {
        jobId = id;
        for (const e of early.splice(0)) handle(e);
        if (options.signal?.aborted) onAbort();
      },
      (err: unknown) => {
        done();
        reject(err instanceof ApiError ? err : new ApiError({ code: 'internal', message: err instanceof Error ? err.message : String(err) }));
      },
    );
  });
}

/**
 * Web-mode bridge wire format (one JSON message per WebSocket frame): the
 * browser sends calls, the server answers each by id and pushes job events.
 */
export type BridgeCall = {
  id: number;
  method: 'submit' | 'cancel' | 'stop' | 'project.open' | 'project.save' | 'project.recent' | 'project.export' | 'examples.list' | 'examples.load' | 'info';
  params: unknown[];
};
export type BridgeReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: JobError };
export type BridgePush = { event: JobEvent };
