/**
 * What the queue pricing's master believes of a worker's reply (docs/scaling-out.md, "What the master verifies"):
 * every outcome is recomputed from the master's model by verifyOutcome (src-worker/lp/pricing/pricing-certificate.ts)
 * and a reply with one outcome that fails is refused whole. The model is the exact pricing factors G when the LP
 * prices exactly, else the pricing rows the master has sent: the seed rows, the rows added to every output, and
 * each group's lazy rows, so a certificate may use only rows the slice's worker was given.
 */
import { MechError } from '../../src-shared/errors';
import {
  type PricingOutcome,
  type PricingRows,
  type PricingSpec,
  unpackCertificates,
  verifyOutcome,
} from '../../src-worker/index';
import { type Frame, need } from './pricing-wire';

/** Why a reply is refused: the slice moves, the reply counts for nothing. */
export class UntrustedReply extends Error {}

export class PricingTrust {
  private readonly base = new Map<number, number>();
  private readonly groups = new Map<number, Map<number, number>>();
  private readonly v: Float64Array;

  constructor(private readonly spec: PricingSpec) {
    this.v = new Float64Array(spec.n);
    if (!spec.factors) this.addRows(spec.rows);
  }

  /** Rows the master sends to every output (group undefined) or to one group's outputs. */
  addRows(rows: PricingRows, group?: number): void {
    if (this.spec.factors) return;
    const { n } = this.spec;
    let map = this.base;
    if (group !== undefined) {
      map = this.groups.get(group) ?? new Map();
      this.groups.set(group, map);
    }
    for (let k = 0; k < rows.from.length; k++) {
      const key = rows.from[k]! * n + rows.to[k]!;
      const f = rows.factor[k]!;
      // two rows on one pair: the tighter one holds on the polytope, the looser is implied
      map.set(key, Math.min(f, map.get(key) ?? Infinity));
    }
  }

  /** The factor of row r_a <= f r_b of output w's pricing polytope, from the master's own model. */
  private factor(w: number, a: number, b: number): number | undefined {
    const { n, factors: G, groupSize = this.spec.m } = this.spec;
    if (G) {
      const g = G[a * n + b]!;
      return g > 0 ? 1 / g : undefined;
    }
    const key = a * n + b;
    return this.base.get(key) ?? this.groups.get(Math.floor(w / groupSize))?.get(key);
  }

  /**
   * The outcomes of a 'priced' frame for outputs [w0, w1), each checked at the duals `lam` and costs `c` the slice
   * was priced with; throws UntrustedReply naming the first outcome that fails.
   */
  outcomes(f: Frame, w0: number, w1: number, c: Float64Array, lam: Float64Array): (PricingOutcome | undefined)[] {
    const { n } = this.spec;
    const k = w1 - w0;
    let done: Uint8Array, objective: Float64Array, safe: Float64Array, iterations: Float64Array, r: Float64Array;
    let certs: ReturnType<typeof unpackCertificates>;
    try {
      done = need(f, 'done', 'u8', k);
      objective = need(f, 'objective', 'f64', k);
      safe = need(f, 'safe', 'f64', k);
      iterations = need(f, 'iterations', 'f64', k);
      r = need(f, 'r', 'f64', null);
      certs = unpackCertificates({
        count: need(f, 'cn', 'i32', null),
        a: need(f, 'ca', 'i32', null),
        b: need(f, 'cb', 'i32', null),
        mu: need(f, 'cmu', 'f64', null),
      });
    } catch (e) {
      throw new UntrustedReply(
        e instanceof MechError ? e.message.replace(/^a pricing frame from Redis /, 'its reply ') : String(e),
      );
    }
    if (typeof certs === 'string') throw new UntrustedReply(`its reply's ${certs}`);
    const priced = done.reduce((s, x) => s + (x ? 1 : 0), 0);
    if (r.length !== priced * n || certs.length !== priced)
      throw new UntrustedReply(
        `its reply has ${r.length / n} columns and ${certs.length} certificates for ${priced} outputs priced`,
      );
    const out: (PricingOutcome | undefined)[] = new Array(k);
    const { v } = this;
    let at = 0;
    for (let i = 0; i < k; i++) {
      if (!done[i]) continue;
      const w = w0 + i;
      for (let x = 0; x < n; x++) v[x] = c[w * n + x]! - lam[x]!;
      const sent = {
        objective: objective[i]!,
        safeBound: safe[i]!,
        r: r.subarray(at * n, (at + 1) * n),
        iterations: iterations[i]!,
        certificate: certs[at]!,
      };
      const got = verifyOutcome(v, sent, (a, b) => this.factor(w, a, b), this.spec.factors);
      if (typeof got === 'string') throw new UntrustedReply(`output ${w + 1}: ${got}`);
      // a copy: the frame's arrays are not kept
      out[i] = got.r === sent.r ? { ...got, r: sent.r.slice() } : got;
      at++;
    }
    return out;
  }
}
