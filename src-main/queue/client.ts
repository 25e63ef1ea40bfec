/**
 * The queue as a JobRunner: `mechstudio run PROJECT --queue URL` (and the app
 * pointed at a queue) submit each job to BullMQ instead of the local pool;
 * `mechstudio worker` processes run them. Same contract as the Dispatcher:
 * requests are validated before anything is queued, every job ends with one
 * 'result' or 'error' event, replies are validated again when they come back,
 * and a mechanism/capacity request with `out` gets its channel CSV written
 * there (the worker returns the bytes it wrote), so a project run writes the
 * same files as a local run.
 *
 * - connect() fails in a few seconds with one line when Redis is unreachable.
 * - Completion comes from BullMQ's event stream (read from the id current
 *   before the first job was added, so no event is missed); a slow poll of
 *   the job hashes catches anything the stream lost (trimmed, reconnects).
 * - cancel(): a waiting job is removed; a running one is cancelled on its
 *   worker (pub/sub) and marked so a later pick-up drops it. The caller gets
 *   its 'cancelled' error at once, whatever the remote side does.
 * - stop(): a running optimal LP is stopped on its worker (pub/sub) and
 *   resolves with its best mechanism; a job still waiting, or not an LP, is
 *   cancelled (it has no result to keep).
 * - Losing Redis for longer than `lostAfterMs` fails the jobs still waiting
 *   ('internal', naming the redacted URL): nothing waits forever on a dead
 *   connection.
 */
import type { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  ApiError,
  type JobError,
  type JobEvent,
  progressSchema,
  type JobResult,
  jobRequestOf,
} from '../../src-shared/protocol/index';
import { JobRunnerBase, type JobRunner } from '../dispatcher/job-runner';
import { REFUSE_SYSTEM_FS, readRegularFile, writeFileAtomicAsync } from '../fs/safe-fs';
import { MechError, messageOf } from '../../src-shared/errors';
import {
  MAX_CARRIED_FILE_BYTES,
  decodeReturn,
  encodeValue,
  fileDomainRefs,
  parseFailure,
  requestTooLarge,
  type JobData,
} from './codec';
import { isLpJob } from '../dispatcher/dispatcher';
import { JOB_QUEUE, probeRedis, redact, type QueueTarget } from './connection';

interface Pending {
  localId: string;
  bullId: string | null;
  type: string;
  started: number;
  out: string | null;
  /** An optimal LP: stop() keeps its best mechanism. */
  lp: boolean;
  done: boolean;
  cancelled: boolean;
  /** A completed/failed event is being handled (the CSV is being written). */
  finishing: boolean;
}

interface QueueClientOptions {
  /** Fail waiting jobs after Redis has been unreachable this long (default 15 s). */
  lostAfterMs?: number;
  /** Check job hashes for outcomes the event stream did not deliver, this often (default 3 s). */
  pollMs?: number;
  /** Attempts per job for failures that are not the input's fault (default 3). */
  attempts?: number;
}

/**
 * The graph:FILE / csv:FILE files a request names, read here (the client's machine, where a local run would read
 * them) so that the job carries them to whichever worker runs it; undefined when it names none. Refuses, before
 * anything is queued, a file that is not a regular readable file or files over MAX_CARRIED_FILE_BYTES together.
 */
async function readCarriedFiles(request: unknown): Promise<Record<string, string> | undefined> {
  const refs = fileDomainRefs(request);
  if (refs.length === 0) return undefined;
  const files: Record<string, string> = {};
  let total = 0;
  for (const { spec, file } of refs) {
    if (Object.hasOwn(files, file)) continue;
    try {
      files[file] = await readRegularFile(file, 'domain file', MAX_CARRIED_FILE_BYTES, REFUSE_SYSTEM_FS);
    } catch (e) {
      const code = e instanceof MechError || e instanceof ApiError ? e.code : 'invalid-input';
      throw new ApiError({ code, message: `domain '${spec.slice(0, 200)}': ${messageOf(e)}` });
    }
    total += Buffer.byteLength(files[file]!, 'utf8');
    if (total > MAX_CARRIED_FILE_BYTES) {
      throw new ApiError({
        code: 'too-large',
        message: `the domain files of this job are over ${MAX_CARRIED_FILE_BYTES / 2 ** 20} MiB together, more than a job on the queue carries: run it without the queue`,
      });
    }
  }
  return files;
}

/** Job ids are unique in the process, across clients (the app may reconnect while an older client's jobs still run). */
let clientSeq = 0;

