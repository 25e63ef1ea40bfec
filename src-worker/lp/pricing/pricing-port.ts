/**
 * A pricing engine on another thread of the same process, over a
 * MessagePort: the job's thread (a pool worker, where the decomposition's
 * master runs) holds a PortPricing (portPricing), the host's thread serves
 * it with the host's own engine (servePricing, e.g. the queue's workers:
 * src-main/queue/pricing-master.ts). The host's engine is a function and
 * cannot cross threads; this way the master's solves never block the
 * host's event loop (a queue worker's locks and heartbeat). Messages:
 *   open  {id, threads, spec}                       -> {id, ok, threads, engineId, exact}
 *   price {id, lam, c (when new), ms, retry, only} -> {id, ok, done, objective, safe, iterations, r, rows, cold, fails,
 *   workers} stop  {engine}   (the round's deadline, a stop or a cancel on the job's side: no reply)
 *   add   {id, rows, group}                         -> {id, ok}
 *   close {id}                                      -> {id, ok}
 * Errors come back as {id, ok: false, code, message}. The costs c are sent
 * once per engine (they do not change between rounds), the duals each round.
 */
import type { MessagePort } from 'node:worker_threads';
import { MechError, messageOf } from '../../../src-shared/errors';
import { checkCancelled } from '../solver/lp-options';
import type { PricingOutcome, PricingRows } from './pricing';
import {
  packRound,
  type PricingEngine,
  type PricingFactory,
  type PricingRequest,
  type PricingRound,
  type PricingSpec,
} from './pricing-pool';

interface Reply {
  id: number;
  ok: boolean;
  code?: string;
  message?: string;
  threads?: number;
  engineId?: number;
  done?: Uint8Array;
  objective?: Float64Array;
  safe?: Float64Array;
  iterations?: Float64Array;
  r?: Float64Array;
  rows?: number;
  cold?: number;
  fails?: number;
  workers?: number;
  complete?: boolean;
  exact?: boolean;
}

/** The job's side: a PricingFactory whose engines run on the host's engine behind `port`. */
export function portPricing(port: MessagePort): PricingFactory {
  const pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: unknown) => void }>();
  let seq = 0;
  port.on('message', (r: Reply) => {
    const p = pending.get(r.id);
    if (!p) return;
    pending.delete(r.id);
    if (r.ok) p.resolve(r);
    else p.reject(new MechError((r.code ?? 'internal') as 'internal', r.message ?? 'pricing on the host failed'));
  });
  const call = (msg: Record<string, unknown>): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      pending.set(id, { resolve, reject });
      port.postMessage({ ...msg, id });
    });
  return async (threads, spec) => {
    const { n, m, rows, what, form, groupSize, factors } = spec;
    // The exact pricing factors are in shared memory: the host's engine reads the same copy.
    const opened = await call({
      t: 'open',
      threads,
      spec: { n, m, rows, what, form, groupSize, factors, highsOptions: spec.options?.highsOptions },
    });
    const engine = new PortPricing(
      call,
      (msg) => port.postMessage(msg),
      opened.engineId!,
      opened.threads ?? 1,
      spec,
      rows.from.length,
    );
    engine.exact = opened.exact === true;
    return engine;
  };
}

class PortPricing implements PricingEngine {
  private sentC: Float64Array | null = null;
  private rowCount: number;
  private cold = 0;
  private fails = 0;
  workers = 0;
  /** Whether the host's engine prices exactly (a job queue's fleet does when the LP has exact factors). */
  exact = false;
  constructor(
    private readonly call: (msg: Record<string, unknown>) => Promise<Reply>,
    private readonly post: (msg: Record<string, unknown>) => void,
    private readonly engine: number,
    readonly threads: number,
    private readonly spec: PricingSpec,
    rows: number,
  ) {
    this.rowCount = rows;
  }

