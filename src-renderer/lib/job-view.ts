/** A job as the jobs panel shows it (lib/state.svelte.ts keeps the list, from the host's job events). */
import type { LpSample } from '../../src-shared/protocol/index';

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
  /** Typed LP rounds received so far (for the live convergence chart). */
  lp?: LpSample[];
}
