/**
 * Per-session fairness in front of the job dispatcher. The dispatcher's pool
 * runs jobs first come, first served, so one client that submits 2,000 jobs
 * made another client's single small job wait for all of them (117 ms ->
 * 4.6 s). Here every session keeps its own FIFO and may have at most
 * `perSession` jobs inside the dispatcher (running or waiting for a thread);
 * the rest wait in the session's queue and are admitted one by one as that
 * session's jobs end. A newcomer's job therefore enters the pool behind at
 * most `perSession` jobs of each other session, whatever they submitted.
 *
 * That bound is in jobs, not time: while one session's long jobs (optimal
 * LPs) hold every thread, another session's 5-point job waited for one of
 * them to end (33.5 s instead of 8 ms). With `keepFree` (web mode: 1), a
 * session that already has a job inside the dispatcher is admitted another
 * only while more than `keepFree` threads would stay unclaimed, so one
 * session never holds every thread; a session with no job inside is always
 * admitted, so a newcomer's job starts on a kept thread at once, or waits
 * behind at most the first job of each other session. When a job ends, the
 * sessions with the fewest jobs inside are served first (then the one
 * served longest ago).
 *
 * Jobs get their ids here (the client needs one at once, before the
 * dispatcher has seen the job); dispatcher events are translated back.
 * Queued jobs are bounded per session (count and array entries) so a flood
 * cannot hold unbounded memory: beyond that, submit fails with 'too-large'.
 */
import { ApiError, type JobEvent, type JobRequest } from '../../src-shared/protocol';
import { toJobError } from './api-host';

/** The dispatcher as seen from here (the host's JobService). */
export interface JobBackend {
  submit(request: JobRequest): Promise<string> | string;
  cancel(jobId: string): Promise<boolean> | boolean;
  /** Stop with the best answer so far (optimal LPs; else cancel). Absent: stop = cancel. */
  stop?(jobId: string): Promise<boolean> | boolean;
  onJobEvent(listener: (event: JobEvent) => void): () => void;
  readonly workers: number;
}

interface FairJobsOptions {
  /** Jobs of one session inside the dispatcher at once (default: the worker count, at least 1). */
  perSession?: number;
  /** Jobs one session may have waiting here (default 10,000). */
  maxQueuedPerSession?: number;
  /** Array entries (numbers, labels, edges) of one session's waiting requests (default 32M, ~256 MB). */
  maxQueuedEntriesPerSession?: number;
  /** Threads a session with a job inside the dispatcher leaves unclaimed for other sessions (default 0). */
  keepFree?: number;
}

interface FairJob {
  id: string;
  session: string;
  request: JobRequest;
  entries: number;
  /** Dispatcher id once admitted. */
  inner?: string;
  cancelled: boolean;
}

interface SessionQueue {
  waiting: FairJob[];
  inFlight: number;
  queuedEntries: number;
  /** When the session last had a job admitted (FairJobs' admission serial; 0: never). */
  lastAdmit: number;
}

/** Total array length inside a request (a cheap size estimate; arrays of primitives are not walked). */
function requestEntries(v: unknown, depth = 0): number {
  if (v === null || typeof v !== 'object' || depth > 8) return 0;
  if (Array.isArray(v)) {
    let n = v.length;
    if (v.length > 0 && typeof v[0] === 'object') for (const x of v) n += requestEntries(x, depth + 1);
    return n;
  }
  let n = 0;
  for (const x of Object.values(v as Record<string, unknown>)) n += requestEntries(x, depth + 1);
  return n;
}

export class FairJobs {
  private readonly backend: JobBackend;
  private readonly perSession: number;
  private readonly maxQueued: number;
  private readonly maxEntries: number;
  private readonly keepFree: number;
  /** Jobs inside the dispatcher, all sessions (closed ones too, until their jobs end). */
  private inside = 0;
  private admissions = 0;
  private readonly sessions = new Map<string, SessionQueue>();
  private readonly jobs = new Map<string, FairJob>();
  private readonly byInner = new Map<string, FairJob>();
  private readonly listeners = new Set<(e: JobEvent) => void>();
  private readonly unsubscribe: () => void;
  private seq = 0;

  constructor(backend: JobBackend, opts: FairJobsOptions = {}) {
    this.backend = backend;
    this.perSession = Math.max(1, Math.floor(opts.perSession ?? backend.workers ?? 1));
    this.maxQueued = opts.maxQueuedPerSession ?? 10_000;
    this.maxEntries = opts.maxQueuedEntriesPerSession ?? 32 * 2 ** 20;
    this.keepFree = Math.max(0, Math.floor(opts.keepFree ?? 0));
    this.unsubscribe = backend.onJobEvent((e) => this.onInner(e));
  }

  get workers(): number {
    return this.backend.workers;
  }

  dispose(): void {
    this.unsubscribe();
  }

