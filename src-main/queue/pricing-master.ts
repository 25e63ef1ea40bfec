/**
 * Pricing rounds of an optimal LP on a job queue's workers. The master (the
 * decomposition, column-decomposition.ts) stays with the job; QueuePricing is
 * its PricingEngine (DecompositionOptions.pricing): the outputs are cut into
 * one slice per live worker of this version (whole groups of outputs when
 * there are enough, else pieces of one group: see slicesOf), each slice
 * opened once on its worker (pricing-service.ts) with the seed rows, and
 * each round sends every slice the duals (n doubles; its costs only the
 * first time) and gets back its outcomes. A slice stays on its worker while
 * that worker lives, so its warm bases are reused round after round.
 *
 * Faults:
 *  - a worker whose registration lapses (killed, crashed, lost network; it
 *    lapses stallSettings().lockMs after its last renewal) loses its
 *    slices: each is opened again on a live worker with every row added so
 *    far (the add log) and priced again; the round's other slices are kept;
 *  - Redis going away: after it is back every slice is opened again (frames
 *    in flight may be lost with a restarted Redis) and the round's pending
 *    slices are priced again; a Redis away for more than REDIS_LOST_MS fails
 *    the LP with one message;
 *  - workers of another version are refused with one line each, and the LP
 *    waits (with one line) while no worker of this version is there.
 * The outcomes are the ones LocalPricing would give for the same bases;
 * after a move a slice starts cold, which changes the path, not the optimum.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { MechError } from '../../src-shared/errors';
import {
  type PricingEngine,
  type PricingFactory,
  type PricingRequest,
  type PricingRound,
  type PricingSpec,
  type PricingOutcome,
  type PricingRows,
  DEFAULT_PRICING_FORM,
  checkCancelled,
} from '../../src-worker/index';
import type { QueueTarget } from './connection';
import {
  WORKER_KEY_PATTERN,
  decodeFrame,
  encodeFrame,
  inboxKey,
  need,
  pricingVersion,
  registrationSchema,
  replyKey,
  rowsArrays,
  workerKey,
  type Frame,
  type Registration,
} from './pricing-wire';

/** A Redis away this long fails the LP (as the job client fails its waiting items). */
export const REDIS_LOST_MS = 15_000;
/** How often the workers of pending slices are checked, and how long after Redis is back before they are (their registrations come back within a second). */
const LIVENESS_MS = 1000;
const RECONNECT_GRACE_MS = 2500;

/** A contiguous range of outputs [w0, w1) priced on one worker; it holds the groups [g0, g1). */
export interface Slice {
  w0: number;
  w1: number;
  g0: number;
  g1: number;
  /** Group size of the slice's own models: the LP's (whole groups) or w1 - w0 (a piece of one group: one model). */
  groupSize: number;
}

/**
 * One slice per worker: with at least as many groups as workers, contiguous runs of whole groups (each
 * group's lazy rows stay in one model); with fewer (one group of every output: all pairs in the model),
 * each group cut into pieces, every piece holding that group's model and pricing its own outputs.
 */
export function slicesOf(m: number, groupSize: number, workers: number): Slice[] {
  const G = Math.ceil(m / groupSize);
  const k = Math.max(1, Math.min(workers, m));
  const out: Slice[] = [];
  if (G >= k) {
    for (let i = 0; i < k; i++) {
      const g0 = Math.floor((i * G) / k);
      const g1 = Math.floor(((i + 1) * G) / k);
      out.push({ w0: g0 * groupSize, w1: Math.min(m, g1 * groupSize), g0, g1, groupSize });
    }
    return out;
  }
  for (let g = 0; g < G; g++) {
    const a = g * groupSize;
    const size = Math.min(m, a + groupSize) - a;
    const pieces = Math.min(size, Math.floor(k / G) + (g < k % G ? 1 : 0));
    for (let p = 0; p < pieces; p++) {
      const w0 = a + Math.floor((p * size) / pieces);
      const w1 = a + Math.floor(((p + 1) * size) / pieces);
      out.push({ w0, w1, g0: g, g1: g + 1, groupSize: w1 - w0 });
    }
  }
  return out;
}

/** The slice's own group of LP group g, or undefined when the slice does not hold g. */
function localGroup(s: Slice, g: number, groupSize: number): number | undefined {
  if (g < s.g0 || g >= s.g1) return undefined;
  return s.groupSize === groupSize ? g - s.g0 : 0;
}

