/**
 * `mechstudio worker --queue redis://HOST:PORT[/DB] [--concurrency N]`: takes
 * jobs from the BullMQ queue and runs them on this machine's worker pool (the
 * same Dispatcher as a local run), N at a time.
 *
 * - Nothing from the queue is trusted: the job data is checked against its
 *   envelope and the request against the protocol schemas (the pool checks
 *   it again); bad input fails the job with an UnrecoverableError, so BullMQ
 *   never retries it. An `out` path in a request is ignored: a channel CSV is
 *   written to this worker's own temp directory and returned in the reply.
 *   graph:FILE / csv:FILE domains are served from the files the job carries
 *   (exactly the files its domains name, codec.ts carriedFilesError): the
 *   worker's engine reads nothing from this machine's disk.
 * - Job data over the queue's caps (codec.ts MAX_QUEUE_REQUEST_BYTES, the
 *   carried files' MAX_CARRIED_FILE_BYTES) fails for good before it is
 *   parsed; the job's lock is renewed just before the parse, which the cap
 *   keeps well inside one lock period, so a parse is never taken for a stall.
 *   BullMQ itself parses the job data before this worker sees it: for data
 *   far over the caps (up to Redis' 512 MB) under a short lock that can
 *   outlast the lock, the job goes back to the queue before it can be
 *   failed, so its data is first replaced by the verdict
 *   ({failedForGood: error}) and the next take fails it at once.
 * - A job started more often than its attempts plus the stall limit (its
 *   workers died or lost its lock each time) fails for good as 'crashed'
 *   when it is next taken, instead of being started again.
 * - Engine errors (infeasible, too-large, ...) are results like any other:
 *   the job completes with the error as its reply, exactly as the local pool
 *   reports it. Anything else that throws is retried (3 attempts).
 * - Progress goes to BullMQ's job progress (at most ~4 updates a second).
 * - Cancellation: the client publishes the job id on JOB_QUEUE.cancelChannel; the
 *   running job is aborted (the pool's cancel) and fails unrecoverably.
 * - A SIGKILLed worker's jobs are put back in the queue by the stalled check
 *   of the workers still alive (see stallSettings) and run again elsewhere.
 * - Pricing: the same process prices slices of outputs for optimal LPs
 *   whose master runs elsewhere (pricing-service.ts), on its own threads.
 * - stop(): stops taking jobs and waits for the running ones; the CLI's
 *   second Ctrl-C exits at once, and those jobs are then recovered as stalled.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { ApiError, runJob, type JobError, type WorkerReply, parseJobRequest } from '../../src-shared/protocol/index';
import { Dispatcher, type DispatcherOptions } from '../dispatcher/dispatcher';
import { MechError, messageOf } from '../../src-shared/errors';
import { startPricingService } from './pricing-service';
import { PricingFleet } from './pricing-master';
import {
  MAX_CSV_GZ_BYTES,
  carriedFilesError,
  decodeValue,
  encodeReturn,
  failedForGoodSchema,
  failureText,
  jobDataSchema,
  payloadTooLarge,
} from './codec';
import { JOB_QUEUE, probeRedis, redact, stallSettings, type QueueTarget } from './connection';

interface QueueWorkerOptions {
  target: QueueTarget;
  /** Jobs at once (and pool threads). */
  concurrency: number;
  /** One line per event (job started / done / failed, connection trouble); default none. */
  log?: (line: string) => void;
  dispatcher?: DispatcherOptions;
}

interface RunningQueueWorker {
  /** Redis server version. */
  redisVersion: string;
  /** Stop taking jobs, wait for the running ones, disconnect. */
  stop(): Promise<void>;
  /** Resolves when the worker has stopped (stop() or a fatal error). */
  closed: Promise<void>;
}

const PROGRESS_EVERY_MS = 250;
/**
 * Optimal LPs of at least this many variables (secrets x outputs: 500 x 500, above a 22 x 22 grid) taken from the
 * queue price on the queue's workers; smaller ones (a round in well under a second) on this worker's threads, where
 * the whole-model shortcuts stay and a round trip through Redis would cost more than it saves.
 */
const QUEUE_PRICING_MIN_VARIABLES = 250_000;

/**
 * QUEUE_PRICING_MIN_VARIABLES, or MECHSTUDIO_QUEUE_PRICING_MIN_VARIABLES from the environment (the tests price a 6 x 6
 * grid on the queue).
 */
function queuePricingMinVariables(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MECHSTUDIO_QUEUE_PRICING_MIN_VARIABLES;
  if (raw === undefined || raw === '') return QUEUE_PRICING_MIN_VARIABLES;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 0)
    throw new MechError(
      'invalid-input',
      `MECHSTUDIO_QUEUE_PRICING_MIN_VARIABLES must be an integer >= 0, got '${raw.slice(0, 40)}'`,
    );
  return v;
}