  async price(req: PricingRequest): Promise<PricingRound> {
    const { n, m, options } = this.spec;
    checkCancelled(options, `solving ${this.spec.what}`);
    const c = this.sentC === req.c ? undefined : req.c;
    this.sentC = req.c;
    const left = req.deadline - performance.now();
    // The round's end on this side (deadline, stop, cancel) reaches the host's engine as a stop message.
    const timer = setInterval(() => {
      if (performance.now() > req.deadline || req.shouldStop?.() || options?.signal?.aborted)
        this.post({ t: 'stop', engine: this.engine });
    }, 50);
    let r: Reply;
    try {
      r = await this.call({
        t: 'price',
        engine: this.engine,
        lam: req.lam,
        c,
        ms: Number.isFinite(left) ? Math.max(0, left) : 1e12,
        retry: req.retryTolerance ?? 0,
        only: req.only,
      });
    } finally {
      clearInterval(timer);
    }
    checkCancelled(options, `solving ${this.spec.what}`);
    const outcomes: (PricingOutcome | undefined)[] = new Array(m);
    let at = 0;
    for (let w = 0; w < m; w++) {
      if (!r.done![w]) continue;
      outcomes[w] = {
        objective: r.objective![w]!,
        safeBound: r.safe![w]!,
        r: r.r!.slice(at * n, (at + 1) * n),
        iterations: r.iterations![w]!,
      };
      at++;
    }
    this.rowCount = r.rows ?? this.rowCount;
    this.cold = r.cold ?? this.cold;
    this.fails = r.fails ?? this.fails;
    this.workers = r.workers ?? this.workers;
    return { complete: r.complete === true, outcomes };
  }

  async addRows(rows: PricingRows, group?: number): Promise<void> {
    const r = await this.call({ t: 'add', engine: this.engine, rows, group });
    this.rowCount = r.rows ?? this.rowCount;
  }
  get rows(): number {
    return this.rowCount;
  }
  get coldRetries(): number {
    return this.cold;
  }
  get failures(): number {
    return this.fails;
  }
  async dispose(): Promise<void> {
    await this.call({ t: 'close', engine: this.engine }).catch(() => undefined);
  }
}

interface HostMsg {
  t: 'open' | 'price' | 'stop' | 'add' | 'close';
  id: number;
  engine: number;
  threads: number;
  spec: {
    n: number;
    m: number;
    rows: PricingRows;
    what: string;
    form?: PricingSpec['form'];
    groupSize?: number;
    factors?: Float64Array;
    highsOptions?: Record<string, string | number | boolean>;
  };
  lam: Float64Array;
  c?: Float64Array;
  ms: number;
  retry: number;
  only?: Uint8Array;
  rows: PricingRows;
  group?: number;
}

/** The host's side: serve the PortPricing engines of one job with `factory` until the port closes. */
export function servePricing(port: MessagePort, factory: PricingFactory): void {
  const engines = new Map<number, { engine: PricingEngine; c: Float64Array | null; stop: boolean }>();
  let nextEngine = 0;
  const reply = (id: number, r: Record<string, unknown>, transfer: ArrayBuffer[] = []): void =>
    port.postMessage({ id, ok: true, ...r }, transfer);
  const handle = async (msg: HostMsg): Promise<void> => {
    if (msg.t === 'open') {
      const { highsOptions, ...spec } = msg.spec;
      const engine = await factory(msg.threads, { ...spec, ...(highsOptions ? { options: { highsOptions } } : {}) });
      engines.set(++nextEngine, { engine, c: null, stop: false });
      return reply(msg.id, { threads: engine.threads, engineId: nextEngine, exact: engine.exact === true });
    }
    const e = engines.get(msg.engine);
    if (!e) throw new MechError('internal', `pricing engine ${msg.engine} is not open`);
    if (msg.t === 'stop') {
      e.stop = true;
    } else if (msg.t === 'price') {
      if (msg.c) e.c = msg.c;
      e.stop = false;
      const round = await e.engine.price({
        c: e.c!,
        lam: msg.lam,
        deadline: performance.now() + msg.ms,
        retryTolerance: msg.retry,
        shouldStop: () => e.stop,
        ...(msg.only ? { only: msg.only } : {}),
      });
      const { done, objective, safe, iterations, r } = packRound(round, msg.lam.length);
      const { rows, coldRetries: cold, failures: fails, workers } = e.engine;
      reply(msg.id, { done, objective, safe, iterations, r, rows, cold, fails, workers, complete: round.complete }, [
        r.buffer,
        objective.buffer,
        safe.buffer,
      ]);
    } else if (msg.t === 'add') {
      await e.engine.addRows(msg.rows, msg.group);
      reply(msg.id, { rows: e.engine.rows });
    } else {
      engines.delete(msg.engine);
      await e.engine.dispose();
      reply(msg.id, {});
    }
  };
  port.on('message', (msg: HostMsg) => {
    handle(msg).catch((err: unknown) =>
      port.postMessage({
        id: msg.id,
        ok: false,
        code: err instanceof MechError ? err.code : 'internal',
        message: messageOf(err),
      }),
    );
  });
  port.on('close', () => {
    for (const e of engines.values()) void e.engine.dispose().catch(() => undefined);
    engines.clear();
  });
}
