/**
 * Job dispatcher: runs protocol jobs on a piscina pool of worker threads.
 * No Electron import: the Electron main process, the web-mode server and the
 * CLI all use it.
 *
 * - Every request is validated (jobRequestSchema) before a job exists; every
 *   reply from a worker is validated again.
 * - Progress streams over a per-job MessagePort.
 * - cancel(): flips a shared flag the engine's loops poll (see worker-entry);
 *   if the job has not ended after `cancelGraceMs`, the piscina task is
 *   aborted, which terminates that worker thread (piscina replaces it), so a
 *   cancelled job always ends within about grace + termination time (< 1 s).
 * - stop(): for an optimal-mechanism LP (kind 'optimal' in a mechanism,
 *   measure or check request) stores 2 in the same flag: the LP returns the
 *   best private mechanism so far with its certified gap and the job ends
 *   with that result (lp.stoppedBy 'stopped'). Other jobs: stop = cancel.
 * - A worker crash (process.exit, uncaught error, out of memory under
 *   `maxOldGenerationSizeMb`) becomes that job's error (code 'crashed') and the
 *   pool replaces the thread; other jobs are not affected.
 * - Idle threads are recycled after `idleTimeoutMs` because the HiGHS
 *   WebAssembly heap of a worker never shrinks.
 * - Kept channels (./channel-store.ts): a mechanism request with
 *   keepChannel has its whole channel kept here under a content-addressed
 *   channelRef, whatever its size (the worker hands it back in shared
 *   memory; the result carries the matrix only within the caller's
 *   inlineLimit); measure, check, apply and compare requests naming a
 *   channelRef get the channel with their task (shared, read in place), and rows of a kept
 *   channel are cut here without a worker. A channel no longer in memory is
 *   read back from disk (checked) before the job starts.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import {
  ApiError,
  type JobSubmitter,
  type JobError,
  jobEventSchema,
  progressSchema,
  workerReplySchema,
  type JobEvent,
  type JobRequest,
  type JobResult,
  jobRequestOf,
  compareBuildsLp,
} from '../../src-shared/protocol/index';
import {
  FLAG_CANCEL,
  FLAG_STOP,
  rowsOf,
  keptRowSource,
  type KeptChannel,
  type PricingFactory,
  servePricing,
} from '../../src-worker/index';
import { JobRunnerBase, type JobRunner } from './job-runner';
import { ChannelStore } from './channel-store';
import { MechError, messageOf } from '../../src-shared/errors';

export interface DispatcherOptions {
  /** Worker threads (default: os.availableParallelism(), at least 1). */
  threads?: number;
  /**
   * Worker module (path or file URL). Default: out/worker/worker-entry.js when this module was bundled by
   * scripts/build-cli.mjs, else src-worker/worker-entry.ts, loaded through tsx.
   */
  workerFile?: string;
  /** execArgv for workers. Default ['--import', 'tsx'] when workerFile ends in .ts, else []. */
  execArgv?: string[];
  /** Recycle threads idle this long (default 30 s). */
  idleTimeoutMs?: number;
  /** V8 old-generation limit per worker in MB (an overrun is that job's error). Default 2048. */
  maxOldGenerationSizeMb?: number;
  /** After cancel(), how long the engine has to stop by itself before the thread is terminated (default 300 ms). */
  cancelGraceMs?: number;
  /** Validate worker replies against the result schemas (default true). */
  validateReplies?: boolean;
  /** Where kept channels live (default: a store in memory only; the app passes one with its cache on disk). */
  channels?: ChannelStore;
  /**
   * Jobs to run on the calling thread instead of the pool (the CLI's small jobs: starting a worker thread and
   * loading the engine there costs more than the job). Such a job blocks the thread while it runs and is
   * cancelled only where the engine polls its signal. The pool starts on the first job that needs it.
   */
  inProcess?: (request: JobRequest) => boolean;
  /**
   * The pricing engine of optimal LPs (JobContext.pricing): e.g. the queue's workers
   * (src-main/queue/pricing-master.ts). It stays on this thread: a pool job reaches it over a port
   * (src-worker/lp/pricing/pricing-port.ts), an in-process job calls it.
   */
  pricing?: PricingFactory;
  /** JobContext.pricingMinVariables: smaller LPs price on their own threads (default 0: every LP uses `pricing`). */
  pricingMinVariables?: number;
  /**
   * Web mode's workspace root (a real path): every graph:/csv: domain file a job reads is opened without
   * following a link at its last name and checked on the descriptor (under the root, one link only;
   * src-worker/metric/read-text-file.ts), so a path swapped after the host checked it reads nothing outside.
   */
  readRoot?: string;
}

