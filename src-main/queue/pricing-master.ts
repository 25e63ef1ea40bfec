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
 *  - a reply that fails verification (pricing-trust.ts: a bound its own
 *    multipliers do not prove, a column outside the polytope, NaN, missing
 *    arrays), a worker silent past its deadline (silentAfterMs), or a reply
 *    that names another worker or an unknown session: the worker is not
 *    asked again for this LP, its slice moves to another worker, or is
 *    priced on this machine when none is left (one line each); the LP never
 *    fails on what a worker sends.
 * The outcomes are the ones LocalPricing would give for the same bases;
 * after a move a slice starts cold, which changes the path, not the optimum.
 * Sessions are 128 random bits, frames are signed with the queue secret when
 * one is configured (pricing-wire.ts), and every reply must name the worker
 * its slice was sent to.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { MechError, messageOf } from '../../src-shared/errors';
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
  openPricing,
} from '../../src-worker/index';
import type { QueueTarget } from './connection';
import {
  WORKER_KEY_PATTERN,
  decodeFrame,
  encodeFrame,
  inboxKey,
  pricingKey,
  pricingVersion,
  readRegistration,
  replyKey,
  rowsArrays,
  workerKey,
  type Frame,
  type Registration,
} from './pricing-wire';
import { PricingTrust, UntrustedReply } from './pricing-trust';
import { localGroup, silentAfterMs, slicesOf, type Slice } from './pricing-slices';

/** A Redis away this long fails the LP (as the job client fails its waiting items). */
const REDIS_LOST_MS = 15_000;
/**
 * How often the workers of pending slices are checked, and how long after Redis is back before they are (their
 * registrations come back within a second).
 */
const LIVENESS_MS = 1000;
const RECONNECT_GRACE_MS = 2500;
/**
 * After a round's stop (deadline, stop, cancel), how long pending slices may still answer before the round ends without
 * them.
 */
const STOP_GRACE_MS = 3000;

interface PricingFleetOptions {
  /** One line per event (workers refused, moves, waiting); default none. */
  log?: (line: string) => void;
  /** Called with the number of workers that have priced for the current LP, when it changes. */
  onWorkers?: (workers: number) => void;
  /** The version expected of workers (default pricingVersion()). */
  version?: string;
  /** The queue secret (default pricingKey(): the environment); null: none. */
  key?: Buffer | null;
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
  readonly key: Buffer | undefined;
  private readonly refused = new Set<string>();
  private constructor(
    readonly target: QueueTarget,
    readonly commands: Redis,
    readonly opts: PricingFleetOptions,
  ) {
    this.version = opts.version ?? pricingVersion();
    this.key = opts.key === undefined ? pricingKey() : (opts.key ?? undefined);
    this.factory = (threads, spec) => QueuePricing.open(this, spec, threads);
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
    for (let i = 0; i < keys.length; i++) {
      const r = readRegistration(values[i] ?? null, this.key);
      if (typeof r === 'string') {
        if (values[i] !== null && !this.refused.has(keys[i]!)) {
          this.refused.add(keys[i]!);
          this.log(`refused pricing worker ${keys[i]!.slice(WORKER_KEY_PATTERN.length - 1).slice(0, 80)}: ${r}`);
        }
        continue;
      }
      if (r.version === this.version) out.push(r);
      else if (!this.refused.has(r.id)) {
        this.refused.add(r.id);
        this.log(
          `refused pricing worker ${r.host} (pid ${r.pid}): it runs ${r.version}, this LP ${this.version}; start it from the same version`,
        );
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
  /** Priced on this machine: no worker it could move to was left. */
  local: boolean;
  /** When its last price frame went out (performance.now()). */
  sentAt: number;
}

/** How long to wait between checks while no worker of this version is registered. */
const WAIT_POLL_MS = 500;
const NO_ROWS = { from: new Int32Array(0), to: new Int32Array(0), factor: new Float64Array(0) };

/**
 * What collect() leaves of a round: whether every remote slice answered in time, the slowest worker time, slices that
 * moved to this machine.
 */
interface Collected {
  complete: boolean;
  slowest: number;
  late: SliceState[];
}

class QueuePricing implements PricingEngine {
  private readonly id = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly reply: string;
  private slices: SliceState[] = [];
  /** Rows added so far, in order: replayed into a slice opened again. */
  private readonly added: { rows: PricingRows; group?: number }[] = [];
  private readonly rowsOf: Map<number, number> = new Map();
  private baseRows: number;
  private round = 0;
  private readonly priced = new Set<string>();
  private downSince: number | null = null;
  private epoch = 0;
  private backAt = 0;
  private pop: Promise<[Buffer, Buffer] | null> | null = null;
  /** Whether the workers price exactly (the LP's factors travel with each slice) rather than over rows. */
  readonly exact: boolean;
  private readonly trust: PricingTrust;
  /** Workers not asked again by this LP: a reply that did not verify, or silence past the deadline. */
  private readonly distrusted = new Set<string>();
  private readonly said = new Set<string>();
  private slowestReplyMs = 0;
  private readonly openedAt = performance.now();
  private lpMs = Infinity;
  private local: PricingEngine | null = null;

  private constructor(
    private readonly fleet: PricingFleet,
    private readonly spec: PricingSpec,
    private readonly blocking: Redis,
    private readonly localThreads: number,
  ) {
    this.reply = replyKey(this.id);
    this.baseRows = spec.factors ? 0 : spec.rows.from.length;
    this.exact = spec.factors !== undefined;
    this.trust = new PricingTrust(spec);
    blocking.on('close', () => (this.downSince ??= Date.now()));
    blocking.on('ready', () => {
      if (this.downSince === null) return;
      this.downSince = null;
      this.epoch++;
      this.backAt = Date.now();
    });
  }

  static async open(fleet: PricingFleet, spec: PricingSpec, threads = 1): Promise<QueuePricing> {
    const { Redis } = await import('ioredis');
    const blocking = new Redis({ ...fleet.target.options, maxRetriesPerRequest: null });
    blocking.on('error', () => undefined);
    const q = new QueuePricing(fleet, spec, blocking, Math.max(1, threads));
    try {
      if (!fleet.key)
        q.once(
          'unsigned',
          'pricing frames on this queue are not authenticated (set MECHSTUDIO_QUEUE_SECRET on the master and every worker); every bound a worker sends is still recomputed here',
        );
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
        local: false,
        sentAt: 0,
      }));
      for (const s of q.slices) await q.openSlice(s, s.worker);
    } catch (e) {
      await q.dispose();
      throw e;
    }
    return q;
  }

