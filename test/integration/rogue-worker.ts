/**
 * A pricing worker played by a test: it registers on the queue like `mechstudio worker` (signed with the queue
 * secret when it holds one), prices every slice it is sent honestly (exact pricing from the open frame's factors,
 * the engine's own ExactOutputs) and then lets `tamper` change the reply before it goes back: the hostile workers
 * of queue-pricing-hostile.test.ts.
 */
import { Redis } from 'ioredis';
import { ExactOutputs } from '../../src-worker/lp/pricing/exact-outputs';
import { packCertificates } from '../../src-worker/lp/pricing/pricing-certificate';
import type { PricingCertificate } from '../../src-worker/lp/pricing/pricing';
import {
  decodeFrame,
  encodeFrame,
  inboxKey,
  pricingVersion,
  signedRegistration,
  workerKey,
} from '../../src-main/queue/pricing-wire';

/** One reply as the rogue is about to send it: head and arrays may be changed, or null returned to send nothing. */
export interface RogueReply {
  head: Record<string, unknown>;
  arrays: Record<string, Float64Array | Int32Array | Uint8Array>;
}

export interface RogueOptions {
  id?: string;
  host?: string;
  version?: string;
  key?: Buffer;
  /** The registration is signed with this key instead (a process without the secret). */
  registrationKey?: Buffer | null;
  tamper: (reply: RogueReply, open: Record<string, unknown>) => RogueReply | null;
}

export interface Rogue {
  id: string;
  /** Frames of each type it received. */
  received: Map<string, number>;
  /** The sessions it was opened with. */
  sessions: string[];
  stop(): Promise<void>;
}

interface Slice {
  head: Record<string, unknown>;
  pricer: ExactOutputs;
  n: number;
  m: number;
  c: Float64Array | null;
}

function price(s: Slice, lam: Float64Array, c: Float64Array | undefined, head: Record<string, unknown>): RogueReply {
  if (c) s.c = c;
  const { n, m } = s;
  const done = new Uint8Array(m);
  const objective = new Float64Array(m);
  const safe = new Float64Array(m);
  const iterations = new Float64Array(m);
  const r = new Float64Array(m * n);
  const certs: PricingCertificate[] = [];
  const v = new Float64Array(n);
  for (let w = 0; w < m; w++) {
    for (let x = 0; x < n; x++) v[x] = s.c![w * n + x]! - lam[x]!;
    const o = s.pricer.solve(w, v);
    done[w] = 1;
    objective[w] = o.objective;
    safe[w] = o.safeBound;
    iterations[w] = o.iterations;
    r.set(o.r, w * n);
    certs.push(o.certificate!);
  }
  const p = packCertificates(certs);
  return {
    head: { t: 'priced', session: head.session, round: head.round, complete: true, cold: 0, fails: 0, rows: 0, ms: 1 },
    arrays: { done, objective, safe, iterations, r, cn: p.count, ca: p.a, cb: p.b, cmu: p.mu },
  };
}

export async function startRogue(url: string, opts: RogueOptions): Promise<Rogue> {
  const id = opts.id ?? `rogue-${Math.random().toString(16).slice(2, 10)}`;
  const commands = new Redis(url);
  const inbox = new Redis(url);
  const reg = { id, version: opts.version ?? pricingVersion(), threads: 1, host: opts.host ?? 'rogue-box', pid: 4244 };
  const regKey = opts.registrationKey === undefined ? opts.key : (opts.registrationKey ?? undefined);
  const setReg = (): Promise<unknown> => commands.set(workerKey(id), signedRegistration(reg, regKey), 'PX', 5000);
  await setReg();
  const beat = setInterval(() => void setReg().catch(() => undefined), 1000);
  const received = new Map<string, number>();
  const sessions: string[] = [];
  const slices = new Map<string, Slice>();
  let serving = true;
  const loop = (async (): Promise<void> => {
    while (serving) {
      const got = await inbox.blpopBuffer(inboxKey(id), 0.2).catch(() => null);
      if (!got) continue;
      let f;
      try {
        f = decodeFrame(got[1], opts.key);
      } catch {
        continue;
      }
      const t = String(f.head.t);
      received.set(t, (received.get(t) ?? 0) + 1);
      const session = String(f.head.session);
      if (t === 'open') {
        const n = Number(f.head.n);
        sessions.push(session);
        slices.set(session, {
          head: f.head,
          pricer: new ExactOutputs(n, Number(f.head.m), f.arrays.factors as Float64Array),
          n,
          m: Number(f.head.m),
          c: null,
        });
      } else if (t === 'price') {
        const s = slices.get(session);
        if (!s) continue;
        const honest = price(s, f.arrays.lam as Float64Array, f.arrays.c as Float64Array | undefined, f.head);
        const reply = opts.tamper({ head: { ...honest.head, worker: id }, arrays: honest.arrays }, s.head);
        if (reply) await commands.rpush(String(s.head.reply), encodeFrame(reply.head, reply.arrays, opts.key));
      }
    }
  })();
  return {
    id,
    received,
    sessions,
    stop: async () => {
      serving = false;
      clearInterval(beat);
      await loop;
      await commands.del(workerKey(id));
      commands.disconnect();
      inbox.disconnect();
    },
  };
}