export class QueueClient extends JobRunnerBase implements JobRunner {
  readonly threads = 1;
  private readonly byLocal = new Map<string, Pending>();
  private readonly byBull = new Map<string, Pending>();
  private seq = 0;
  private readonly idPrefix = `queue-${++clientSeq}`;
  private closed = false;
  private lostSince: number | null = null;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    readonly target: QueueTarget,
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly commands: Redis,
    private readonly opts: Required<QueueClientOptions>,
    /** Every Redis connection underneath (the queue's, the event stream's, ours): cut on close. */
    private readonly raw: { disconnect(): void }[],
  ) {
    super();
    events.on('progress', ({ jobId, data }: { jobId: string; data: unknown }) => {
      const p = this.byBull.get(jobId);
      const d = progressSchema.safeParse(data);
      if (p && !p.done && d.success)
        this.emit({
          kind: 'progress',
          jobId: p.localId,
          fraction: d.data.fraction,
          message: d.data.message,
          ...(d.data.lp ? { lp: d.data.lp } : {}),
        });
    });
    events.on(
      'completed',
      ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) => void this.completed(jobId, returnvalue),
    );
    events.on(
      'failed',
      ({ jobId, failedReason }: { jobId: string; failedReason: string }) => void this.failed(jobId, failedReason),
    );
    const onTrouble = (): void => {
      this.lostSince ??= Date.now();
    };
    const onReady = (): void => {
      this.lostSince = null;
    };
    for (const c of [commands]) {
      c.on('error', onTrouble);
      c.on('close', onTrouble);
      c.on('ready', onReady);
    }
    events.on('error', onTrouble);
    queue.on('error', onTrouble);
    this.timer = setInterval(() => void this.tick(), Math.min(this.opts.pollMs, 1000));
    this.timer.unref();
  }

  /** Probe Redis (one clear error in seconds when it is not there), then open the queue and its event stream. */
  static async connect(target: QueueTarget, options: QueueClientOptions = {}): Promise<QueueClient> {
    await probeRedis(target);
    const { Queue, QueueEvents } = await import('bullmq');
    const { Redis } = await import('ioredis');
    const commands = new Redis({ ...target.options, maxRetriesPerRequest: 1 });
    commands.on('error', () => undefined);
    // the event stream's current end: events of our jobs all come after it
    const last = (await commands.xrevrange(JOB_QUEUE.events, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
    const queue = new Queue(JOB_QUEUE.name, {
      connection: { ...target.options, maxRetriesPerRequest: 1 },
      prefix: JOB_QUEUE.prefix,
    });
    const events = new QueueEvents(JOB_QUEUE.name, {
      connection: { ...target.options, maxRetriesPerRequest: null },
      prefix: JOB_QUEUE.prefix,
      lastEventId: last,
    });
    queue.on('error', () => undefined);
    events.on('error', () => undefined);
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    const raw = [await queue.client, await events.client, commands];
    return new QueueClient(
      target,
      queue,
      events,
      commands,
      { lostAfterMs: options.lostAfterMs ?? 15_000, pollMs: options.pollMs ?? 3000, attempts: options.attempts ?? 3 },
      raw,
    );
  }

  /** Workers connected to the queue now (null when the server does not say: CLIENT LIST disabled). */
  async workerCount(): Promise<number | null> {
    try {
      return await this.queue.getWorkersCount();
    } catch {
      return null;
    }
  }

  async submit(request: unknown): Promise<string> {
    if (this.closed) throw new ApiError({ code: 'internal', message: 'the queue client is closed' });
    const parsed = jobRequestOf(request);
    if (!parsed.ok) throw new ApiError(parsed.error);
    const files = await readCarriedFiles(parsed.value);
    const req = { ...parsed.value } as typeof parsed.value & { out?: string };
    const out = (req.type === 'mechanism' || req.type === 'capacity') && req.out ? req.out : null;
    delete req.out;
    const text = encodeValue(req);
    const tooLarge = requestTooLarge(text);
    if (tooLarge) throw new ApiError(tooLarge);
    const p: Pending = {
      localId: `${this.idPrefix}-${++this.seq}`,
      bullId: null,
      type: req.type,
      started: Date.now(),
      out,
      lp: isLpJob(parsed.value),
      done: false,
      cancelled: false,
      finishing: false,
    };
    this.byLocal.set(p.localId, p);
    this.emit({ kind: 'queued', jobId: p.localId, type: req.type });
    const data: JobData = { v: 1, request: text, ...(out ? { csv: true as const } : {}), ...(files ? { files } : {}) };
    // added in the background: submit() answers at once, like the pool's
    void this.queue
      .add(req.type, data, {
        attempts: this.opts.attempts,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: 3600 },
        removeOnFail: { age: 24 * 3600 },
      })
      .then(
        (job) => {
          p.bullId = job.id ?? null;
          if (p.bullId === null) return this.finish(p, { code: 'internal', message: 'the queue gave the job no id' });
          this.byBull.set(p.bullId, p);
          if (p.cancelled) void this.cancelRemote(p);
        },
        (e: unknown) =>
          this.finish(p, {
            code: 'internal',
            message: `cannot add the job to the queue at ${this.target.redacted}: ${this.clean(e)}`,
          }),
      );
    return p.localId;
  }

  async cancel(jobId: string): Promise<boolean> {
    const p = this.byLocal.get(jobId);
    if (!p || p.done) return false;
    p.cancelled = true;
    if (p.bullId !== null) await this.cancelRemote(p);
    this.finish(p, { code: 'cancelled', message: 'job cancelled' });
    return true;
  }

  async stop(jobId: string): Promise<boolean> {
    const p = this.byLocal.get(jobId);
    if (!p || p.done) return false;
    if (!p.lp || p.bullId === null) return this.cancel(jobId);
    const state = await this.queue.getJobState(p.bullId).catch(() => 'unknown');
    if (state !== 'active') return this.cancel(jobId);
    try {
      await this.commands.publish(JOB_QUEUE.stopChannel, p.bullId);
    } catch {
      return this.cancel(jobId);
    }
    return true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const id of [...this.byLocal.keys()]) await this.cancel(id).catch(() => undefined);
    // BullMQ's close waits for Redis; without Redis it would wait forever: bounded, then cut
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([this.events.close(), this.queue.close()]),
      new Promise((r) => {
        timer = setTimeout(r, this.lostSince === null ? 3000 : 200);
      }),
    ]);
    clearTimeout(timer);
    // ioredis' disconnect() also stops reconnecting (BullMQ's own disconnect waits for Redis too)
    for (const c of this.raw) c.disconnect();
  }

  private async cancelRemote(p: Pending): Promise<void> {
    const id = p.bullId!;
    try {
      await this.commands.set(JOB_QUEUE.cancelled(id), '1', 'EX', 3600);
      const removed = await this.queue.remove(id).catch(() => 0);
      if (!removed) await this.commands.publish(JOB_QUEUE.cancelChannel, id);
    } catch {
      // Redis gone: the job is cancelled here; a worker that runs it anyway only wastes time
    }
  }

  private async completed(bullId: string, value: unknown): Promise<void> {
    const p = this.byBull.get(bullId);
    if (!p || p.done || p.finishing) return;
    p.finishing = true;
    try {
      const r = decodeReturn(value);
      if ('error' in r) return this.finish(p, r.error);
      const { reply } = r;
      if (!reply.ok) return this.finish(p, reply.error);
      const result = reply.result;
      if (p.out && (result.type === 'mechanism' || result.type === 'capacity') && r.csv) {
        await writeFileAtomicAsync(p.out, r.csv, 'channel CSV');
        result.csvPath = p.out;
      }
      this.finish(p, null, result);
    } catch (e) {
      this.finish(p, { code: e instanceof ApiError ? e.code : 'internal', message: this.clean(e) });
    } finally {
      this.queue.remove(bullId).catch(() => undefined);
    }
  }

  private failed(bullId: string, reason: string): void {
    const p = this.byBull.get(bullId);
    if (!p || p.done || p.finishing) return;
    this.finish(p, parseFailure(redact(this.target, reason)));
  }

  /** Outcomes the stream did not deliver, and a Redis connection lost for too long. */
  private async tick(): Promise<void> {
    if (this.lostSince !== null && Date.now() - this.lostSince > this.opts.lostAfterMs) {
      for (const p of [...this.byLocal.values()]) {
        this.finish(p, {
          code: 'internal',
          message: `lost the connection to Redis at ${this.target.redacted} for more than ${Math.round(this.opts.lostAfterMs / 1000)} s`,
        });
      }
      return;
    }
    const now = Date.now();
    if (now - (this.lastPoll ?? 0) < this.opts.pollMs) return;
    this.lastPoll = now;
    const { Job } = await import('bullmq');
    const waiting = [...this.byBull.values()].filter((p) => !p.done && !p.finishing).slice(0, 200);
    for (const p of waiting) {
      let job: Job | undefined;
      try {
        // the state first (cheap); the whole hash (request, reply) only for a finished job
        const state = await this.queue.getJobState(p.bullId!);
        if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
        job = await Job.fromId(this.queue, p.bullId!);
      } catch {
        return; // Redis trouble: the lost-connection rule above decides
      }
      if (p.done || p.finishing) continue;
      if (!job) {
        this.finish(p, {
          code: 'internal',
          message: `job ${p.bullId} disappeared from the queue at ${this.target.redacted}`,
        });
      } else if (job.finishedOn) {
        if (job.failedReason && !job.returnvalue) this.failed(p.bullId!, job.failedReason);
        else void this.completed(p.bullId!, job.returnvalue);
      }
    }
  }

  private lastPoll: number | null = null;

  private finish(p: Pending, error: JobError | null, result?: JobResult): void {
    if (p.done) return;
    p.done = true;
    this.byLocal.delete(p.localId);
    if (p.bullId !== null) this.byBull.delete(p.bullId);
    const elapsedMs = Date.now() - p.started;
    this.emit(
      error
        ? { kind: 'error', jobId: p.localId, error, elapsedMs }
        : { kind: 'result', jobId: p.localId, result: result!, elapsedMs },
    );
  }

  private clean(e: unknown): string {
    return redact(this.target, messageOf(e).split('\n')[0]!);
  }

  private emit(e: JobEvent): void {
    this.deliver(e);
  }
}
