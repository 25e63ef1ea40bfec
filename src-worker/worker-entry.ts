/**
 * The piscina worker: one job per call. The request is validated again here
 * (the worker thread is a boundary), the handler runs with a cancellation
 * signal and a progress reporter, and every outcome, including errors, is
 * returned as a value (WorkerReply) so nothing is thrown across threads.
 *
 * Cancellation is visible to synchronous loops: the dispatcher flips a flag
 * in a SharedArrayBuffer, and the signal's `aborted` getter reads it with
 * Atomics, so an engine loop polling `signal.aborted` stops without the event
 * loop having to run. (If a loop never polls, the dispatcher terminates the
 * thread after a short grace period.)
 */
import type { MessagePort } from 'node:worker_threads';
import { cancelledError } from './numeric/cancel';
import { parseJobRequest, type WorkerReply, toJobError, type LpSample } from '../src-shared/protocol/index';
import { runJobRequest } from './jobs/run';
import { releaseHighsRuntimeIfLarge } from './lp/solver/highs-runtime';
import { FLAG_CANCEL } from './jobs/context';
import { withCarriedFiles, withConfinedReads } from './metric/read-text-file';
import { sharedChannel, type KeptChannel } from './jobs/kept-channel';
import type { PricingFactory } from './lp/pricing/pricing-pool';
import { portPricing } from './lp/pricing/pricing-port';

export interface WorkerTask {
  request: unknown;
  /** Progress port: the worker posts {fraction, message}. */
  port: MessagePort;
  /** Int32Array(1) over a SharedArrayBuffer; 1 = cancelled, 2 = stop with the best answer so far (optimal LPs). */
  cancelFlag: SharedArrayBuffer;
  /** Domain files the job carries (a queued job: path as named -> text); when present, no file is read from disk. */
  files?: Record<string, string>;
  /**
   * Web mode's workspace root: the job's file reads are checked on the descriptor to lie under it
   * (metric/read-text-file.ts).
   */
  readRoot?: string;
  /**
   * Keep the channel of this mechanism job: it comes back beside the reply, in shared memory (jobs/kept-channel.ts).
   */
  keep?: boolean;
  /** Channels the host keeps that the request names by channelRef (shared memory, read in place). */
  channels?: Record<string, KeptChannel>;
  /**
   * An optimal LP's pricing engine from the host (JobContext.pricing): only when the task runs on the host's thread.
   */
  pricing?: PricingFactory;
  /** The same through a port (a pool thread): the host serves the port with its engine (lp/pricing/pricing-port.ts). */
  pricingPort?: MessagePort;
  /** JobContext.pricingMinVariables. */
  pricingMinVariables?: number;
}

/** A worker's answer: the reply, and with `keep` the job's whole channel in shared memory. */
type WorkerTaskReply = WorkerReply & { kept?: KeptChannel };

/** A real AbortSignal whose aborted state also follows the shared flag. */
function sharedFlagSignal(buffer: SharedArrayBuffer): AbortSignal {
  const flag = new Int32Array(buffer);
  const controller = new AbortController();
  const signal = controller.signal;
  const protoAborted = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')!.get!;
  const sync = (): boolean => {
    if (Atomics.load(flag, 0) === FLAG_CANCEL && !protoAborted.call(signal)) controller.abort(cancelledError());
    return protoAborted.call(signal) as boolean;
  };
  Object.defineProperty(signal, 'aborted', { get: sync, configurable: true });
  Object.defineProperty(signal, 'throwIfAborted', {
    value: () => {
      if (sync()) throw cancelledError();
    },
    configurable: true,
  });
  return signal;
}

export default async function runTask(task: WorkerTask): Promise<WorkerTaskReply> {
  const { port } = task;
  try {
    port.postMessage({ started: true });
    const parsed = parseJobRequest(task.request);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    const signal = sharedFlagSignal(task.cancelFlag);
    let last = 0;
    let lastLp = 0;
    const progress = (fraction: number | null, message: string, lp?: LpSample): void => {
      const now = Date.now();
      // rate-limit: at most ~20 messages/s; LP rounds on their own clock, so the live chart keeps its points
      if (lp) {
        if (now - lastLp < 50) return;
        lastLp = now;
      } else if (now - last < 50 && fraction !== 1) return;
      last = now;
      const f = fraction === null || !Number.isFinite(fraction) ? null : Math.min(1, Math.max(0, fraction));
      port.postMessage({ fraction: f, message: String(message).slice(0, 500), ...(lp ? { lp } : {}) });
    };
    if (signal.aborted) return { ok: false, error: { code: 'cancelled', message: 'job cancelled' } };
    let kept: KeptChannel | undefined;
    const channels = task.channels;
    const ctx = {
      signal,
      progress,
      stopFlag: new Int32Array(task.cancelFlag),
      ...(task.keep ? { keep: (ch: Parameters<typeof sharedChannel>[0]) => void (kept = sharedChannel(ch)) } : {}),
      ...(task.pricing
        ? { pricing: task.pricing }
        : task.pricingPort
          ? { pricing: portPricing(task.pricingPort) }
          : {}),
      ...(task.pricingMinVariables !== undefined ? { pricingMinVariables: task.pricingMinVariables } : {}),
      ...(channels ? { keptChannel: (ref: string) => (Object.hasOwn(channels, ref) ? channels[ref] : undefined) } : {}),
    };
    const result = await withConfinedReads(task.readRoot, () =>
      withCarriedFiles(task.files, () => runJobRequest(parsed.value, ctx)),
    );
    return kept ? { ok: true, result, kept } : { ok: true, result };
  } catch (err) {
    return { ok: false, error: toJobError(err) };
  } finally {
    port.close();
    task.pricingPort?.close();
    // HiGHS' WebAssembly heap only grows: drop a runtime that a large LP
    // inflated, so this long-lived thread does not keep the memory.
    await releaseHighsRuntimeIfLarge();
  }
}