export interface PricingFleetOptions {
  /** One line per event (workers refused, moves, waiting); default none. */
  log?: (line: string) => void;
  /** Called with the number of workers that have priced for the current LP, when it changes. */
  onWorkers?: (workers: number) => void;
  /** The version expected of workers (default pricingVersion()). */
  version?: string;
}

/** The queue's workers as a PricingFactory: one QueuePricing per decomposition. */
export class PricingFleet {
  readonly factory: PricingFactory;
  /** Frame bytes sent to workers and received from them (all LPs; the bench's bytes per round). */
  bytesSent = 0;
  bytesReceived = 0;
  /**
   * Rounds priced, their wall time on the master (price() called to returned) and the time the slowest slice of
   * each round spent pricing on its worker: the difference is what the queue costs (frames, Redis, waiting).
   */
  readonly rounds: { wallMs: number; workerMs: number }[] = [];
  readonly version: string;
  private readonly refused = new Set<string>();
  private constructor(
    readonly target: QueueTarget,
    readonly commands: Redis,
    readonly opts: PricingFleetOptions,
  ) {
    this.version = opts.version ?? pricingVersion();
    this.factory = (_threads, spec) => QueuePricing.open(this, spec);
  }

  static async connect(target: QueueTarget, opts: PricingFleetOptions = {}): Promise<PricingFleet> {
    const { Redis } = await import('ioredis');
    const commands = new Redis({ ...target.options, maxRetriesPerRequest: null });
    commands.on('error', () => undefined);
    return new PricingFleet(target, commands, opts);
  }

  log(line: string): void {
    this.opts.log?.(line);
  }

