import type { Worker } from 'node:worker_threads';
import { type WorkerModule, workerModule as findWorkerModule, startWorker } from '../../base/worker-module';
import { MechError, messageOf } from '../../../src-shared/errors';
import { type LpOptions, checkCancelled } from '../solver/lp-options';
import { type PricingOutcome, type PricingRows, groupThread, outputGroup } from './pricing';
import { ExactPricings, type OutputPricings, type PricingSpec, openOutputPricings } from './output-pricings';
import { type PackedCertificates, unpackCertificates } from './pricing-certificate';

/**
 * One pricing round: c column-major (c[w*n + x]), lam the pricing duals; the round ends early at the deadline
 * (performance.now() ms) or when shouldStop says so; retryTolerance as in PricingModel.solve. With `only`, just
 * the outputs w with only[w] non-zero are priced (partial pricing).
 */
export interface PricingRequest {
  c: Float64Array;
  lam: Float64Array;
  deadline: number;
  shouldStop?: () => boolean;
  retryTolerance?: number;
  only?: Uint8Array;
}

export type { PricingSpec };

/**
 * outcomes[w] undefined for outputs not priced; complete says that all requested outputs were (no deadline or stop came
 * first).
 */
export interface PricingRound {
  complete: boolean;
  outcomes: (PricingOutcome | undefined)[];
}

/** A round's outcomes as typed arrays for a message or a frame. */
interface PackedRound {
  /** done[w] = 1 when output w was priced. */
  done: Uint8Array<ArrayBuffer>;
  objective: Float64Array<ArrayBuffer>;
  safe: Float64Array<ArrayBuffer>;
  iterations: Float64Array<ArrayBuffer>;
  /** The priced outputs' columns, n entries each, in output order. */
  r: Float64Array<ArrayBuffer>;
}

/** Pack the first m outcomes of a round (m: the number of outputs, the round's length unless told). */
export function packRound(round: PricingRound, n: number, m = round.outcomes.length): PackedRound {
  const done = new Uint8Array(m);
  const objective = new Float64Array(m);
  const safe = new Float64Array(m);
  const iterations = new Float64Array(m);
  let count = 0;
  for (let w = 0; w < m; w++) if (round.outcomes[w]) count++;
  const r = new Float64Array(count * n);
  let k = 0;
  for (let w = 0; w < m; w++) {
    const o = round.outcomes[w];
    if (!o) continue;
    done[w] = 1;
    objective[w] = o.objective;
    safe[w] = o.safeBound;
    iterations[w] = o.iterations;
    r.set(o.r, k++ * n);
  }
  return { done, objective, safe, iterations, r };
}

/**
 * The pricing LPs of one decomposition round, min (c_w - lambda) . r over
 * P_R for every output w, are independent: a PricingEngine solves them on
 * this thread (LocalPricing) or on several worker threads (ThreadedPricing:
 * one HiGHS instance and one copy of the pricing model per thread, outputs
 * dealt round-robin, each output always on the same thread so it keeps its
 * warm-start basis). Both return the same kind of outcome per output; the
 * round is incomplete (no bound) when the deadline or a stop came first.
 */
export interface PricingEngine {
  readonly threads: number;
  price(request: PricingRequest): Promise<PricingRound>;
  /**
   * Append rows to the models of every output, or only to those of one group of outputs (lazy rows: see PricingGroups).
   */
  addRows(rows: PricingRows, group?: number): Promise<void>;
  /**
   * Warm starts for the outputs' first exact pricing solves (a private channel's columns, one per output); engines
   * without it (a job queue's) start those solves cold.
   */
  warm?(columns: readonly { w: number; r: Float64Array }[]): Promise<void>;
  /** Rows of the largest pricing model. */
  readonly rows: number;
  readonly coldRetries: number;
  readonly failures: number;
  /** Machines (a job queue's workers) that have priced for this engine; undefined when it prices on this machine. */
  readonly workers?: number;
  /** Whether every outcome is the exact pricing over the whole column polytope (a column in P, no rows to add). */
  readonly exact?: boolean;
  dispose(): Promise<void>;
}

export class LocalPricing implements PricingEngine {
  readonly threads = 1;
  private readonly v: Float64Array;
  readonly exact: boolean;
  private constructor(
    private readonly model: OutputPricings,
    private readonly n: number,
    private readonly m: number,
    private readonly options: LpOptions | undefined,
    private readonly what: string,
  ) {
    this.v = new Float64Array(n);
    this.exact = model instanceof ExactPricings;
  }

  static async open(spec: PricingSpec): Promise<LocalPricing> {
    return new LocalPricing(await openOutputPricings(spec, () => true), spec.n, spec.m, spec.options, spec.what);
  }