  get threads(): number {
    const seen = new Map(this.slices.filter((s) => !s.local).map((s) => [s.worker.id, s.worker.threads]));
    let t = this.slices.some((s) => s.local) ? this.localThreads : 0;
    for (const v of seen.values()) t += v;
    return Math.max(1, t);
  }

  /** One line for `what`, once per LP. */
  private once(what: string, line: string): void {
    if (this.said.has(what)) return;
    this.said.add(what);
    this.fleet.log(line);
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
    const frame = encodeFrame(head, arrays, this.fleet.key);
    this.fleet.bytesSent += frame.length;
    this.fleet.commands.rpush(inboxKey(worker.id), frame).catch(() => undefined);
  }

  /**
   * Open slice s on `worker` as a new session (128 random bits): the seed rows (or the exact factors), then every row
   * added since, in order.
   */
  private async openSlice(s: SliceState, worker: Registration): Promise<void> {
    s.coldBefore += s.cold;
    s.failsBefore += s.fails;
    s.cold = s.fails = 0;
    if (s.session && !s.local) this.send(s.worker, { t: 'close', session: s.session });
    s.worker = worker;
    s.local = false;
    s.session = randomBytes(16).toString('hex');
    s.cSent = null;
    s.stale = false;
    const gs = this.spec.groupSize ?? this.spec.m;
    const head = {
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
    };
    this.send(worker, head, { ...rowsArrays(this.exact ? NO_ROWS : this.spec.rows), factors: this.spec.factors });
    for (const a of this.added) this.sendRows(s, a.rows, a.group, gs);
  }

  private sendRows(s: SliceState, rows: PricingRows, group: number | undefined, gs: number): void {
    if (s.local) return;
    const local = group === undefined ? undefined : localGroup(s, group, gs);
    if (group !== undefined && local === undefined) return;
    this.send(
      s.worker,
      { t: 'add', session: s.session, ...(local !== undefined ? { group: local } : {}) },
      rowsArrays(rows),
    );
  }