interface JobRecord {
  id: string;
  type: string;
  started: number;
  flag: Int32Array;
  abort: AbortController;
  graceTimer?: NodeJS.Timeout;
  cancelled: boolean;
  /** An optimal LP: stop() keeps its best mechanism (else stop = cancel). */
  stoppable: boolean;
  stopped: boolean;
  done: boolean;
  /** The worker has picked the job up (it posts {started: true} first). */
  running: boolean;
}

/**
 * Set only by scripts/build-cli.mjs (esbuild `define`): where the bundled
 * worker lies relative to the bundle this module was built into. Undefined
 * when this module runs from source (tsx, vitest) or in electron-vite's build.
 */
declare const __MECHSTUDIO_WORKER_BUNDLE__: string | undefined;

/**
 * The built worker next to a built CLI/web host (plain JavaScript, no tsx),
 * else the TypeScript source loaded through tsx.
 */
function defaultWorker(): string {
  if (typeof __MECHSTUDIO_WORKER_BUNDLE__ === 'string') {
    const built = fileURLToPath(new URL(__MECHSTUDIO_WORKER_BUNDLE__, import.meta.url));
    if (existsSync(built)) return built;
  }
  return fileURLToPath(new URL('../../src-worker/worker-entry.ts', import.meta.url));
}

/**
 * tsx's loader as an absolute URL: a bare '--import tsx' would be resolved
 * from the process's working directory, which fails when the CLI runs
 * anywhere outside the project.
 */
function tsxLoader(): string {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  } catch {
    return 'tsx';
  }
}

export class Dispatcher extends JobRunnerBase implements JobRunner {
  readonly threads: number;
  private poolInstance: Piscina | null = null;
  private readonly poolOptions: ConstructorParameters<typeof Piscina>[0];
  private readonly inProcess: ((request: JobRequest) => boolean) | undefined;
  private readonly pricing: PricingFactory | undefined;
  private readonly pricingMin: number | undefined;
  private readonly readRoot: string | undefined;
  private readonly jobs = new Map<string, JobRecord>();
  private readonly cancelGraceMs: number;
  private readonly validateReplies: boolean;
  private seq = 0;
  private closed = false;
  /** Channels kept for keepChannel mechanism jobs, named by channelRef in later requests. */
  readonly channels: ChannelStore;