  async price({ c, lam, deadline, shouldStop, retryTolerance = 0, only }: PricingRequest): Promise<PricingRound> {
    const { n, m, v } = this;
    const outcomes: (PricingOutcome | undefined)[] = new Array(m);
    for (let w = 0; w < m; w++) {
      if (only && !only[w]) continue;
      if ((w & 15) === 0) checkCancelled(this.options, `solving ${this.what}`);
      if (performance.now() > deadline || shouldStop?.()) return { complete: false, outcomes };
      for (let x = 0; x < n; x++) v[x] = c[w * n + x]! - lam[x]!;
      const out = this.model.solveUntil(w, v, retryTolerance, { deadline, shouldStop });
      if (!out) return { complete: false, outcomes };
      outcomes[w] = out;
    }
    return { complete: true, outcomes };
  }

  async addRows(rows: PricingRows, group?: number): Promise<void> {
    this.model.addRows(rows, group);
  }
  async warm(columns: readonly { w: number; r: Float64Array }[]): Promise<void> {
    for (const { w, r } of columns) this.model.warm?.(w, r);
  }
  get rows(): number {
    return this.model.rows;
  }
  get coldRetries(): number {
    return this.model.coldRetries;
  }
  get failures(): number {
    return this.model.failures;
  }
  async dispose(): Promise<void> {
    this.model.dispose();
  }
}

/** The pricing worker module next to this one (src-worker/worker-module.ts), or null. */
const workerModule = (): WorkerModule | null =>
  findWorkerModule(new URL('./pricing-worker.ts', import.meta.url), import.meta.url);

/** Whether threaded pricing can start here (the worker module is found). */
export function threadedPricingAvailable(): boolean {
  return workerModule() !== null;
}

interface Reply {
  type: string;
  code?: string;
  message?: string;
  done?: number;
  objective?: Float64Array;
  safeBound?: Float64Array;
  r?: Float64Array;
  cert?: PackedCertificates;
  iterations?: number;
  coldRetries?: number;
  failures?: number;
}

class PricingThread {
  private pending: { resolve: (r: Reply) => void; reject: (e: unknown) => void } | null = null;
  constructor(readonly worker: Worker) {
    worker.on('message', (r: Reply) => {
      const p = this.pending;
      this.pending = null;
      if (!p) return;
      if (r.type === 'error')
        p.reject(new MechError((r.code ?? 'internal') as 'internal', r.message ?? 'pricing thread failed'));
      else p.resolve(r);
    });
    worker.on('error', (e) => {
      const p = this.pending;
      this.pending = null;
      p?.reject(new MechError('internal', `a pricing thread failed: ${messageOf(e)}`));
    });
  }
  call(msg: unknown, transfer: ArrayBuffer[] = []): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage(msg, transfer);
    });
  }
}

export class ThreadedPricing implements PricingEngine {
  /** Rows every model holds (seed and rows added to all), and the rows added to each group's model alone. */
  private baseRows: number;
  private readonly groupRows = new Map<number, number>();
  private cold: number[];
  private fails: number[];
  exact = false;
  private constructor(
    private readonly pool: PricingThread[],
    private readonly n: number,
    private readonly m: number,
    rows: number,
    private readonly groupSize: number,
    private readonly options: LpOptions | undefined,
    private readonly what: string,
  ) {
    this.baseRows = rows;
    this.cold = new Array(pool.length).fill(0);
    this.fails = new Array(pool.length).fill(0);
  }

  get threads(): number {
    return this.pool.length;
  }

  /**
   * The thread that prices output w: the one holding w's group (groupThread), or, when every thread holds every
   * group, output w % threads. Either way an output stays on one thread (its warm-start basis).
   */
  private threadOf(w: number): number {
    const T = this.pool.length;
    return groupThread(outputGroup(w, this.groupSize), this.m, this.groupSize, T) ?? w % T;
  }

  static async open(
    threads: number,
    { n, m, rows, what, options, form, groupSize = m, factors }: PricingSpec,
  ): Promise<ThreadedPricing> {
    const mod = workerModule();
    if (!mod) throw new MechError('internal', `${what}: the pricing worker module is not available`);
    const pool: PricingThread[] = [];
    try {
      for (let t = 0; t < threads; t++) pool.push(new PricingThread(startWorker(mod, import.meta.url)));
      await Promise.all(
        pool.map((p, t) =>
          p.call({
            type: 'open',
            n,
            m,
            rows,
            what,
            form,
            groupSize,
            factors,
            thread: t,
            threads,
            highsOptions: options?.highsOptions,
            cancelFlag: options?.cancelFlag,
          }),
        ),
      );
    } catch (e) {
      await Promise.all(pool.map((p) => p.worker.terminate()));
      throw e;
    }
    const engine = new ThreadedPricing(
      pool,
      n,
      m,
      factors ? 0 : rows.from.length,
      factors ? m : groupSize,
      options,
      what,
    );
    engine.exact = factors !== undefined;
    return engine;
  }

