/** A job as the jobs panel shows it (lib/job-queue.svelte.ts keeps the list, from the host's job events). */
import type { JobEvent, LpSample } from '../../src-shared/protocol/index';

export interface JobView {
  jobId: string | null;
  label: string;
  type: string;
  started: number;
  elapsedMs: number;
  fraction: number | null;
  message: string;
  status: 'queued' | 'running' | 'done' | 'error' | 'cancelled';
  error?: string;
  /** An optimal LP: Stop keeps its best mechanism so far (other jobs only cancel). */
  stoppable?: boolean;
  /** The user pressed Stop (the job is finishing with its best answer). */
  stopping?: boolean;
  /**
   * Work a view asks for by itself (rows fetched while scrolling, the privacy-type explorer): a row while it is
   * queued or running, so that nothing runs unseen; it leaves the panel once the view has its answer or has
   * superseded it (cancelled), and stays only when it failed.
   */
  transient?: boolean;
  /** Typed LP rounds received so far (for the live convergence chart). */
  lp?: LpSample[];
}

/** Most live LP samples kept per job (older ones are thinned, the first kept). */
export const MAX_LIVE_LP_SAMPLES = 1000;

/** Follow one of the host's events about this job on its row: progress (and LP rounds), its result, or its error. */
export function applyJobEvent(j: JobView, e: JobEvent): void {
  if (e.kind === 'progress') {
    j.status = 'running';
    if (e.lp) {
      const lp = (j.lp ??= []);
      if (lp.length >= MAX_LIVE_LP_SAMPLES) j.lp = lp.filter((_, i) => i === 0 || i % 2 === 1);
      j.lp!.push(e.lp);
    }
    // An LP's bar never moves back: phase messages without a fraction keep the last one.
    j.fraction = j.lp?.length ? Math.max(j.fraction ?? 0, e.fraction ?? 0) : e.fraction;
    j.message = e.message;
  } else if (e.kind === 'result') {
    j.status = 'done';
    j.fraction = 1;
    j.elapsedMs = e.elapsedMs;
    j.message = 'done';
  } else if (e.kind === 'error') {
    j.status = e.error.code === 'cancelled' ? 'cancelled' : 'error';
    j.elapsedMs = e.elapsedMs;
    j.message = e.error.code === 'cancelled' ? 'cancelled' : e.error.message;
    j.error = e.error.message;
  }
}