  constructor(options: DispatcherOptions = {}) {
    super();
    const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
    this.threads = threads;
    const workerFile = options.workerFile ?? defaultWorker();
    const isTs = /\.[cm]?ts$/.test(workerFile);
    this.cancelGraceMs = options.cancelGraceMs ?? 300;
    this.validateReplies = options.validateReplies ?? true;
    this.channels = options.channels ?? new ChannelStore();
    this.inProcess = options.inProcess;
    this.pricing = options.pricing;
    this.pricingMin = options.pricingMinVariables;
    this.readRoot = options.readRoot;
    this.poolOptions = {
      filename: workerFile.startsWith('file:') ? workerFile : new URL(`file://${workerFile}`).href,
      // At least one thread always: with minThreads 0, piscina 5.3.2 stops
      // starting queued tasks after a worker was terminated by a cancel.
      // HiGHS memory is released by the worker itself after large LPs
      // (releaseHighsRuntimeIfLarge); extra threads are recycled when idle.
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: options.idleTimeoutMs ?? 30_000,
      execArgv: options.execArgv ?? (isTs ? ['--import', tsxLoader()] : []),
      resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb ?? 2048 },
      // Queue without bound: jobs are user actions, not a flood.
      maxQueue: Infinity,
    };
    if (!this.inProcess) this.pool();
  }

  /** The pool, started on first use (at construction unless some jobs run in process). */
  private pool(): Piscina {
    if (this.poolInstance) return this.poolInstance;
    const pool = new Piscina(this.poolOptions);
    this.poolInstance = pool;
    // Errors of a worker running a task reject that task. A pool-level error
    // is one no task owns (typically a worker that cannot even start, after
    // which piscina stops spawning): jobs still waiting for a worker would
    // wait forever, so they fail now with the reason. Running jobs are not
    // touched.
    pool.on('error', (err: unknown) => {
      const msg = messageOf(err);
      for (const rec of [...this.jobs.values()]) {
        if (rec.running) continue;
        this.finishError(rec, { code: 'crashed', message: `a worker thread failed: ${msg.split('\n')[0]}` });
        rec.abort.abort(new Error('worker failure'));
      }
    });
    return pool;
  }

  /** Number of jobs submitted and not yet finished. */
  get activeJobs(): number {
    return this.jobs.size;
  }

  /**
   * Validate and start a job. Resolves with its id; rejects with ApiError
   * ('invalid-input') when the request is malformed (no job is created).
   */
  async submit(request: unknown): Promise<string> {
    // a kept channel no longer in memory is read back from disk (and checked) before the job exists
    for (const { ref, whose } of this.closed ? [] : namedChannelRefs(request)) {
      const found = await this.channels.locate(ref);
      if (!found.ok) throw new ApiError({ code: 'invalid-input', message: `${whose}${found.problem}` });
    }
    return this.start(request);
  }

  /**
   * The pool as a submitter of jobs that carry their domain files (a job from the Redis queue): while such a job
   * runs, its worker reads graph:FILE / csv:FILE only from `files` and refuses any other file.
   */
  carrying(files: Readonly<Record<string, string>>): JobSubmitter {
    return {
      submit: async (r) => this.start(r, files),
      cancel: (id) => this.cancel(id),
      stop: (id) => this.stop(id),
      onJobEvent: (l) => this.onJobEvent(l),
    };
  }

  /** Synchronous form of submit (throws ApiError); `files`: see carrying(). */
  start(request: unknown, files?: Readonly<Record<string, string>>): string {
    if (this.closed) throw new ApiError({ code: 'internal', message: 'the job dispatcher is closed' });
    const parsed = jobRequestOf(request);
    if (!parsed.ok) throw new ApiError(parsed.error);
    // Rows of a kept channel are cut from it here: no worker, no second copy of the channel.
    if (parsed.value.type === 'rows' && parsed.value.channelRef !== undefined)
      return this.serveKeptRows(parsed.value, parsed.value.channelRef);
    const req = parsed.value;
    const channels = this.keptChannelsOf(req);
    // keepChannel: the worker hands the whole channel back in shared memory, the host keeps it; the result
    // carries the matrix only within the caller's inline limit (the worker applies it).
    const keep = req.type === 'mechanism' && req.keepChannel === true;
    const id = `job-${++this.seq}`;
    const flagBuf = new SharedArrayBuffer(4);
    const rec: JobRecord = {
      id,
      type: req.type,
      started: Date.now(),
      flag: new Int32Array(flagBuf),
      abort: new AbortController(),
      cancelled: false,
      stoppable: isLpJob(req),
      stopped: false,
      done: false,
      running: false,
    };
    this.jobs.set(id, rec);
    this.emit({ kind: 'queued', jobId: id, type: req.type });
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (m: unknown) => {
      if (rec.done) return;
      if (m !== null && typeof m === 'object' && (m as { started?: unknown }).started === true) {
        rec.running = true;
        return;
      }
      const p = progressSchema.safeParse(m);
      if (p.success)
        this.emit({
          kind: 'progress',
          jobId: id,
          fraction: p.data.fraction,
          message: p.data.message,
          ...(p.data.lp ? { lp: p.data.lp } : {}),
        });
    });
    port1.unref();
    const plainTask = {
      request: req,
      port: port2,
      cancelFlag: flagBuf,
      ...(files ? { files } : {}),
      ...(this.readRoot !== undefined ? { readRoot: this.readRoot } : {}),
      ...(keep ? { keep: true } : {}),
      ...(channels ? { channels } : {}),
    };
    // An optimal LP on the pool with a host pricing engine: the engine stays on this thread, served over a port.
    const pricingPorts = this.pricing && isLpJob(req) && !this.inProcess?.(req) ? new MessageChannel() : null;
    if (pricingPorts) {
      servePricing(pricingPorts.port1, this.pricing!);
      pricingPorts.port1.unref();
    }
    const task = {
      ...plainTask,
      ...(pricingPorts ? { pricingPort: pricingPorts.port2 } : {}),
      ...(this.pricing && this.pricingMin !== undefined ? { pricingMinVariables: this.pricingMin } : {}),
    };
    const running: Promise<unknown> = this.inProcess?.(req)
      ? // the worker's own module (out/worker/worker-entry.js when built), loaded on this thread once
        (import(this.poolOptions!.filename!) as Promise<{ default: (t: typeof task) => Promise<unknown> }>).then((m) =>
          m.default({ ...task, ...(this.pricing ? { pricing: this.pricing } : {}) }),
        )
      : this.pool().run(task, {
          transferList: pricingPorts ? [port2, pricingPorts.port2] : [port2],
          signal: rec.abort.signal,
        });
    if (pricingPorts) void running.finally(() => pricingPorts.port1.close()).catch(() => undefined);
    running
      .then(
        (reply: unknown) => {
          const kept = keep ? keptOfReply(reply) : undefined;
          const r = workerReplySchema.safeParse(reply);
          if (!r.success) {
            const issue = r.error.issues[0];
            const where = issue && issue.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
            this.finishError(rec, {
              code: 'internal',
              message: `worker sent a malformed reply for ${req.type}${where}: ${issue?.message ?? ''}`,
            });
          } else if (r.data.ok) {
            if (rec.cancelled) this.finishError(rec, { code: 'cancelled', message: 'job cancelled' });
            else
              this.finishResult(
                rec,
                kept && req.type === 'mechanism' ? this.keepChannel(r.data.result, kept, req) : r.data.result,
              );
          } else {
            this.finishError(rec, rec.cancelled ? { code: 'cancelled', message: 'job cancelled' } : r.data.error);
          }
        },
        (err: unknown) => {
          if (rec.cancelled) return this.finishError(rec, { code: 'cancelled', message: 'job cancelled' });
          this.finishError(rec, crashError(err));
        },
      )
      .finally(() => port1.close());
    return id;
  }

  /** Cancel a job; resolves true if it was running or queued. */
  async cancel(jobId: string): Promise<boolean> {
    const rec = this.jobs.get(jobId);
    if (!rec || rec.done) return false;
    if (rec.cancelled) return true;
    rec.cancelled = true;
    Atomics.store(rec.flag, 0, FLAG_CANCEL);
    rec.graceTimer = setTimeout(() => {
      if (!rec.done) rec.abort.abort(new Error('cancelled'));
    }, this.cancelGraceMs);
    return true;
  }

  /**
   * Stop a job early, keeping its answer: an optimal LP returns the best
   * private mechanism so far with its certified gap; any other job is
   * cancelled. Resolves true if the job was running or queued.
   */
  async stop(jobId: string): Promise<boolean> {
    const rec = this.jobs.get(jobId);
    if (!rec || rec.done) return false;
    if (!rec.stoppable) return this.cancel(jobId);
    if (rec.cancelled || rec.stopped) return true;
    rec.stopped = true;
    // Only from 0: a cancel that came first stays a cancel.
    Atomics.compareExchange(rec.flag, 0, 0, FLAG_STOP);
    return true;
  }

  /** Whether stop(jobId) keeps a result (an optimal LP) rather than cancelling; false for unknown or finished jobs. */
  isStoppable(jobId: string): boolean {
    const rec = this.jobs.get(jobId);
    return rec !== undefined && !rec.done && rec.stoppable;
  }

  /** Typed convenience for callers that built the request themselves. */
  runTyped<R extends JobRequest>(
    request: R,
    options?: Parameters<Dispatcher['run']>[1],
  ): Promise<Extract<JobResult, { type: R['type'] }>> {
    return this.run(request, options) as Promise<Extract<JobResult, { type: R['type'] }>>;
  }

  /** Cancel everything and stop the pool. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.jobs.keys()]) await this.cancel(id);
    await this.poolInstance?.destroy();
    await this.channels.flush();
  }

  /** Live worker threads (for tests and diagnostics). */
  get liveThreads(): number {
    return this.poolInstance?.threads.length ?? 0;
  }

  private serveKeptRows(req: Extract<JobRequest, { type: 'rows' }>, ref: string): string {
    const channel = this.channels.get(ref);
    if (!channel) throw notKept(ref);
    const id = `job-${++this.seq}`;
    const rec: JobRecord = {
      id,
      type: req.type,
      started: Date.now(),
      flag: new Int32Array(1),
      abort: new AbortController(),
      cancelled: false,
      stoppable: false,
      stopped: false,
      done: false,
      running: true,
    };
    this.jobs.set(id, rec);
    this.emit({ kind: 'queued', jobId: id, type: req.type });
    setImmediate(() => {
      if (rec.done) return;
      if (rec.cancelled) return this.finishError(rec, { code: 'cancelled', message: 'job cancelled' });
      try {
        this.finishResult(rec, rowsOf(keptRowSource(channel, `kept channel ${ref}`), req));
      } catch (e) {
        this.finishError(rec, { code: e instanceof MechError ? e.code : 'internal', message: messageOf(e) });
      }
    });
    return id;
  }

  /**
   * The kept channels a measure, check, apply or compare request names, passed with its task (workers read them in
   * place).
   */
  private keptChannelsOf(req: JobRequest): Record<string, KeptChannel> | undefined {
    const named = namedChannelRefs(req);
    if (named.length === 0) return undefined;
    const out: Record<string, KeptChannel> = {};
    for (const { ref, whose } of named) {
      const channel = this.channels.get(ref);
      if (!channel) throw notKept(ref, whose);
      out[ref] = channel;
    }
    return out;
  }

  /** Keep a mechanism job's channel (with what produced it); the result names it by channelRef. */
  private keepChannel(
    result: JobResult,
    kept: KeptChannel,
    req: Extract<JobRequest, { type: 'mechanism' }>,
  ): JobResult {
    if (result.type !== 'mechanism') return result;
    const { type: _t, inlineLimit: _l, keepChannel: _k, out: _o, ...request } = req;
    void [_t, _l, _k, _o];
    const summary: Record<string, unknown> = {
      kind: result.kind,
      domain: result.domain,
      epsilon: result.epsilon,
      rows: result.rows,
      cols: result.cols,
      utility: result.utility,
      effectiveEpsilon: result.effectiveEpsilon,
      ...(result.expectedLoss !== undefined ? { expectedLoss: result.expectedLoss } : {}),
      ...(result.lp
        ? {
            lp: {
              model: result.lp.model,
              objective: result.lp.objective,
              gap: result.lp.gap,
              stoppedBy: result.lp.stoppedBy,
            },
          }
        : {}),
    };
    const channelRef = this.channels.put(kept, { request, summary, computedAt: new Date().toISOString() });
    return { ...result, channelRef };
  }

  private finishResult(rec: JobRecord, result: JobResult): void {
    if (rec.done) return;
    rec.done = true;
    this.cleanup(rec);
    this.emit({ kind: 'result', jobId: rec.id, result, elapsedMs: Date.now() - rec.started });
  }

  private finishError(rec: JobRecord, error: JobError): void {
    if (rec.done) return;
    rec.done = true;
    this.cleanup(rec);
    this.emit({ kind: 'error', jobId: rec.id, error, elapsedMs: Date.now() - rec.started });
  }

  private cleanup(rec: JobRecord): void {
    if (rec.graceTimer) clearTimeout(rec.graceTimer);
    this.jobs.delete(rec.id);
  }

  private emit(e: JobEvent): void {
    if (this.validateReplies && e.kind !== 'result') {
      // results were validated as worker replies already
      const ok = jobEventSchema.safeParse(e);
      if (!ok.success) return;
    }
    this.deliver(e);
  }
}

