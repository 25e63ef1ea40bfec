/**
 * What a job handler gets besides its request: a cancellation signal that
 * the engine's long loops poll, and a progress reporter.
 */
import { MechError } from '../errors';

export interface JobContext {
  /** Aborted when the job is cancelled; long loops call checkCancelled(signal). */
  signal: AbortSignal;
  /** Report progress (fraction 0..1 or null when unknown). Cheap; rate-limited by the caller. */
  progress(fraction: number | null, message: string): void;
}

/** Throw MechError('cancelled') when the signal is aborted. */
export function checkCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new MechError('cancelled', 'job cancelled');
}

/** A context that never cancels and ignores progress (for direct calls and tests). */
export function silentContext(): JobContext {
  return { signal: new AbortController().signal, progress: () => undefined };
}
