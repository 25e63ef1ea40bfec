/**
 * The pricing side of `mechstudio worker`: besides taking jobs, a worker
 * prices slices of outputs for optimal LPs whose master runs elsewhere
 * (pricing-master.ts). It registers under workerKey(id) with its version,
 * renewing the key every second (it lapses lockMs after the worker dies),
 * and takes frames (pricing-wire.ts) from its own inbox list:
 *   open  (session, version, n, m, groupSize, form, seed rows, and the
 *         n x n exact pricing factors when the LP prices exactly): open the
 *         slice's pricing, on worker threads (ThreadedPricing: the event
 *         loop stays free for the heartbeat and the jobs), or refuse a
 *         master of another version with one line;
 *   price (session, round, lam, c the first time, deadline): price the
 *         slice from each output's warm start, reply with every outcome and
 *         the multipliers that prove its bound (the master recomputes it);
 *   add   (session, rows, group?): append rows (no reply);
 *   stop  (session, round): end that round's pricing early;
 *   close (session).
 * A session's frames are handled in order (a chain per session); sessions
 * of different masters run side by side. A session unused for an hour
 * (its master gone without closing it) is dropped.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { MechError, messageOf } from '../../src-shared/errors';
import {
  EXACT_PRICING_MAX_SECRETS,
  LocalPricing,
  type PricingEngine,
  type PricingRound,
  type PricingSpec,
  ThreadedPricing,
  packCertificates,
  packRound,
  threadedPricingAvailable,
} from '../../src-worker/index';
import type { QueueTarget } from './connection';
import {
  decodeFrame,
  encodeFrame,
  frameRows,
  inboxKey,
  need,
  pricingKey,
  pricingVersion,
  signedRegistration,
  workerKey,
  type Frame,
} from './pricing-wire';

interface PricingServiceOptions {
  target: QueueTarget;
  /** Pricing threads per slice (the worker's --concurrency). */
  threads: number;
  /** Registration lifetime: a dead worker's slices move after this long (stallSettings().lockMs). */
  ttlMs: number;
  log: (line: string) => void;
  /** The version advertised (default pricingVersion()). */
  version?: string;
  /** The queue secret (default pricingKey(): the environment); null: none. */
  key?: Buffer | null;
}

interface RunningPricingService {
  id: string;
  stop(): Promise<void>;
}

const IDLE_SESSION_MS = 3_600_000;
const HEARTBEAT_MS = 1000;

const openSchema = z.object({
  t: z.literal('open'),
  v: z.string(),
  session: z.string().min(1).max(200),
  reply: z.string().min(1).max(300),
  n: z.int().min(1).max(1e7),
  m: z.int().min(1).max(1e7),
  groupSize: z.int().min(1),
  form: z.enum(['primal', 'dual']),
  what: z.string().max(500),
  highsOptions: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});
const priceSchema = z.object({
  t: z.literal('price'),
  session: z.string(),
  round: z.int().min(0),
  ms: z.number().min(0),
  retry: z.number().min(0),
});
const addSchema = z.object({ t: z.literal('add'), session: z.string(), group: z.int().min(0).optional() });
const sessionMsgSchema = z.object({ t: z.enum(['stop', 'close']), session: z.string(), round: z.int().optional() });

interface Session {
  reply: string;
  n: number;
  m: number;
  engine: Promise<PricingEngine>;
  chain: Promise<void>;
  c: Float64Array | null;
  stopRound: number;
  failed: boolean;
  lastUsed: number;
}

/**
 * One round's outcomes as the frame's arrays: which outputs were priced, their objectives, safe bounds, iterations, and
 * their columns and certificates packed.
 */
function packedFrame(
  round: PricingRound,
  n: number,
  m: number,
): Record<string, Float64Array | Int32Array | Uint8Array> {
  const cert = packCertificates(round.outcomes.slice(0, m).flatMap((o) => (o ? [o.certificate] : [])));
  return { ...packRound(round, n, m), cn: cert.count, ca: cert.a, cb: cert.b, cmu: cert.mu };
}

/**
 * The pricing engine of an opened slice: worker threads keep this process's event loop free (heartbeat, job locks);
 * this thread when none is available.
 */