/**
 * Jobs whose stop() keeps a result: an optimal-mechanism LP (kind 'optimal', built by a mechanism, measure, check or
 * compare job; a kept channel is not built).
 */
export function isLpJob(req: JobRequest): boolean {
  if (req.type === 'mechanism') return req.kind === 'optimal';
  if (req.type === 'measure' || req.type === 'check') return req.mechanism?.kind === 'optimal';
  // a comparison with an optimal row: Stop ends that LP with its best mechanism, the other rows are still computed
  if (req.type === 'compare') return compareBuildsLp(req);
  return false;
}

/**
 * A channelRef a request names, with which part of the request names it (for messages: '' or "compare: mechanism 2
 * (opt): ").
 */
interface NamedRef {
  ref: string;
  whose: string;
}

/** The channelRefs a measure, check, rows, apply or compare request names (before or after validation). */
export function namedChannelRefs(req: unknown): NamedRef[] {
  if (req === null || typeof req !== 'object') return [];
  const r = req as { type?: unknown; channelRef?: unknown; mechanisms?: unknown };
  // a comparison names a kept channel per mechanism computed in the project (an optimal LP)
  if (r.type === 'compare' && Array.isArray(r.mechanisms))
    return r.mechanisms.flatMap((m: unknown, k) => {
      const e = (m ?? {}) as { channelRef?: unknown; label?: unknown; kind?: unknown };
      return typeof e.channelRef === 'string'
        ? [{ ref: e.channelRef, whose: `compare: mechanism ${k + 1} (${String(e.label ?? e.kind)}): ` }]
        : [];
    });
  const one =
    (r.type === 'measure' || r.type === 'check' || r.type === 'rows' || r.type === 'apply') &&
    typeof r.channelRef === 'string';
  return one ? [{ ref: r.channelRef as string, whose: '' }] : [];
}