export async function startQueueWorker(opts: QueueWorkerOptions): Promise<RunningQueueWorker> {
  const { target } = opts;
  const log = opts.log ?? (() => undefined);
  const redisVersion = await probeRedis(target);
  const { Worker, UnrecoverableError } = await import('bullmq');
  const { Redis } = await import('ioredis');
  const stall = stallSettings();
  // Large optimal LPs taken from the queue price their rounds on the queue's workers (this one included); the master
  // stays here.
  const fleet = await PricingFleet.connect(target, { log });
  const dispatcher = new Dispatcher({
    threads: opts.concurrency,
    pricing: fleet.factory,
    pricingMinVariables: queuePricingMinVariables(),
    ...opts.dispatcher,
  });
  const csvDir = mkdtempSync(join(tmpdir(), 'mechstudio-queue-'));
  const fail = (error: JobError): never => {
    throw new UnrecoverableError(failureText(error));
  };

  const connection = { ...target.options, maxRetriesPerRequest: null };
  const commands = new Redis({ ...target.options, maxRetriesPerRequest: 3 });
  const subscriber = new Redis({ ...target.options, maxRetriesPerRequest: null });
  let lastTrouble = 0;
  const trouble = (e: unknown): void => {
    const now = Date.now();
    if (now - lastTrouble < 10_000) return;
    lastTrouble = now;
    log(`Redis at ${target.redacted}: ${redact(target, messageOf(e))} (retrying)`);
  };
  commands.on('error', trouble);
  subscriber.on('error', trouble);

  /** Running jobs by queue id: a message on JOB_QUEUE.stopChannel stops that job on the pool (an LP keeps its best). */
  const stoppers = new Map<string, AbortController>();
  const processor = jobProcessor({ dispatcher, commands, csvDir, log, stoppers, fail, stall });

  const worker = new Worker(JOB_QUEUE.name, processor, {
    connection,
    prefix: JOB_QUEUE.prefix,
    concurrency: opts.concurrency,
    lockDuration: stall.lockMs,
    stalledInterval: stall.stalledMs,
    maxStalledCount: stall.maxStalled,
    autorun: false,
  });
  worker.on('error', trouble);

  await subscriber.subscribe(JOB_QUEUE.cancelChannel, JOB_QUEUE.stopChannel);
  subscriber.on('message', (channel: string, jobId: string) => {
    if (typeof jobId !== 'string') return;
    if (channel === JOB_QUEUE.cancelChannel) worker.cancelJob(jobId, 'cancelled');
    else if (channel === JOB_QUEUE.stopChannel) stoppers.get(jobId)?.abort();
  });

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const running = worker.run().catch((e: unknown) => trouble(e));
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await worker.close();
      await running;
      await dispatcher.close();
      subscriber.disconnect();
      commands.disconnect();
      rmSync(csvDir, { recursive: true, force: true });
      resolveClosed();
    })();
    return stopping;
  };
  await worker.waitUntilReady();
  const pricing = await startPricingService({ target, threads: opts.concurrency, ttlMs: stall.lockMs, log });
  const stopAll = (): Promise<void> =>
    pricing
      .stop()
      .then(stop)
      .then(() => fleet.close());
  return { redisVersion, stop: stopAll, closed };
}

interface ProcessorDeps {
  dispatcher: Dispatcher;
  commands: Redis;
  /** This worker's own temp directory: channel CSVs are written here, never to a path from the queue. */
  csvDir: string;
  log: (line: string) => void;
  stoppers: Map<string, AbortController>;
  /** Fail the job for good (UnrecoverableError: never retried). */
  fail: (error: JobError) => never;
  stall: { lockMs: number; maxStalled: number };
}

/**
 * A job failed for good before (its verdict kept in its data), too large, or started too often: failed here, never run.
 */
async function refuseSpent(
  job: Job,
  { commands, log, fail, stall }: Pick<ProcessorDeps, 'commands' | 'log' | 'fail' | 'stall'>,
): Promise<void> {
  const id = job.id ?? '?';
  // A job already failed for good whose lock lapsed before it could be failed (see the file comment).
  const marked = failedForGoodSchema.safeParse(job.data);
  if (marked.success) fail(marked.data.failedForGood);
  const tooLarge = payloadTooLarge(job.data);
  if (tooLarge) {
    log(`job ${id} failed for good: ${tooLarge.message}`);
    // Taking this job off the queue (BullMQ's parse, before this runs) may have outlasted a short lock, so failing it
    // below may find the job back in the queue: its data is replaced by the verdict first, and the next worker to
    // take it parses a few bytes and fails it with this message.
    await commands.hset(JOB_QUEUE.job(id), 'data', JSON.stringify({ failedForGood: tooLarge })).catch(() => undefined);
    fail(tooLarge);
  }
  const starts = (job.opts.attempts ?? 1) + stall.maxStalled;
  if (job.attemptsStarted > starts) {
    log(`job ${id} failed for good: started ${job.attemptsStarted} times`);
    fail({
      code: 'crashed',
      message: `the job was started ${job.attemptsStarted} times, more than its ${job.opts.attempts ?? 1} attempts and ${stall.maxStalled} stalls allow (its workers died or lost it each time); it is not started again`,
    });
  }
}