function sliceEngine(h: z.infer<typeof openSchema>, f: Frame, maxThreads: number): Promise<PricingEngine> {
  let factors: Float64Array | undefined;
  if (f.arrays.factors) {
    if (h.n > EXACT_PRICING_MAX_SECRETS)
      throw new MechError(
        'invalid-input',
        `exact pricing factors for ${h.n} secrets (at most ${EXACT_PRICING_MAX_SECRETS})`,
      );
    // one copy in shared memory for every pricing thread
    factors = new Float64Array(new SharedArrayBuffer(8 * h.n * h.n));
    factors.set(need(f, 'factors', 'f64', h.n * h.n));
  }
  const spec: PricingSpec = {
    n: h.n,
    m: h.m,
    rows: frameRows(f, h.n),
    what: h.what,
    form: h.form,
    groupSize: Math.min(h.groupSize, h.m),
    ...(h.highsOptions ? { options: { highsOptions: h.highsOptions } } : {}),
    ...(factors ? { factors } : {}),
  };
  const threads = Math.min(maxThreads, h.m);
  return threadedPricingAvailable() ? ThreadedPricing.open(Math.max(1, threads), spec) : LocalPricing.open(spec);
}

/**
 * Take frames off the worker's inbox until stopped: a malformed frame is dropped with one line; Redis trouble is
 * retried (the job worker logs it).
 */
