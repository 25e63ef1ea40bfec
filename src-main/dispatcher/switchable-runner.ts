/**
 * The app's JobRunner when its settings may switch it at run time (web mode
 * and the Electron main process): the local pool always exists; a queue
 * runner (src-main/queue/client.ts) may be put in front of it and taken away.
 *
 * Guarantees:
 * - A job runs, and is cancelled or stopped, on the runner it was submitted
 *   to: switching affects only jobs submitted afterwards.
 * - A runner switched away from is closed once its last job has ended (the
 *   local pool is closed only by close()).
 * - A job that names a kept channel (channelRef) runs on the local pool:
 *   the channels are the host's (./channel-store.ts).
 * - Events of every runner reach the listeners unchanged: the runners' job
 *   ids do not collide (the pool's are `job-N`, a queue client's
 *   `queue-C-N`, unique in the process).
 */
import type { JobEvent } from '../../src-shared/protocol/index';
import { JobRunnerBase, type JobRunner } from './job-runner';
import { namedChannelRefs } from './dispatcher';

interface Attached {
  runner: JobRunner;
  unsubscribe: () => void;
  jobs: Set<string>;
  retired: boolean;
}

export class SwitchableRunner extends JobRunnerBase implements JobRunner {
  private readonly attached = new Map<JobRunner, Attached>();
  private readonly owner = new Map<string, Attached>();
  private current: Attached;
  private readonly localAttached: Attached;
  private closed = false;

  constructor(readonly local: JobRunner) {
    super();
    this.localAttached = this.attach(local);
    this.current = this.localAttached;
  }

  /** Threads of the local pool (the app's default lpThreads and per-session fairness). */
  get threads(): number {
    return this.local.threads;
  }

  /** The runner new jobs go to. */
  get active(): JobRunner {
    return this.current.runner;
  }

  /** Jobs still running on runners switched away from. */
  get draining(): number {
    let n = 0;
    for (const a of this.attached.values()) if (a.retired) n += a.jobs.size;
    return n;
  }

  /** Send new jobs to `runner` (the local pool when null); the previous non-local runner closes after its last job. */
  use(runner: JobRunner | null): void {
    const next =
      runner === null || runner === this.local
        ? this.localAttached
        : (this.attached.get(runner) ?? this.attach(runner));
    if (next === this.current) return;
    const prev = this.current;
    this.current = next;
    next.retired = false;
    if (prev !== this.localAttached) {
      prev.retired = true;
      this.closeIfIdle(prev);
    }
  }

  async submit(request: unknown): Promise<string> {
    // a job naming a channel this host keeps runs on the local pool, which holds the channel (queue workers do not)
    const a = namedChannelRefs(request).length > 0 ? this.localAttached : this.current;
    const id = await a.runner.submit(request);
    // an event of this job may already have ended it (a kept channel's rows): then it is not tracked
    if (!this.ended.delete(id)) {
      a.jobs.add(id);
      this.owner.set(id, a);
    }
    return id;
  }

  async cancel(jobId: string): Promise<boolean> {
    const a = this.owner.get(jobId);
    return a ? a.runner.cancel(jobId) : false;
  }

  async stop(jobId: string): Promise<boolean> {
    const a = this.owner.get(jobId);
    return a ? a.runner.stop(jobId) : false;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const all = [...this.attached.values()];
    for (const a of all) a.unsubscribe();
    this.attached.clear();
    await Promise.allSettled(all.map((a) => a.runner.close()));
  }

  /** Ids of jobs that ended before submit() returned (bounded: cleared as submit() sees them). */
  private readonly ended = new Set<string>();

  private attach(runner: JobRunner): Attached {
    const a: Attached = { runner, jobs: new Set(), retired: false, unsubscribe: () => undefined };
    a.unsubscribe = runner.onJobEvent((e) => this.onEvent(a, e));
    this.attached.set(runner, a);
    return a;
  }

  private onEvent(a: Attached, e: JobEvent): void {
    if (e.kind === 'result' || e.kind === 'error') {
      if (a.jobs.delete(e.jobId)) this.owner.delete(e.jobId);
      else if (this.ended.size < 10_000) this.ended.add(e.jobId);
    }
    this.deliver(e);
    if (a.retired) this.closeIfIdle(a);
  }

  private closeIfIdle(a: Attached): void {
    if (!a.retired || a.jobs.size > 0 || !this.attached.has(a.runner)) return;
    a.unsubscribe();
    this.attached.delete(a.runner);
    void a.runner.close().catch(() => undefined);
  }
}