  private sendPrice(s: SliceState, req: PricingRequest): void {
    const n = this.spec.n;
    const left = req.deadline - performance.now();
    const c = s.cSent === req.c ? undefined : req.c.subarray(s.w0 * n, s.w1 * n);
    s.cSent = req.c;
    s.sentAt = performance.now();
    this.send(
      s.worker,
      {
        t: 'price',
        session: s.session,
        round: this.round,
        ms: Number.isFinite(left) ? Math.max(0, left) : 1e12,
        retry: req.retryTolerance ?? 0,
      },
      { lam: req.lam, c, only: req.only?.subarray(s.w0, s.w1) },
    );
  }

  /**
   * A live worker for a slice whose worker is gone, failed it or is not trusted: the one holding the fewest slices
   * among those neither in `exclude` nor distrusted; with `wait`, polls until one registers, else null when none is
   * live now.
   */
  private async replacement(exclude: ReadonlySet<string>, wait = true): Promise<Registration | null> {
    for (;;) {
      checkCancelled(this.spec.options?.signal, `LP cancelled while pricing ${this.spec.what}`);
      const live = (await this.fleet.liveWorkers()).filter((w) => !exclude.has(w.id) && !this.distrusted.has(w.id));
      if (live.length > 0) {
        const load = (w: Registration): number => this.slices.filter((s) => !s.local && s.worker.id === w.id).length;
        return live.reduce((a, b) => (load(b) < load(a) ? b : a));
      }
      if (!wait) return null;
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    }
  }

  /**
   * Slice s moves off its worker (one line naming why): to the least loaded live worker it may go to, else to this
   * machine.
   */
  private async moveOff(s: SliceState, why: string, exclude: ReadonlySet<string>): Promise<void> {
    const from = s.worker;
    const to = await this.replacement(exclude, false);
    const head = `pricing worker ${from.host} (pid ${from.pid}) ${why}: outputs ${s.w0 + 1}-${s.w1}`;
    if (to) {
      this.fleet.log(`${head} move to ${to.host} (pid ${to.pid})`);
      await this.openSlice(s, to);
      return;
    }
    this.fleet.log(`${head} are priced on this machine (no other pricing worker it may move to)`);
    this.send(from, { t: 'close', session: s.session });
    s.local = true;
    s.session = `local-${randomBytes(8).toString('hex')}`;
  }

  /** A worker whose reply did not verify, or that stayed silent: not asked again by this LP, and its slices move. */
  private async distrust(s: SliceState, why: string): Promise<void> {
    this.distrusted.add(s.worker.id);
    await this.moveOff(s, why, new Set([s.worker.id]));
  }

  /** Slices among `pending` whose worker's registration has lapsed. */
  private async lapsed(pending: Set<SliceState>): Promise<SliceState[]> {
    const ids = [...new Set([...pending].map((s) => s.worker.id))];
    if (ids.length === 0) return [];
    const values = await this.fleet.commands.mget(...ids.map(workerKey));
    const gone = new Set(ids.filter((_, i) => values[i] === null));
    return [...pending].filter((s) => gone.has(s.worker.id));
  }

  /**
   * The next reply frame, or null after about 200 ms without one, or for a frame that is not believed (one line per
   * reason).
   */
  private async nextFrame(): Promise<Frame | null> {
    // (a pop still in flight when the engine is disposed is rejected by the disconnect: nobody waits for it then)
    this.pop ??= this.blocking.blpopBuffer(this.reply, 0.2).catch(() => null);
    const got = await Promise.race([this.pop, new Promise<'wait'>((r) => setTimeout(() => r('wait'), 250))]);
    if (got === 'wait') return null;
    this.pop = null;
    if (!got) return null;
    this.fleet.bytesReceived += got[1].length;
    try {
      return decodeFrame(got[1], this.fleet.key);
    } catch (e) {
      const why = messageOf(e);
      this.once(why, `ignored a frame on this LP's reply list: ${why}`);
      return null;
    }
  }