async function pollInbox(
  blocking: Redis,
  key: string,
  handle: (buf: Buffer) => void,
  log: (line: string) => void,
  stopped: () => boolean,
): Promise<void> {
  while (!stopped()) {
    try {
      const got = await blocking.blpopBuffer(key, 1);
      if (got) handle(got[1]);
    } catch (e) {
      if (stopped()) break;
      if (e instanceof MechError || e instanceof z.ZodError)
        log(`dropped a pricing frame: ${e instanceof MechError ? e.message : 'its header does not parse'}`);
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Sends a frame to a list (a master's reply list), naming this worker. */
type Send = (
  list: string,
  head: Record<string, unknown>,
  arrays?: Parameters<typeof encodeFrame>[1],
) => Promise<unknown>;

/** What the frame handlers share: this worker's identity, its open sessions, and the way back to the masters. */
interface ServiceContext {
  id: string;
  version: string;
  threads: number;
  log: (line: string) => void;
  sessions: Map<string, Session>;
  send: Send;
}

/**
 * One pricing round of a slice: priced at the frame's duals (costs kept from the first round), the outcomes sent back
 * to the master.
 */
async function priceRound(
  engine: PricingEngine,
  s: Session,
  h: z.infer<typeof priceSchema>,
  lam: Float64Array,
  c: Float64Array | null,
  only: Uint8Array | undefined,
  send: Send,
): Promise<void> {
  if (c) s.c = c;
  if (!s.c) throw new MechError('internal', 'a pricing round came before the costs of its slice');
  const { n, m } = s;
  const t0 = performance.now();
  const round = await engine.price({
    c: s.c,
    lam,
    deadline: t0 + h.ms,
    retryTolerance: h.retry,
    shouldStop: () => s.stopRound >= h.round,
    ...(only ? { only } : {}),
  });
  s.lastUsed = Date.now();
  const head = {
    t: 'priced',
    session: h.session,
    round: h.round,
    complete: round.complete,
    cold: engine.coldRetries,
    fails: engine.failures,
    rows: engine.rows,
  };
  await send(s.reply, { ...head, ms: performance.now() - t0 }, packedFrame(round, n, m));
}

/** Drop a session; its engine is disposed once the session's queued frames are done. */
function closeSession(sessions: Map<string, Session>, sid: string): void {
  const s = sessions.get(sid);
  if (!s) return;
  sessions.delete(sid);
  void s.chain.then(() => s.engine.then((e) => e.dispose())).catch(() => undefined);
}

/** Run `step` after the session's earlier frames; an error fails the session and goes back to its master. */
function queueStep(send: Send, sid: string, s: Session, step: (engine: PricingEngine) => Promise<void>): void {
  s.lastUsed = Date.now();
  s.chain = s.chain.then(async () => {
    if (s.failed) return;
    try {
      await step(await s.engine);
    } catch (e) {
      s.failed = true;
      const code = e instanceof MechError ? e.code : 'internal';
      await send(s.reply, { t: 'error', session: sid, code, message: messageOf(e) });
    }
  });
}

/** An `open` frame: the slice's pricing engine started (a master of another version refused with one line). */
function openSession(ctx: ServiceContext, f: Frame): void {
  const { id, version, send } = ctx;
  const h = openSchema.parse(f.head);
  if (h.v !== version) {
    ctx.log(
      `refused a pricing session: its master runs ${h.v}, this worker ${version} (start workers from the same version)`,
    );
    void send(h.reply, {
      t: 'refused',
      session: h.session,
      message: `worker ${id} runs ${version}, the master ${h.v}`,
    });
    return;
  }
  ctx.log(`pricing ${h.what}`);
  const engine = sliceEngine(h, f, ctx.threads);
  const s: Session = {
    reply: h.reply,
    n: h.n,
    m: h.m,
    engine,
    chain: Promise.resolve(),
    c: null,
    stopRound: -1,
    failed: false,
    lastUsed: Date.now(),
  };
  engine.catch(() => undefined);
  ctx.sessions.set(h.session, s);
  queueStep(send, h.session, s, async () => undefined);
}

/** A `price` frame: the round queued on its session (ignored when the session is gone). */
function priceFrame(ctx: ServiceContext, f: Frame): void {
  const h = priceSchema.parse(f.head);
  const s = ctx.sessions.get(h.session);
  if (!s) return;
  const lam = need(f, 'lam', 'f64', s.n);
  const c = f.arrays.c ? need(f, 'c', 'f64', s.n * s.m) : null;
  const only = f.arrays.only ? need(f, 'only', 'u8', s.m) : undefined;
  queueStep(ctx.send, h.session, s, (engine) => priceRound(engine, s, h, lam, c, only, ctx.send));
}

/** An `add` frame: the rows appended to the session's slice (no reply). */
function addFrame(ctx: ServiceContext, f: Frame): void {
  const h = addSchema.parse(f.head);
  const s = ctx.sessions.get(h.session);
  if (!s) return;
  const rows = frameRows(f, s.n);
  queueStep(ctx.send, h.session, s, (engine) => engine.addRows(rows, h.group));
}

/** One decoded frame, by its type: open, price, add, stop or close. */
function handleFrame(ctx: ServiceContext, f: Frame): void {
  const t = f.head.t;
  if (t === 'open') openSession(ctx, f);
  else if (t === 'price') priceFrame(ctx, f);
  else if (t === 'add') addFrame(ctx, f);
  else {
    const h = sessionMsgSchema.parse(f.head);
    const s = ctx.sessions.get(h.session);
    if (h.t === 'stop' && s) s.stopRound = Math.max(s.stopRound, h.round ?? Infinity);
    else if (h.t === 'close') closeSession(ctx.sessions, h.session);
  }
}

export async function startPricingService(opts: PricingServiceOptions): Promise<RunningPricingService> {
  const { Redis } = await import('ioredis');
  const id = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const version = opts.version ?? pricingVersion();
  const commands: Redis = new Redis({ ...opts.target.options, maxRetriesPerRequest: null });
  const blocking: Redis = new Redis({ ...opts.target.options, maxRetriesPerRequest: null });
  commands.on('error', () => undefined); // the job worker's own connections report Redis trouble
  blocking.on('error', () => undefined);
  const sessions = new Map<string, Session>();
  const key = opts.key === undefined ? pricingKey() : (opts.key ?? undefined);
  const registration = signedRegistration(
    { id, version, threads: opts.threads, host: hostname(), pid: process.pid },
    key,
  );
  let stopped = false;

  const beat = (): void => {
    commands.set(workerKey(id), registration, 'PX', opts.ttlMs).catch(() => undefined);
    const now = Date.now();
    for (const [sid, s] of sessions) if (now - s.lastUsed > IDLE_SESSION_MS) closeSession(sessions, sid);
  };
  await commands.set(workerKey(id), registration, 'PX', opts.ttlMs);
  const heartbeat = setInterval(beat, Math.min(HEARTBEAT_MS, opts.ttlMs / 3));

  // Every reply names this worker: the master takes a slice's replies only from the worker it asked.
  const send: Send = (list, head, arrays) =>
    commands.rpush(list, encodeFrame({ ...head, worker: id }, arrays, key)).catch(() => undefined);
  const ctx: ServiceContext = { id, version, threads: opts.threads, log: opts.log, sessions, send };
  const handle = (buf: Buffer): void => handleFrame(ctx, decodeFrame(buf, key));

  const loop = pollInbox(blocking, inboxKey(id), handle, opts.log, () => stopped);

  return {
    id,
    stop: async () => {
      stopped = true;
      clearInterval(heartbeat);
      blocking.disconnect();
      await loop;
      for (const sid of [...sessions.keys()]) closeSession(sessions, sid);
      await commands.del(workerKey(id)).catch(() => undefined);
      commands.disconnect();
    },
  };
}