  /** Registered workers of this version (one line for each of another version, once). */
  async liveWorkers(): Promise<Registration[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await this.commands.scan(cursor, 'MATCH', WORKER_KEY_PATTERN, 'COUNT', 200);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    if (keys.length === 0) return [];
    const values = await this.commands.mget(...keys);
    const out: Registration[] = [];
    for (const v of values) {
      let r: Registration;
      try {
        r = registrationSchema.parse(JSON.parse(v ?? 'null'));
      } catch {
        continue;
      }
      if (r.version === this.version) out.push(r);
      else if (!this.refused.has(r.id)) {
        this.refused.add(r.id);
        this.log(`refused pricing worker ${r.host} (pid ${r.pid}): it runs ${r.version}, this LP ${this.version}; start it from the same version`);
      }
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async close(): Promise<void> {
    this.commands.disconnect();
  }
}

interface SliceState extends Slice {
  index: number;
  worker: Registration;
  session: string;
  /** The costs this session holds (sent with its first round). */
  cSent: Float64Array | null;
  /** Opened before Redis went away: open again before the next frame. */
  stale: boolean;
  cold: number;
  fails: number;
  /** Counts of this slice's earlier sessions (moved or reopened). */
  coldBefore: number;
  failsBefore: number;
  /** Workers on which this slice's pricing failed (an error frame): it is not opened there again. */
  failedOn: Set<string>;
}

/** How long to wait between checks while no worker of this version is registered. */
const WAIT_POLL_MS = 500;

export class QueuePricing implements PricingEngine {
  private readonly id = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly reply: string;
  private slices: SliceState[] = [];
  /** Rows added so far, in order: replayed into a slice opened again. */
  private readonly added: { rows: PricingRows; group?: number }[] = [];
  private readonly rowsOf: Map<number, number> = new Map();
  private baseRows: number;
  private round = 0;
  private sessions = 0;
  private readonly priced = new Set<string>();
  private downSince: number | null = null;
  private epoch = 0;
  private backAt = 0;
  private pop: Promise<[Buffer, Buffer] | null> | null = null;

  private constructor(
    private readonly fleet: PricingFleet,
    private readonly spec: PricingSpec,
    private readonly blocking: Redis,
  ) {
    this.reply = replyKey(this.id);
    this.baseRows = spec.rows.from.length;
    blocking.on('close', () => (this.downSince ??= Date.now()));
    blocking.on('ready', () => {
      if (this.downSince === null) return;
      this.downSince = null;
      this.epoch++;
      this.backAt = Date.now();
    });
  }

  static async open(fleet: PricingFleet, spec: PricingSpec): Promise<QueuePricing> {
    const { Redis } = await import('ioredis');
    const blocking = new Redis({ ...fleet.target.options, maxRetriesPerRequest: null });
    blocking.on('error', () => undefined);
    const q = new QueuePricing(fleet, spec, blocking);
    try {
      const workers = await q.waitForWorkers();
      q.slices = slicesOf(spec.m, spec.groupSize ?? spec.m, workers.length).map((s, index) => ({
        ...s,
        index,
        worker: workers[index]!,
        session: '',
        cSent: null,
        stale: false,
        cold: 0,
        fails: 0,
        coldBefore: 0,
        failsBefore: 0,
        failedOn: new Set(),
      }));
      for (const s of q.slices) await q.openSlice(s, s.worker);
    } catch (e) {
      await q.dispose();
      throw e;
    }
    return q;
  }

  get threads(): number {
    const seen = new Map(this.slices.map((s) => [s.worker.id, s.worker.threads]));
    let t = 0;
    for (const v of seen.values()) t += v;
    return Math.max(1, t);
  }

  private async waitForWorkers(): Promise<Registration[]> {
    let said = false;
    for (;;) {
      checkCancelled(this.spec.options?.signal, `LP cancelled while waiting for pricing workers of ${this.spec.what}`);
      const live = await this.fleet.liveWorkers();
      if (live.length > 0) return live;
      if (!said) {
        said = true;
        this.fleet.log(
          `no pricing worker of this version is connected to the queue at ${this.fleet.target.redacted} yet; the LP waits until one starts (mechstudio worker --queue URL)`,
        );
      }
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    }
  }

  private send(worker: Registration, head: Record<string, unknown>, arrays?: Parameters<typeof encodeFrame>[1]): void {
    const frame = encodeFrame(head, arrays);
    this.fleet.bytesSent += frame.length;
    this.fleet.commands.rpush(inboxKey(worker.id), frame).catch(() => undefined);
  }

  /** Open slice s on `worker` as a new session: the seed rows, then every row added since, in order. */
  private async openSlice(s: SliceState, worker: Registration): Promise<void> {
    s.coldBefore += s.cold;
    s.failsBefore += s.fails;
    s.cold = s.fails = 0;
    if (s.session) this.send(s.worker, { t: 'close', session: s.session });
    s.worker = worker;
    s.session = `${this.id}:${s.index}:${++this.sessions}`;
    s.cSent = null;
    s.stale = false;
    const gs = this.spec.groupSize ?? this.spec.m;
    this.send(
      worker,
      {
        t: 'open',
        v: this.fleet.version,
        session: s.session,
        reply: this.reply,
        n: this.spec.n,
        m: s.w1 - s.w0,
        groupSize: s.groupSize,
        form: this.spec.form ?? DEFAULT_PRICING_FORM,
        what: `${this.spec.what} (outputs ${s.w0 + 1}-${s.w1})`,
        ...(this.spec.options?.highsOptions ? { highsOptions: this.spec.options.highsOptions } : {}),
      },
      rowsArrays(this.spec.rows),
    );
    for (const a of this.added) this.sendRows(s, a.rows, a.group, gs);
  }

  private sendRows(s: SliceState, rows: PricingRows, group: number | undefined, gs: number): void {
    const local = group === undefined ? undefined : localGroup(s, group, gs);
    if (group !== undefined && local === undefined) return;
    this.send(s.worker, { t: 'add', session: s.session, ...(local !== undefined ? { group: local } : {}) }, rowsArrays(rows));
  }

  private sendPrice(s: SliceState, req: PricingRequest): void {
    const n = this.spec.n;
    const left = req.deadline - performance.now();
    const c = s.cSent === req.c ? undefined : req.c.subarray(s.w0 * n, s.w1 * n);
    s.cSent = req.c;
    this.send(
      s.worker,
      { t: 'price', session: s.session, round: this.round, ms: Number.isFinite(left) ? Math.max(0, left) : 1e12, retry: req.retryTolerance ?? 0 },
      { lam: req.lam, c, only: req.only?.subarray(s.w0, s.w1) },
    );
  }

  /**
   * A live worker for a slice whose worker is gone or failed it: the one holding the fewest slices among those
   * not in `exclude`; with `wait`, polls until one registers, else null when none is live now.
   */
  private async replacement(exclude: ReadonlySet<string>, wait = true): Promise<Registration | null> {
    for (;;) {
      checkCancelled(this.spec.options?.signal, `LP cancelled while pricing ${this.spec.what}`);
      const live = (await this.fleet.liveWorkers()).filter((w) => !exclude.has(w.id));
      if (live.length > 0) {
        const load = (w: Registration): number => this.slices.filter((s) => s.worker.id === w.id).length;
        return live.reduce((a, b) => (load(b) < load(a) ? b : a));
      }
      if (!wait) return null;
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    }
  }

  /**
   * A pricing error on a slice's worker (its solver failed, it ran out of memory, a bad frame): the error may be
   * that machine's, so the slice moves to another live worker, as when a worker stops answering; the LP fails,
   * with the worker's message, only when the slice has failed on every live worker.
   */
  private async afterError(s: SliceState, f: Frame, req: PricingRequest, stopping: boolean): Promise<boolean> {
    const message = `pricing worker ${s.worker.host} (pid ${s.worker.pid}): ${String(f.head.message)}`;
    s.failedOn.add(s.worker.id);
    const to = await this.replacement(s.failedOn, false);
    if (!to)
      throw new MechError(String(f.head.code ?? 'internal') as 'internal', `${message} (outputs ${s.w0 + 1}-${s.w1} failed on every live pricing worker)`);
    this.fleet.log(`${message}: outputs ${s.w0 + 1}-${s.w1} move to ${to.host} (pid ${to.pid})`);
    await this.openSlice(s, to);
    if (!stopping) this.sendPrice(s, req);
    return !stopping;
  }

  /** Slices among `pending` whose worker's registration has lapsed. */
  private async lapsed(pending: Set<SliceState>): Promise<SliceState[]> {
    const ids = [...new Set([...pending].map((s) => s.worker.id))];
    if (ids.length === 0) return [];
    const values = await this.fleet.commands.mget(...ids.map(workerKey));
    const gone = new Set(ids.filter((_, i) => values[i] === null));
    return [...pending].filter((s) => gone.has(s.worker.id));
  }

  private async move(s: SliceState, why: string): Promise<void> {
    const from = s.worker;
    const to = (await this.replacement(new Set([from.id])))!;
    this.fleet.log(`pricing worker ${from.host} (pid ${from.pid}) ${why}: outputs ${s.w0 + 1}-${s.w1} move to ${to.host} (pid ${to.pid})`);
    await this.openSlice(s, to);
  }

  /** The next reply frame, or null after about 200 ms without one (the pop in flight is kept for the next call). */
  private async nextFrame(): Promise<Frame | null> {
    // (a pop still in flight when the engine is disposed is rejected by the disconnect: nobody waits for it then)
    this.pop ??= this.blocking.blpopBuffer(this.reply, 0.2).catch(() => null);
    const got = await Promise.race([this.pop, new Promise<'wait'>((r) => setTimeout(() => r('wait'), 250))]);
    if (got === 'wait') return null;
    this.pop = null;
    if (!got) return null;
    this.fleet.bytesReceived += got[1].length;
    return decodeFrame(got[1]);
  }

  async price(req: PricingRequest): Promise<PricingRound> {
    checkCancelled(this.spec.options?.signal, `LP cancelled while solving ${this.spec.what}`);
    const t0 = performance.now();
    let slowest = 0;
    const { n, m } = this.spec;
    this.round++;
    const outcomes: (PricingOutcome | undefined)[] = new Array(m);
    let complete = true;
    const pending = new Set<SliceState>();
    for (const s of this.slices) {
      if (req.only && !req.only.subarray(s.w0, s.w1).some((x) => x !== 0)) continue;
      if (s.stale) await this.openSlice(s, s.worker);
      this.sendPrice(s, req);
      pending.add(s);
    }
    let stopping = false;
    let epoch = this.epoch;
    let checked = performance.now();
    while (pending.size > 0) {
      if (!stopping && (performance.now() > req.deadline || req.shouldStop?.() || this.spec.options?.signal?.aborted)) {
        stopping = true;
        complete = false;
        for (const s of pending) this.send(s.worker, { t: 'stop', session: s.session, round: this.round });
      }
      if (this.spec.options?.signal?.aborted) break;
      if (this.downSince !== null && Date.now() - this.downSince > REDIS_LOST_MS)
        throw new MechError(
          'internal',
          `lost Redis at ${this.fleet.target.redacted} for more than ${REDIS_LOST_MS / 1000} s while pricing ${this.spec.what}: the LP cannot go on (run it again when Redis is back, or without --queue)`,
        );
      if (epoch !== this.epoch && this.downSince === null) {
        // Redis came back: frames in flight may be gone with it; every slice is opened again before its next frame.
        epoch = this.epoch;
        for (const s of this.slices) s.stale = true;
        for (const s of pending) {
          await this.openSlice(s, s.worker);
          if (stopping) pending.delete(s);
          else this.sendPrice(s, req);
        }
      }
      if (this.downSince === null && performance.now() - checked > LIVENESS_MS && Date.now() - this.backAt > RECONNECT_GRACE_MS) {
        checked = performance.now();
        for (const s of await this.lapsed(pending)) {
          await this.move(s, 'stopped answering (its registration lapsed)');
          if (stopping) pending.delete(s);
          else this.sendPrice(s, req);
        }
      }
      const f = await this.nextFrame();
      if (!f) continue;
      const s = this.slices.find((x) => x.session === f.head.session);
      if (!s || !pending.has(s)) continue;
      if (f.head.t === 'error') {
        if (!(await this.afterError(s, f, req, stopping))) pending.delete(s);
        continue;
      }
      if (f.head.t === 'refused') {
        await this.move(s, `refused the slice (${String(f.head.message)})`);
        this.sendPrice(s, req);
        continue;
      }
      if (f.head.t !== 'priced' || f.head.round !== this.round) continue;
      this.take(s, f, outcomes, n);
      slowest = Math.max(slowest, Number(f.head.ms) || 0);
      if (f.head.complete !== true) complete = false;
      pending.delete(s);
    }
    checkCancelled(this.spec.options?.signal, `LP cancelled while solving ${this.spec.what}`);
    this.fleet.rounds.push({ wallMs: performance.now() - t0, workerMs: slowest });
    return { complete: complete && pending.size === 0, outcomes };
  }

  /** A slice's reply into the round's outcomes (by the LP's output index). */
  private take(s: SliceState, f: Frame, outcomes: (PricingOutcome | undefined)[], n: number): void {
    const k = s.w1 - s.w0;
    const done = need(f, 'done', 'u8', k);
    const objective = need(f, 'objective', 'f64', k);
    const safe = need(f, 'safe', 'f64', k);
    const iterations = need(f, 'iterations', 'f64', k);
    const r = need(f, 'r', 'f64', null);
    let at = 0;
    for (let i = 0; i < k; i++) {
      if (!done[i]) continue;
      if ((at + 1) * n > r.length) throw new MechError('invalid-input', 'a pricing reply from Redis has fewer columns than outputs done');
      outcomes[s.w0 + i] = { objective: objective[i]!, safeBound: safe[i]!, r: r.slice(at * n, (at + 1) * n), iterations: iterations[i]! };
      at++;
    }
    s.cold = Number(f.head.cold) || 0;
    s.fails = Number(f.head.fails) || 0;
    if (!this.priced.has(s.worker.id)) {
      this.priced.add(s.worker.id);
      this.fleet.opts.onWorkers?.(this.priced.size);
    }
  }

  async addRows(rows: PricingRows, group?: number): Promise<void> {
    const k = rows.from.length;
    if (k === 0) return;
    this.added.push(group === undefined ? { rows } : { rows, group });
    if (group === undefined) this.baseRows += k;
    else this.rowsOf.set(group, (this.rowsOf.get(group) ?? 0) + k);
    const gs = this.spec.groupSize ?? this.spec.m;
    for (const s of this.slices) if (!s.stale) this.sendRows(s, rows, group, gs);
  }

  get workers(): number {
    return this.priced.size;
  }
  get rows(): number {
    return this.baseRows + Math.max(0, ...this.rowsOf.values());
  }
  get coldRetries(): number {
    return this.slices.reduce((a, s) => a + s.coldBefore + s.cold, 0);
  }
  get failures(): number {
    return this.slices.reduce((a, s) => a + s.failsBefore + s.fails, 0);
  }

  async dispose(): Promise<void> {
    for (const s of this.slices) if (s.session) this.send(s.worker, { t: 'close', session: s.session });
    await this.fleet.commands.del(this.reply).catch(() => undefined);
    this.blocking.disconnect();
  }
}