  async price(req: PricingRequest): Promise<PricingRound> {
    checkCancelled(this.spec.options?.signal, `LP cancelled while solving ${this.spec.what}`);
    const t0 = performance.now();
    if (this.round === 0) this.lpMs = req.deadline - this.openedAt;
    this.round++;
    const outcomes: (PricingOutcome | undefined)[] = new Array(this.spec.m);
    const wanted = (s: SliceState): boolean => !req.only || req.only.subarray(s.w0, s.w1).some((x) => x !== 0);
    const pending = new Set<SliceState>();
    for (const s of this.slices) {
      if (!wanted(s) || s.local) continue;
      if (s.stale) await this.openSlice(s, s.worker);
      this.sendPrice(s, req);
      pending.add(s);
    }
    // The slices on this machine price meanwhile, on its threads.
    const here = this.priceHere(
      this.slices.filter((s) => s.local && wanted(s)),
      req,
      outcomes,
    );
    here.catch(() => undefined); // awaited below; a failure there is the round's
    const got = await this.collect(pending, req, outcomes);
    const hereComplete = await here;
    let complete = got.complete && hereComplete;
    const stopped = performance.now() > req.deadline || req.shouldStop?.() === true;
    if (got.late.length > 0) complete = !stopped && (await this.priceHere(got.late, req, outcomes)) && complete;
    checkCancelled(this.spec.options?.signal, `LP cancelled while solving ${this.spec.what}`);
    this.fleet.rounds.push({ wallMs: performance.now() - t0, workerMs: got.slowest });
    return { complete, outcomes };
  }

  /** Price `slices` on this machine (an engine opened on first use, every row added so far replayed into it). */
  private async priceHere(
    slices: SliceState[],
    req: PricingRequest,
    outcomes: (PricingOutcome | undefined)[],
  ): Promise<boolean> {
    if (slices.length === 0) return true;
    if (!this.local) {
      const engine = await openPricing(this.localThreads, this.spec);
      for (const a of this.added) await engine.addRows(a.rows, a.group);
      this.local = engine;
    }
    const only = new Uint8Array(this.spec.m);
    for (const s of slices) for (let w = s.w0; w < s.w1; w++) only[w] = req.only ? req.only[w]! : 1;
    const round = await this.local.price({ ...req, only });
    for (const s of slices) for (let w = s.w0; w < s.w1; w++) if (round.outcomes[w]) outcomes[w] = round.outcomes[w];
    return round.complete;
  }

  /** After slice s moved (or went to this machine) mid-round: price it again there, unless the round is stopping. */
  private resend(
    s: SliceState,
    req: PricingRequest,
    pending: Set<SliceState>,
    late: SliceState[],
    stopping: boolean,
  ): void {
    if (s.local) {
      pending.delete(s);
      late.push(s);
    } else if (stopping) pending.delete(s);
    else this.sendPrice(s, req);
  }

  /** Wait for the replies of `pending` (see the faults above), verifying each; outcomes go into `outcomes`. */
  private async collect(
    pending: Set<SliceState>,
    req: PricingRequest,
    outcomes: (PricingOutcome | undefined)[],
  ): Promise<Collected> {
    const out: Collected = { complete: true, slowest: 0, late: [] };
    const signal = this.spec.options?.signal;
    let stopAt = -1;
    let epoch = this.epoch;
    let checked = performance.now();
    while (pending.size > 0) {
      const now = performance.now();
      if (stopAt < 0 && (now > req.deadline || req.shouldStop?.() || signal?.aborted)) {
        stopAt = now;
        out.complete = false;
        for (const s of pending) this.send(s.worker, { t: 'stop', session: s.session, round: this.round });
      }
      const stopping = stopAt >= 0;
      if (signal?.aborted) break;
      if (stopping && now - stopAt > STOP_GRACE_MS) {
        // The round ends without them: a worker that does not answer a stop is not asked again.
        for (const s of [...pending])
          await this.distrust(s, `sent nothing within ${STOP_GRACE_MS / 1000} s of the round's stop`);
        break;
      }
      if (this.downSince !== null && Date.now() - this.downSince > REDIS_LOST_MS)
        throw new MechError(
          'internal',
          `lost Redis at ${this.fleet.target.redacted} for more than ${REDIS_LOST_MS / 1000} s while pricing ${this.spec.what}: the LP cannot go on (run it again when Redis is back, or without --queue)`,
        );
      if (epoch !== this.epoch && this.downSince === null) {
        // Redis came back: frames in flight may be gone with it; every slice is opened again before its next frame.
        epoch = this.epoch;
        for (const s of this.slices) if (!s.local) s.stale = true;
        for (const s of [...pending]) {
          await this.openSlice(s, s.worker);
          this.resend(s, req, pending, out.late, stopping);
        }
      }
      if (this.downSince === null && now - checked > LIVENESS_MS && Date.now() - this.backAt > RECONNECT_GRACE_MS) {
        checked = now;
        await this.takeBack(pending, req, out.late, stopping);
      }
      const f = await this.nextFrame();
      if (f) await this.onFrame(f, pending, req, outcomes, out, stopping);
    }
    return out;
  }