/**
 * The BullMQ processor: validate what came off the queue, run it on the pool with its carried files, return the encoded
 * reply.
 */
function jobProcessor({
  dispatcher,
  commands,
  csvDir,
  log,
  stoppers,
  fail,
  stall,
}: ProcessorDeps): (job: Job, token?: string, signal?: AbortSignal) => Promise<string> {
  let csvSeq = 0;
  return async (job: Job, token?: string, signal?: AbortSignal): Promise<string> => {
    const id = job.id ?? '?';
    await refuseSpent(job, { commands, log, fail, stall });
    // the parse below blocks this process: it starts with a whole lock period ahead of it
    if (token !== undefined) await job.extendLock(token, stall.lockMs);
    const data = jobDataSchema.safeParse(job.data);
    if (!data.success)
      fail({ code: 'invalid-input', message: 'queue job data is not a mechstudio job ({v: 1, request: TEXT})' });
    let raw: unknown;
    try {
      raw = decodeValue(data.data!.request);
    } catch {
      fail({ code: 'invalid-input', message: 'queue job request is not JSON' });
    }
    // an `out` from the queue is never used: this worker chooses where it writes
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) delete (raw as { out?: unknown }).out;
    const parsed = parseJobRequest(raw);
    if (!parsed.ok) return fail(parsed.error);
    const request = parsed.value;
    // the files the job carries are the only files its engine reads (none: it reads none at all)
    const files = data.data!.files ?? {};
    const filesError = carriedFilesError(request, files);
    if (filesError) fail(filesError);
    if ((await commands.exists(JOB_QUEUE.cancelled(id))) === 1) fail({ code: 'cancelled', message: 'job cancelled' });
    let csvPath: string | null = null;
    if (data.data!.csv && (request.type === 'mechanism' || request.type === 'capacity')) {
      csvPath = join(csvDir, `${process.pid}-${++csvSeq}.csv`);
      request.out = csvPath; // inlineLimit stays the client's: the reply is the one a local run gives
    }
    const t0 = Date.now();
    const again = job.attemptsStarted > 1 || job.stalledCounter > 0;
    log(
      `job ${id} ${request.type} started${again ? ` (again: attempt ${job.attemptsStarted}, stalled ${job.stalledCounter}x)` : ''}`,
    );
    let lastProgress = 0;
    let reply: WorkerReply;
    const stopper = new AbortController();
    stoppers.set(id, stopper);
    try {
      const result = await runJob(dispatcher.carrying(files), request, {
        ...(signal ? { signal } : {}),
        stopSignal: stopper.signal,
        onProgress: (fraction, message, lp) => {
          const now = Date.now();
          if (now - lastProgress < PROGRESS_EVERY_MS && fraction !== 1) return;
          lastProgress = now;
          // an LP round's sample too: the app's live convergence and the count of workers pricing
          job.updateProgress({ fraction, message, ...(lp ? { lp } : {}) }).catch(() => undefined);
        },
      });
      reply = { ok: true, result };
    } catch (e) {
      const error: JobError =
        e instanceof ApiError
          ? { code: e.code, message: e.message, ...(e.detail ? { detail: e.detail } : {}) }
          : { code: 'internal', message: messageOf(e) };
      if (error.code === 'cancelled' || signal?.aborted) {
        log(`job ${id} cancelled`);
        fail({ code: 'cancelled', message: 'job cancelled' });
      }
      // the worker's own temp file is no name the user knows: the client writes the CSV where it was asked to
      if (csvPath)
        error.message = error.message.split(csvPath).join('the channel CSV').split(csvDir).join('the worker');
      reply = { ok: false, error };
    } finally {
      stoppers.delete(id);
    }
    try {
      let csv: Buffer | undefined;
      if (reply.ok && csvPath && 'csvPath' in reply.result && reply.result.csvPath === csvPath) {
        csv = readFileSync(csvPath);
        reply.result.csvPath = undefined;
        delete reply.result.csvPath;
      }
      const text = encodeReturn(reply, csv);
      if (text.length > MAX_CSV_GZ_BYTES * 1.4) {
        fail({
          code: 'too-large',
          message: `the result is ${(text.length / 1e6).toFixed(0)} MB even compressed, too large to return through the queue (limit ${MAX_CSV_GZ_BYTES / 1e6} MB); run this item without --queue`,
        });
      }
      log(
        `job ${id} ${request.type} ${reply.ok ? 'done' : `failed (${reply.error.code})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      return text;
    } finally {
      if (csvPath) rmSync(csvPath, { force: true });
    }
  };
}