  async price({ c, lam, deadline, shouldStop, retryTolerance = 0, only }: PricingRequest): Promise<PricingRound> {
    checkCancelled(this.options, `solving ${this.what}`);
    const { n, m } = this;
    const stopFlag = new Int32Array(new SharedArrayBuffer(4));
    // The deadline, a stop, or a cancellation ends the round in every thread at its next output.
    const poll = (): void => {
      if (performance.now() > deadline || shouldStop?.() || this.options?.signal?.aborted)
        Atomics.store(stopFlag, 0, 1);
    };
    const timer = setInterval(poll, 50);
    try {
      const jobs = this.pool.map((p, t) => {
        const outs: number[] = [];
        for (let w = 0; w < m; w++) if (this.threadOf(w) === t && (!only || only[w])) outs.push(w);
        const v = new Float64Array(outs.length * n);
        for (let i = 0; i < outs.length; i++) {
          const w = outs[i]!;
          for (let x = 0; x < n; x++) v[i * n + x] = c[w * n + x]! - lam[x]!;
        }
        return p
          .call({ type: 'price', outputs: Int32Array.from(outs), v, stopFlag, retryTolerance }, [v.buffer])
          .then((r) => ({ outs, r, t }));
      });
      const replies = await Promise.all(jobs);
      const outcomes: (PricingOutcome | undefined)[] = new Array(m);
      let complete = true;
      for (const { outs, r, t } of replies) {
        const done = r.done!;
        if (done < outs.length) complete = false;
        const certs = r.cert ? unpackCertificates(r.cert) : [];
        for (let i = 0; i < done; i++) {
          const certificate = typeof certs === 'string' ? undefined : certs[i];
          outcomes[outs[i]!] = {
            objective: r.objective![i]!,
            safeBound: r.safeBound![i]!,
            r: r.r!.slice(i * n, (i + 1) * n),
            iterations: i === 0 ? r.iterations! : 0,
            ...(certificate ? { certificate } : {}),
          };
        }
        this.cold[t] = r.coldRetries!;
        this.fails[t] = r.failures!;
      }
      checkCancelled(this.options, `solving ${this.what}`);
      return { complete, outcomes };
    } finally {
      clearInterval(timer);
    }
  }

  async warm(columns: readonly { w: number; r: Float64Array }[]): Promise<void> {
    const { n } = this;
    await Promise.all(
      this.pool.map((p, t) => {
        const mine = columns.filter((col) => this.threadOf(col.w) === t);
        const r = new Float64Array(mine.length * n);
        mine.forEach((col, i) => r.set(col.r, i * n));
        return p.call({ type: 'warm', outputs: Int32Array.from(mine, (col) => col.w), r }, [r.buffer]);
      }),
    );
  }

  async addRows(rows: PricingRows, group?: number): Promise<void> {
    const k = rows.from.length;
    if (k === 0) return;
    if (group === undefined) {
      await Promise.all(this.pool.map((p) => p.call({ type: 'addRows', rows })));
      this.baseRows += k;
    } else {
      const t = groupThread(group, this.m, this.groupSize, this.pool.length);
      const to = t === undefined ? this.pool : [this.pool[t]!];
      await Promise.all(to.map((p) => p.call({ type: 'addRows', rows, group })));
      this.groupRows.set(group, (this.groupRows.get(group) ?? 0) + k);
    }
  }
  get rows(): number {
    let extra = 0;
    for (const r of this.groupRows.values()) extra = Math.max(extra, r);
    return this.baseRows + extra;
  }
  get coldRetries(): number {
    return this.cold.reduce((a, b) => a + b, 0);
  }
  get failures(): number {
    return this.fails.reduce((a, b) => a + b, 0);
  }
  async dispose(): Promise<void> {
    await Promise.all(
      this.pool.map(async (p) => {
        try {
          await Promise.race([p.call({ type: 'close' }), new Promise((r) => setTimeout(r, 1000))]);
        } catch {
          /* the thread is going anyway */
        }
        await p.worker.terminate();
      }),
    );
  }
}

/** How a decomposition opens its pricing engine: openPricing below, or a host's (DecompositionOptions.pricing). */
export type PricingFactory = (threads: number, spec: PricingSpec) => Promise<PricingEngine>;

/** Threaded pricing when threads > 1 and the worker module is available, else this thread. */
export async function openPricing(threads: number, spec: PricingSpec): Promise<PricingEngine> {
  if (threads > 1 && spec.m > 1 && workerModule()) return ThreadedPricing.open(Math.min(threads, spec.m), spec);
  return LocalPricing.open(spec);
}