  /** Slices whose worker's registration lapsed, or that are silent past silentAfterMs, move off their worker. */
  private async takeBack(
    pending: Set<SliceState>,
    req: PricingRequest,
    late: SliceState[],
    stopping: boolean,
  ): Promise<void> {
    for (const s of await this.lapsed(pending)) {
      await this.moveOff(s, 'stopped answering (its registration lapsed)', new Set([s.worker.id]));
      this.resend(s, req, pending, late, stopping);
    }
    const limit = silentAfterMs(this.slowestReplyMs, this.lpMs);
    for (const s of [...pending]) {
      if (performance.now() - s.sentAt <= limit) continue;
      await this.distrust(s, `sent nothing for ${(limit / 1000).toFixed(1)} s`);
      this.resend(s, req, pending, late, stopping);
    }
  }

  /** One reply frame: taken only from the worker its slice was sent to, for a slice still pending. */
  private async onFrame(
    f: Frame,
    pending: Set<SliceState>,
    req: PricingRequest,
    outcomes: (PricingOutcome | undefined)[],
    out: Collected,
    stopping: boolean,
  ): Promise<void> {
    const s = this.slices.find((x) => x.session === f.head.session);
    if (!s || !pending.has(s)) return;
    if (f.head.worker !== s.worker.id) {
      this.once(
        `worker:${s.session}`,
        `ignored a reply for outputs ${s.w0 + 1}-${s.w1} that names ${String(f.head.worker).slice(0, 80)}, not the worker asked (${s.worker.host}, pid ${s.worker.pid})`,
      );
      return;
    }
    if (f.head.t === 'error') {
      s.failedOn.add(s.worker.id);
      await this.moveOff(s, `failed: ${String(f.head.message).slice(0, 300)}`, s.failedOn);
      this.resend(s, req, pending, out.late, stopping);
    } else if (f.head.t === 'refused') {
      await this.moveOff(s, `refused the slice (${String(f.head.message).slice(0, 300)})`, new Set([s.worker.id]));
      this.resend(s, req, pending, out.late, stopping);
    } else if (f.head.t === 'priced' && f.head.round === this.round) {
      try {
        this.take(s, f, req, outcomes);
      } catch (e) {
        if (!(e instanceof UntrustedReply)) throw e;
        await this.distrust(s, `sent a reply that does not verify (${e.message})`);
        this.resend(s, req, pending, out.late, stopping);
        return;
      }
      out.slowest = Math.max(out.slowest, Number(f.head.ms) || 0);
      this.slowestReplyMs = Math.max(this.slowestReplyMs, performance.now() - s.sentAt);
      if (f.head.complete !== true) out.complete = false;
      pending.delete(s);
    }
  }

  /** A slice's reply, verified (pricing-trust.ts), into the round's outcomes (by the LP's output index). */
  private take(s: SliceState, f: Frame, req: PricingRequest, outcomes: (PricingOutcome | undefined)[]): void {
    const got = this.trust.outcomes(f, s.w0, s.w1, req.c, req.lam);
    for (let i = 0; i < got.length; i++) if (got[i]) outcomes[s.w0 + i] = got[i];
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
    this.trust.addRows(rows, group);
    if (group === undefined) this.baseRows += k;
    else this.rowsOf.set(group, (this.rowsOf.get(group) ?? 0) + k);
    const gs = this.spec.groupSize ?? this.spec.m;
    for (const s of this.slices) if (!s.stale) this.sendRows(s, rows, group, gs);
    await this.local?.addRows(rows, group);
  }

  get workers(): number {
    return this.priced.size;
  }
  get rows(): number {
    return this.baseRows + Math.max(0, ...this.rowsOf.values());
  }
  get coldRetries(): number {
    return this.slices.reduce((a, s) => a + s.coldBefore + s.cold, 0) + (this.local?.coldRetries ?? 0);
  }
  get failures(): number {
    return this.slices.reduce((a, s) => a + s.failsBefore + s.fails, 0) + (this.local?.failures ?? 0);
  }

  async dispose(): Promise<void> {
    for (const s of this.slices) if (s.session && !s.local) this.send(s.worker, { t: 'close', session: s.session });
    await this.fleet.commands.del(this.reply).catch(() => undefined);
    this.blocking.disconnect();
    await this.local?.dispose();
  }
}
