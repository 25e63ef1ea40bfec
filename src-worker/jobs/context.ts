/**
 * What a job handler gets besides its request: a cancellation signal that
 * the engine's long loops poll, and a progress reporter.
 */
import type { LpSample } from '../../src-shared/protocol/index';
import type { RowSource } from '../mechanism/channel';
import type { KeptChannel } from './kept-channel';
import type { PricingFactory } from '../lp/pricing/pricing-pool';

/** Values of a job's shared flag (Int32Array(1) on a SharedArrayBuffer, set by the dispatcher). */
export const FLAG_CANCEL = 1;
/** Stop with the best answer so far: an optimal LP returns its best private mechanism and certified gap. */
export const FLAG_STOP = 2;

export interface JobContext {
  /** Aborted when the job is cancelled; long loops call checkCancelled(signal). */
  signal: AbortSignal;
  /**
   * Report progress (fraction 0..1 or null when unknown), with a typed LP sample on LP rounds. Cheap; rate-limited by
   * the caller.
   */
  progress(fraction: number | null, message: string, lp?: LpSample): void;
  /**
   * The job's shared flag: non-zero asks an optimal LP to stop and return its
   * best mechanism so far (FLAG_STOP; FLAG_CANCEL also aborts `signal`).
   * Absent: the job cannot be stopped with a result.
   */
  stopFlag?: Int32Array;
  /**
   * The app host keeps this job's channel (a mechanism job): called once with the final channel (./kept-channel.ts).
   */
  keep?: (channel: RowSource) => void;
  /** Channels the host kept that this job's request names by channelRef (passed with the task). */
  keptChannel?: (ref: string) => KeptChannel | undefined;
  /**
   * Where an optimal LP's pricing rounds run when not on this machine (a job queue's workers: the host's
   * src-main/queue/pricing-master.ts). Only for jobs run on the host's own thread (a function does not cross threads).
   */
  pricing?: PricingFactory;
  /**
   * Secrets x outputs from which an optimal LP prices with `pricing` (default 0: every one; smaller LPs keep this
   * machine's threads and shortcuts).
   */
  pricingMinVariables?: number;
}

/** The engine's one cancellation check (numeric/cancel.ts), re-exported for the handlers that hold a JobContext. */
export { checkCancelled } from '../numeric/cancel';

/** A context that never cancels and ignores progress (for direct calls and tests). */
export function silentContext(): JobContext {
  return { signal: new AbortController().signal, progress: () => undefined };
}
