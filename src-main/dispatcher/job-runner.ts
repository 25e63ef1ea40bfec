/**
 * What runs protocol jobs for the CLI, the web host and the Electron main
 * process: the local piscina pool (Dispatcher, the default) or a Redis/BullMQ
 * queue served by `mechstudio worker` processes (src-main/queue/client.ts).
 * Project runs, exports and the app's jobs only see this interface, so a
 * project run writes the same files whichever runner computed its items.
 */
import { runJob, type RunJobOptions, type JobEvent, type JobResult } from '../../src-shared/protocol/index';

/**
 * onProgress, onSubmitted, signal (cancel) and stopSignal (stop: an optimal LP resolves with its best mechanism so
 * far).
 */
export type RunOptions = RunJobOptions;

export interface JobRunner {
  /** How many jobs run at once (threads of the pool; connected queue workers' capacity is not known up front). */
  readonly threads: number;
  /** Validate and start a job; resolves with its id, rejects with ApiError('invalid-input') for a malformed request. */
  submit(request: unknown): Promise<string>;
  /** Cancel a job; resolves true if it was running or queued. */
  cancel(jobId: string): Promise<boolean>;
  /**
   * Stop a job: a running optimal LP ends with its best private mechanism and certified gap; other jobs are cancelled.
   */
  stop(jobId: string): Promise<boolean>;
  /** Every job's events; returns an unsubscribe function. */
  onJobEvent(listener: (e: JobEvent) => void): () => void;
  /**
   * Submit and await the result (rejects with ApiError); aborting `signal`
   * cancels. Every runner implements it as runJob(this, ...) (src-shared/protocol/api.ts). A mechanism or capacity
   * request with `out` gets its channel CSV written at `out` (result.csvPath = out), as the local worker writes it.
   */
  run(request: unknown, options?: RunOptions): Promise<JobResult>;
  /** Cancel what is still running and release the pool or connections. */
  close(): Promise<void>;
}

/**
 * What every runner shares: the listeners of its job events (a faulty
 * listener never breaks the runner or the others) and run() as the one
 * submit-and-await (runJob).
 */
export abstract class JobRunnerBase implements JobRunner {
  abstract readonly threads: number;
  abstract submit(request: unknown): Promise<string>;
  abstract cancel(jobId: string): Promise<boolean>;
  abstract stop(jobId: string): Promise<boolean>;
  abstract close(): Promise<void>;
  private readonly listeners = new Set<(e: JobEvent) => void>();

  onJobEvent(listener: (e: JobEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  run(request: unknown, options: RunOptions = {}): Promise<JobResult> {
    return runJob(this, request, options);
  }

  /** Deliver an event to every listener. */
  protected deliver(e: JobEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch {
        // a faulty listener must not break the runner or other listeners
      }
    }
  }
}