  onJobEvent(listener: (e: JobEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Jobs of `session` waiting here (not yet in the dispatcher). */
  waiting(session: string): number {
    return this.sessions.get(session)?.waiting.length ?? 0;
  }

  /** Queue a validated request for `session`; resolves with the job id at once. */
  async submit(session: string, request: JobRequest): Promise<string> {
    let q = this.sessions.get(session);
    if (!q) this.sessions.set(session, (q = { waiting: [], inFlight: 0, queuedEntries: 0, lastAdmit: 0 }));
    const entries = requestEntries(request);
    const now = q.waiting.length === 0 && this.admissible(q);
    if (!now) {
      if (q.waiting.length >= this.maxQueued) {
        throw new ApiError({
          code: 'too-large',
          message: `this session already has ${q.waiting.length} jobs waiting (limit ${this.maxQueued}): wait for some to finish or cancel them`,
        });
      }
      if (q.queuedEntries + entries > this.maxEntries) {
        throw new ApiError({
          code: 'too-large',
          message: `the jobs waiting in this session already hold ${q.queuedEntries} array entries (limit ${this.maxEntries}): wait for some to finish or cancel them`,
        });
      }
    }
    const job: FairJob = { id: `job-${++this.seq}`, session, request, entries, cancelled: false };
    this.jobs.set(job.id, job);
    if (now) {
      await this.admit(job, q);
      this.emit({ kind: 'queued', jobId: job.id, type: request.type });
    } else {
      q.waiting.push(job);
      q.queuedEntries += entries;
      this.emit({ kind: 'queued', jobId: job.id, type: request.type });
    }
    return job.id;
  }

  async cancel(jobId: string): Promise<boolean> {
    const job = this.jobs.get(jobId);
    if (!job || job.cancelled) return job?.cancelled ?? false;
    if (job.inner !== undefined) return this.backend.cancel(job.inner);
    // still waiting here: it never reaches the dispatcher
    job.cancelled = true;
    const q = this.sessions.get(job.session);
    if (q) {
      const i = q.waiting.indexOf(job);
      if (i >= 0) q.waiting.splice(i, 1);
      q.queuedEntries -= job.entries;
    }
    this.jobs.delete(job.id);
    this.emit({ kind: 'error', jobId: job.id, error: { code: 'cancelled', message: 'job cancelled' }, elapsedMs: 0 });
    return true;
  }

  /** Stop a job keeping its best answer (Dispatcher.stop); a job still waiting here has none: it is cancelled. */
  async stop(jobId: string): Promise<boolean> {
    const job = this.jobs.get(jobId);
    if (!job || job.cancelled) return job?.cancelled ?? false;
    if (job.inner !== undefined)
      return this.backend.stop ? this.backend.stop(job.inner) : this.backend.cancel(job.inner);
    return this.cancel(jobId);
  }

  /** Forget a session: its waiting jobs are dropped, its running jobs cancelled. */
  closeSession(session: string): void {
    const q = this.sessions.get(session);
    if (!q) return;
    this.sessions.delete(session);
    for (const job of q.waiting) {
      job.cancelled = true;
      this.jobs.delete(job.id);
    }
    q.waiting.length = 0;
    for (const job of [...this.jobs.values()]) {
      if (job.session === session && job.inner !== undefined) void this.backend.cancel(job.inner);
    }
  }

  /** Whether `q` may have one more job inside the dispatcher now. */
  private admissible(q: SessionQueue): boolean {
    if (q.inFlight >= this.perSession) return false;
    return this.keepFree === 0 || q.inFlight === 0 || this.inside < this.backend.workers - this.keepFree;
  }

  private async admit(job: FairJob, q: SessionQueue): Promise<void> {
    q.inFlight++;
    this.inside++;
    q.lastAdmit = ++this.admissions;
    try {
      job.inner = await this.backend.submit(job.request);
    } catch (e) {
      q.inFlight--;
      this.inside--;
      this.jobs.delete(job.id);
      throw e;
    }
    this.byInner.set(job.inner, job);
  }

  private onInner(e: JobEvent): void {
    const job = this.byInner.get(e.jobId);
    if (!job) return;
    if (e.kind === 'queued') return; // sent from here, under this layer's id
    this.emit({ ...e, jobId: job.id } as JobEvent);
    if (e.kind === 'result' || e.kind === 'error') {
      this.byInner.delete(e.jobId);
      this.jobs.delete(job.id);
      this.inside--;
      const q = this.sessions.get(job.session);
      if (q) q.inFlight--;
      this.pump();
    }
  }

  /** The waiting session to serve next: fewest jobs inside, then served longest ago; null when none may be admitted. */
  private nextSession(): SessionQueue | null {
    let best: SessionQueue | null = null;
    for (const q of this.sessions.values()) {
      if (q.waiting.length === 0 || !this.admissible(q)) continue;
      if (!best || q.inFlight < best.inFlight || (q.inFlight === best.inFlight && q.lastAdmit < best.lastAdmit))
        best = q;
    }
    return best;
  }

  /** Admit waiting jobs, one at a time to the session next in turn, while any session has room. */
  private pump(): void {
    for (let q = this.nextSession(); q; q = this.nextSession()) {
      const next = q.waiting.shift()!;
      q.queuedEntries -= next.entries;
      this.admit(next, q).catch((e: unknown) => {
        this.emit({ kind: 'error', jobId: next.id, error: toJobError(e), elapsedMs: 0 });
        this.pump();
      });
    }
  }

  private emit(e: JobEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch {
        /* a faulty listener must not break the queue */
      }
    }
  }
}