/** The one error for a channelRef the host does not hold. */
function notKept(ref: string, whose = ''): ApiError {
  return new ApiError({
    code: 'invalid-input',
    message: `${whose}the channel ${ref} is no longer kept by the app (it was dropped for memory, or its files are gone): compute its mechanism again`,
  });
}

/** The channel a worker kept beside its reply (shared memory), when it is one. */
function keptOfReply(reply: unknown): KeptChannel | undefined {
  const k = (reply as { kept?: Partial<KeptChannel> } | null)?.kept;
  if (!k || !(k.data instanceof Float64Array) || !Array.isArray(k.rowLabels) || !Array.isArray(k.colLabels))
    return undefined;
  if (k.rows! * k.cols! !== k.data.length || k.rowLabels.length !== k.rows || k.colLabels.length !== k.cols)
    return undefined;
  return k as KeptChannel;
}

/** A rejected piscina task that was not a cancellation: the worker died. */
function crashError(err: unknown): JobError {
  const msg = messageOf(err);
  const code = (err as { code?: string } | null)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|heap limit/i.test(msg)) {
    return { code: 'crashed', message: `the worker ran out of memory and was replaced (${msg}); try a smaller domain` };
  }
  return { code: 'crashed', message: `the worker thread crashed and was replaced: ${msg}` };
}
