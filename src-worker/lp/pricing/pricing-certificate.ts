/**
 * Checking a pricing outcome that comes from elsewhere (a job queue's workers): the bound is recomputed from the
 * outcome's multipliers and the master's own rows, the column from its own entries, and nothing the master cannot
 * recompute is believed (docs/scaling-out.md, "What the master verifies").
 *
 * Bound. A certificate (PricingCertificate) names rows r_a <= f r_b and multipliers mu >= 0 on them; with f taken
 * from the master's model, never from the sender,
 *   min_P v . r >= sum_x min(0, (v + A' mu)_x)
 * holds for any mu >= 0 (weak duality), so the recomputed value is a valid bound whatever the sender did. A row the
 * master's model does not hold, a negative or non-finite multiplier, or a claimed bound above the recomputed one
 * (beyond rounding) is a forgery: the outcome is refused.
 *
 * Column. Exact pricing's column is the lower envelope of its entries on the negative set N = { x : v_x < 0 }:
 * r_x = max_{a in N} r_a g_ax. The master rebuilds it from those entries alone (clamped to [0, 1]); the rebuilt
 * column is in P by the triangle inequality of ln(1/g), whatever was sent, and a sent column that differs from it
 * beyond rounding was outside P (refused). A column of an LP pricing over rows must be finite and in [0, 1]; the
 * decomposition lifts it into P itself.
 */
import type { PricingCertificate, PricingOutcome } from './pricing';

/**
 * Rounding allowed between a sender's figures and the master's recomputation (relative to 1 + sum |v|, or to 1 for
 * column entries).
 */
const VERIFY_TOLERANCE = 1e-9;

/** Certificates of several outcomes in three flat arrays, count[i] entries each, in order. */
export interface PackedCertificates {
  count: Int32Array;
  a: Int32Array;
  b: Int32Array;
  mu: Float64Array;
}

export function packCertificates(list: readonly (PricingCertificate | undefined)[]): PackedCertificates {
  const count = new Int32Array(list.length);
  let total = 0;
  list.forEach((c, i) => {
    count[i] = c ? c.mu.length : 0;
    total += count[i]!;
  });
  const out = { count, a: new Int32Array(total), b: new Int32Array(total), mu: new Float64Array(total) };
  let at = 0;
  for (const c of list) {
    if (!c) continue;
    out.a.set(c.a, at);
    out.b.set(c.b, at);
    out.mu.set(c.mu, at);
    at += c.mu.length;
  }
  return out;
}

/** The certificates of a pack, one per entry of count (offsets checked against the arrays' lengths). */
export function unpackCertificates(p: PackedCertificates): PricingCertificate[] | string {
  const out: PricingCertificate[] = [];
  let at = 0;
  for (let i = 0; i < p.count.length; i++) {
    const k = p.count[i]!;
    if (!(k >= 0) || at + k > p.a.length || at + k > p.b.length || at + k > p.mu.length)
      return `certificate ${i} runs past its arrays`;
    out.push({ a: p.a.subarray(at, at + k), b: p.b.subarray(at, at + k), mu: p.mu.subarray(at, at + k) });
    at += k;
  }
  if (at !== p.a.length || at !== p.b.length || at !== p.mu.length)
    return `${p.mu.length - at} certificate entries left over`;
  return out;
}

/** sum_x min(0, (v + A' mu)_x) with every row's factor from `factor`, or why the certificate is not one. */
export function certifiedBound(
  v: Float64Array,
  cert: PricingCertificate,
  factor: (a: number, b: number) => number | undefined,
): number | string {
  const n = v.length;
  const d = Float64Array.from(v);
  for (let k = 0; k < cert.mu.length; k++) {
    const a = cert.a[k]!;
    const b = cert.b[k]!;
    const mu = cert.mu[k]!;
    if (!(a >= 0 && a < n && b >= 0 && b < n)) return `its certificate names secrets ${a} and ${b} (n = ${n})`;
    if (!(mu >= 0 && Number.isFinite(mu))) return `its certificate has a multiplier ${mu}`;
    const f = factor(a, b);
    if (f === undefined) return `its certificate uses r[${a}] <= f r[${b}], not a row of this LP's pricing model`;
    d[a]! += mu;
    d[b]! -= f * mu;
  }
  let s = 0;
  for (let x = 0; x < n; x++) if (d[x]! < 0) s += d[x]!;
  return s;
}

/**
 * The column of exact pricing rebuilt from its entries on N (see above), and how far the sent one was from it; or why
 * it is unusable.
 */
export function envelopeColumn(
  v: Float64Array,
  r: Float64Array,
  G: Float64Array,
): { r: Float64Array; moved: number } | string {
  const n = v.length;
  const out = new Float64Array(n);
  for (let a = 0; a < n; a++) {
    const t = r[a]!;
    if (!Number.isFinite(t)) return `its column has r[${a}] = ${t}`;
    if (!(v[a]! < 0)) continue;
    const ra = Math.min(1, Math.max(0, t));
    if (!(ra > 0)) continue;
    const row = a * n;
    for (let x = 0; x < n; x++) {
      const e = ra * G[row + x]!;
      if (e > out[x]!) out[x] = e;
    }
  }
  let moved = 0;
  for (let x = 0; x < n; x++) moved = Math.max(moved, Math.abs(out[x]! - r[x]!));
  return { r: out, moved };
}

/**
 * One outcome from elsewhere, checked: the objective and bound recomputed at v, the column rebuilt (exact pricing,
 * G given) or checked to be finite and in [0, 1]. Returns the outcome the master may use, or why it is refused.
 */
export function verifyOutcome(
  v: Float64Array,
  sent: { objective: number; safeBound: number; r: Float64Array; iterations: number; certificate?: PricingCertificate },
  factor: (a: number, b: number) => number | undefined,
  G?: Float64Array,
): PricingOutcome | string {
  const n = v.length;
  if (sent.r.length !== n) return `its column has ${sent.r.length} entries, not ${n}`;
  if (!sent.certificate) return 'it sent no certificate';
  const bound = certifiedBound(v, sent.certificate, factor);
  if (typeof bound === 'string') return bound;
  let scale = 1;
  for (let x = 0; x < n; x++) scale += Math.abs(v[x]!);
  const claimed = sent.safeBound;
  if (!(claimed <= bound + VERIFY_TOLERANCE * scale))
    return `it claims a pricing bound of ${claimed} where its multipliers prove ${bound} (a bound too high is not counted)`;
  let r = sent.r;
  if (G) {
    const e = envelopeColumn(v, sent.r, G);
    if (typeof e === 'string') return e;
    if (e.moved > VERIFY_TOLERANCE)
      return `its column is outside the column polytope (an entry off by ${e.moved.toPrecision(3)})`;
    r = e.r;
  } else {
    for (let x = 0; x < n; x++) {
      const t = r[x]!;
      if (!(t >= -VERIFY_TOLERANCE && t <= 1 + VERIFY_TOLERANCE))
        return `its column has r[${x}] = ${t}, outside [0, 1]`;
    }
  }
  let objective = 0;
  for (let x = 0; x < n; x++) objective += v[x]! * r[x]!;
  const iterations = Number.isFinite(sent.iterations) && sent.iterations >= 0 ? sent.iterations : 0;
  return { objective, safeBound: Math.min(bound, objective), r, iterations };
}
