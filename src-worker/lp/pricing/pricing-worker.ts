/**
 * Worker thread of the threaded pricing (pricing-pool.ts): one HiGHS
 * runtime and the pricing models (PricingGroups) of the groups of outputs
 * this thread owns (group g on thread g % threads), so the pricing LPs of a
 * decomposition round run on several cores. Messages:
 *   { type: 'open', n, m, rows, groupSize, thread, threads, highsOptions, cancelFlag } -> { type: 'opened' } | { type:
 *   'error', ... } { type: 'price', outputs, lam (n), costs (|outputs| x n), stopFlag } -> { type: 'priced', results }
 *   | { type: 'error', ... } { type: 'addRows', rows, group? } (every model, or one group's) -> { type: 'added' } | {
 *   type: 'error', ... } { type: 'warm', outputs, r (|outputs| x n) } (first solves' warm starts) -> { type: 'warmed' }
 *   { type: 'gridBound', problem, thread, threads, stopFlag } (grid-bound.ts, no 'open' needed) -> { type:
 *   'gridBounded', part }
 * Results carry each output's objective, safe bound, iterations, the
 * solution and its certificate (transferred). A non-zero stopFlag[0] ends a 'price' early
 * (results for the outputs done so far, complete: false).
 */
import { parentPort } from 'node:worker_threads';
import { MechError, messageOf } from '../../../src-shared/errors';
import { type PricingForm, type PricingRows, groupThread } from './pricing';
import { type OutputPricings, openOutputPricings } from './output-pricings';
import { packCertificates } from './pricing-certificate';
import { type GridBoundProblem, gridBoundPart } from './grid-bound';
import type { PricingCertificate } from './pricing';

interface OpenMsg {
  type: 'open';
  n: number;
  m: number;
  rows: PricingRows;
  groupSize: number;
  thread: number;
  threads: number;
  form?: PricingForm;
  highsOptions?: Record<string, string | number | boolean>;
  cancelFlag?: Int32Array;
  what: string;
  /** Exact pricing factors (shared memory): every output priced exactly, the rows unused. */
  factors?: Float64Array;
}
interface PriceMsg {
  type: 'price';
  outputs: Int32Array;
  /** Pricing objectives v = c_w - lambda, |outputs| x n, row by row. */
  v: Float64Array;
  stopFlag: Int32Array;
  retryTolerance: number;
}
interface WarmMsg {
  type: 'warm';
  outputs: Int32Array;
  r: Float64Array;
}
interface GridBoundMsg {
  type: 'gridBound';
  problem: GridBoundProblem;
  thread: number;
  threads: number;
  /** [stop, outputs priced by every thread] */
  stopFlag: Int32Array;
}
interface AddMsg {
  type: 'addRows';
  rows: PricingRows;
  group?: number;
}

let model: OutputPricings | undefined;
let n = 0;

function fail(e: unknown): void {
  const code = e instanceof MechError ? e.code : 'internal';
  parentPort!.postMessage({ type: 'error', code, message: messageOf(e) });
}

type Msg = OpenMsg | PriceMsg | AddMsg | WarmMsg | GridBoundMsg | { type: 'close' };

parentPort?.on('message', async (msg: Msg) => {
  try {
    if (msg.type === 'open') {
      const { thread, threads } = msg;
      n = msg.n;
      model = await openOutputPricings(
        {
          n: msg.n,
          m: msg.m,
          rows: msg.rows,
          groupSize: msg.groupSize,
          what: msg.what,
          options: { cancelFlag: msg.cancelFlag, highsOptions: msg.highsOptions },
          ...(msg.form ? { form: msg.form } : {}),
          ...(msg.factors ? { factors: msg.factors } : {}),
        },
        (g) => (groupThread(g, msg.m, msg.groupSize, threads) ?? thread) === thread,
      );
      parentPort!.postMessage({ type: 'opened' });
    } else if (msg.type === 'price') {
      const k = msg.outputs.length;
      const objective = new Float64Array(k);
      const safeBound = new Float64Array(k);
      const r = new Float64Array(k * n);
      const certificates: (PricingCertificate | undefined)[] = [];
      let iterations = 0;
      let done = 0;
      for (let i = 0; i < k; i++) {
        if (Atomics.load(msg.stopFlag, 0) !== 0) break;
        // The round's stop flag (deadline, stop, cancellation) also ends a running solve at its next checkpoint.
        const out = model!.solveUntil(msg.outputs[i]!, msg.v.subarray(i * n, (i + 1) * n), msg.retryTolerance, {
          shouldStop: () => Atomics.load(msg.stopFlag, 0) !== 0,
        });
        if (!out) break;
        objective[i] = out.objective;
        safeBound[i] = out.safeBound;
        r.set(out.r, i * n);
        certificates.push(out.certificate);
        iterations += out.iterations;
        done++;
      }
      const cert = packCertificates(certificates);
      parentPort!.postMessage(
        {
          type: 'priced',
          done,
          objective,
          safeBound,
          r,
          cert,
          iterations,
          coldRetries: model!.coldRetries,
          failures: model!.failures,
        },
        [objective.buffer, safeBound.buffer, r.buffer],
      );
    } else if (msg.type === 'gridBound') {
      const flag = msg.stopFlag;
      const part = gridBoundPart(
        msg.problem,
        msg.thread,
        msg.threads,
        () => Atomics.load(flag, 0) !== 0,
        () => Atomics.add(flag, 1, 1),
      );
      parentPort!.postMessage({ type: 'gridBounded', part });
    } else if (msg.type === 'warm') {
      msg.outputs.forEach((w, i) => model!.warm?.(w, msg.r.slice(i * n, (i + 1) * n)));
      parentPort!.postMessage({ type: 'warmed' });
    } else if (msg.type === 'addRows') {
      model!.addRows(msg.rows, msg.group);
      parentPort!.postMessage({ type: 'added' });
    } else if (msg.type === 'close') {
      model?.dispose();
      model = undefined;
      parentPort!.postMessage({ type: 'closed' });
    }
  } catch (e) {
    fail(e);
  }
});
