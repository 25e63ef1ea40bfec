/**
 * Cancellation, one way for the whole engine: long loops poll the job's
 * AbortSignal (worker-entry.ts makes its `aborted` follow the dispatcher's
 * shared flag, so a synchronous loop sees a cancel without the event loop
 * running) and stop with MechError 'cancelled'. Guarantee: after the signal
 * is aborted, the next poll throws; nothing is returned as if complete.
 */
import { MechError } from '../../src-shared/errors';

/** The error a cancelled computation ends with; `message` says what stopped ('remap cancelled'). */
export function cancelledError(message = 'job cancelled'): MechError {
  return new MechError('cancelled', message);
}

/** Throw MechError('cancelled', message) when the signal is aborted; a missing signal never cancels. */
export function checkCancelled(signal: AbortSignal | undefined, message = 'job cancelled'): void {
  if (signal?.aborted) throw cancelledError(message);
}
