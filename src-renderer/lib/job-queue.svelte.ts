/**
 * The jobs panel's list: every job the page submits (runJob, with one
 * subscription to the host's job events) and the host's other work shown
 * while it runs, with Cancel and Stop. Rows keep their elapsed time ticking.
 */
import {
  compareBuildsLp,
  runJob,
  type ApiError,
  type JobError,
  type JobRequest,
  type JobResult,
  type MechStudioApi,
  type RowsResult,
} from '../../src-shared/protocol/index';
import { applyJobEvent, type JobView } from './job-view';
import { messageOf } from '../../src-shared/errors';

/** Most rows the panel keeps (the oldest go). */
export const MAX_JOB_ROWS = 30;

export class JobQueue {
  jobs = $state<JobView[]>([]);
  private readonly api: MechStudioApi;
  private readonly tick: ReturnType<typeof setInterval>;

  constructor(api: MechStudioApi) {
    this.api = api;
    api.onJobEvent((e) => {
      const j = this.jobs.find((x) => x.jobId === e.jobId);
      if (j) applyJobEvent(j, e);
    });
    this.tick = setInterval(() => {
      const now = Date.now();
      for (const j of this.jobs) if (j.status === 'running' || j.status === 'queued') j.elapsedMs = now - j.started;
    }, 200);
  }

  dispose(): void {
    clearInterval(this.tick);
  }

  /** A new row at the top of the panel; the row as the panel holds it. */
  private track(view: JobView): JobView {
    this.jobs.unshift(view);
    // a view's running rows do not count: scrolling must not push the user's own jobs out
    const counts = (j: JobView): boolean => !(j.transient && (j.status === 'running' || j.status === 'queued'));
    let over = this.jobs.filter(counts).length - MAX_JOB_ROWS;
    for (let i = this.jobs.length - 1; over > 0 && i > 0; i--) {
      if (counts(this.jobs[i]!)) {
        this.jobs.splice(i, 1);
        over--;
      }
    }
    return this.jobs[0]!;
  }

  /** Another project is open: the finished rows go, the running ones stay. */
  keepLive(): void {
    this.jobs = this.jobs.filter((j) => j.status === 'running' || j.status === 'queued');
  }

  /** A transient row leaves the panel (its view has the answer, or cancelled it). */
  private untrack(view: JobView): void {
    const i = this.jobs.indexOf(view);
    if (i >= 0) this.jobs.splice(i, 1);
  }

  /**
   * Submit a job, track it in the jobs panel, resolve with its result. A `transient` job (one a view asks for
   * by itself) is a row only while it runs, and after that only when it failed.
   */
  run(request: JobRequest, label: string, onId?: (id: string) => void, transient = false): Promise<JobResult> {
    const view: JobView = {
      jobId: null,
      label,
      type: request.type,
      started: Date.now(),
      elapsedMs: 0,
      fraction: null,
      message: 'queued',
      status: 'queued',
    };
    if (
      (request.type === 'mechanism' && request.kind === 'optimal') ||
      (request.type === 'compare' && compareBuildsLp(request))
    )
      view.stoppable = true;
    let tracked = view;
    let settled = false;
    let shown = false;
    const show = (): void => {
      tracked = this.track(view);
      shown = true;
    };
    if (!transient) show();
    else {
      view.transient = true;
      // Views ask from inside their effects and templates: the row joins the panel a microtask later, outside
      // them, so that the panel's list is neither read (a dependency: every row change would ask again) nor
      // written (an unsafe mutation) there.
      queueMicrotask(() => {
        if (!settled) show();
      });
    }
    // the one submit-and-await (runJob): events that come before the id are replayed to it; the panel row is
    // settled here too, as the panel's own event handler may have seen them before it knew the id
    return runJob(this.api, request, {
      onSubmitted: (jobId) => {
        tracked.jobId = jobId;
        if (tracked.status === 'queued') tracked.status = 'running';
        onId?.(jobId);
      },
    }).then(
      (result) => {
        settled = true;
        if (tracked.status !== 'done') Object.assign(tracked, { status: 'done', fraction: 1, message: 'done' });
        if (transient) this.untrack(tracked);
        return result;
      },
      (err: ApiError) => {
        settled = true;
        const error: JobError = { code: err.code, message: err.message, ...(err.detail ? { detail: err.detail } : {}) };
        if (transient && error.code === 'cancelled') this.untrack(tracked);
        else {
          if (!shown) show();
          if (tracked.status === 'queued' || tracked.status === 'running') {
            const cancelled = error.code === 'cancelled';
            Object.assign(tracked, {
              status: cancelled ? 'cancelled' : 'error',
              message: cancelled ? 'cancelled' : error.message,
              error: error.message,
            });
          }
        }
        throw error;
      },
    );
  }

  /**
   * Work the host does for the page outside the job protocol (a CSV export, an apply): shown in the jobs panel
   * while it runs (without Cancel), so that nothing runs unseen. Resolves or rejects as `work` does.
   */
  async task<T>(label: string, type: string, work: () => Promise<T>): Promise<T> {
    const tracked = this.track({
      jobId: null,
      label,
      type,
      started: Date.now(),
      elapsedMs: 0,
      fraction: null,
      message: 'running',
      status: 'running',
    });
    try {
      const r = await work();
      Object.assign(tracked, { status: 'done', fraction: 1, message: 'done', elapsedMs: Date.now() - tracked.started });
      return r;
    } catch (e) {
      const message = messageOf(e);
      Object.assign(tracked, { status: 'error', message, error: message, elapsedMs: Date.now() - tracked.started });
      throw e;
    }
  }

  /** Rows or block means of a channel for a view (a `rows` job, a transient row of the jobs panel). */
  async fetchRows(request: Extract<JobRequest, { type: 'rows' }>): Promise<RowsResult> {
    return (await this.run(
      $state.snapshot(request) as typeof request,
      'rows for a view',
      undefined,
      true,
    )) as RowsResult;
  }

  async cancel(jobId: string): Promise<void> {
    await this.api.cancel(jobId);
  }

  /**
   * Stop a job keeping its best answer so far (an optimal LP: its best private mechanism and certified gap); other jobs
   * are cancelled.
   */
  async stop(jobId: string): Promise<void> {
    const j = this.jobs.find((x) => x.jobId === jobId);
    if (j) {
      j.stopping = true;
      j.message = j.stoppable ? 'stopping: keeping the best mechanism so far…' : j.message;
    }
    await this.api.stop(jobId);
  }
}
