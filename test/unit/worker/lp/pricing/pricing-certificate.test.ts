/**
 * What a master recomputes of a pricing outcome sent from elsewhere (pricing-certificate.ts): the bound from the
 * multipliers with the master's own factors, the exact column rebuilt from its negative entries. Honest outcomes
 * of both pricings (exact, and HiGHS over rows) verify to the bound they claim; forged ones are refused by name.
 */
import { describe, expect, it } from 'vitest';
import { ExactOutputs } from '../../../../../src-worker/lp/pricing/exact-outputs';
import { PricingModel } from '../../../../../src-worker/lp/pricing/pricing';
import {
  certifiedBound,
  envelopeColumn,
  packCertificates,
  unpackCertificates,
  verifyOutcome,
} from '../../../../../src-worker/lp/pricing/pricing-certificate';
import { seededRandom } from '../../../../../src-shared/numeric/seeded-random';

/** A 4 x 4 grid of unit cells at eps 0.7: G = e^(-eps d), every pair a row. */
const W = 4;
const N = W * W;
const EPS = 0.7;
const dist = (a: number, b: number): number => Math.hypot((a % W) - (b % W), Math.floor(a / W) - Math.floor(b / W));
const G = Float64Array.from({ length: N * N }, (_, k) => Math.exp(-EPS * dist(Math.floor(k / N), k % N)));
const factor = (a: number, b: number): number | undefined => (a === b ? undefined : 1 / G[a * N + b]!);

function objectives(count: number): Float64Array[] {
  const rnd = seededRandom(11);
  return Array.from({ length: count }, () => Float64Array.from({ length: N }, () => rnd() * 2 - 1.2));
}

describe('verifying a pricing outcome', () => {
  it('an honest exact outcome verifies to its own bound and column, bit for bit in the column', () => {
    const pricer = new ExactOutputs(N, 1, G);
    for (const v of objectives(20)) {
      const o = pricer.solve(0, v);
      const got = verifyOutcome(v, o, factor, G);
      if (typeof got === 'string') throw new Error(got);
      expect(Math.abs(got.safeBound - o.safeBound)).toBeLessThan(1e-12);
      expect(Math.abs(got.objective - o.objective)).toBeLessThan(1e-12);
      let off = 0;
      for (let x = 0; x < N; x++) off = Math.max(off, Math.abs(got.r[x]! - o.r[x]!));
      expect(off).toBeLessThan(1e-15);
    }
  });

  it('an honest HiGHS outcome over rows verifies to the safe bound it reports', async () => {
    const from: number[] = [];
    const to: number[] = [];
    const f: number[] = [];
    for (let a = 0; a < N; a++)
      for (let b = 0; b < N; b++)
        if (a !== b && dist(a, b) < 1.5) (from.push(a), to.push(b), f.push(Math.exp(EPS * dist(a, b))));
    const rows = { from: Int32Array.from(from), to: Int32Array.from(to), factor: Float64Array.from(f) };
    const map = new Map(from.map((a, k) => [a * N + to[k]!, f[k]!]));
    const model = await PricingModel.open(N, 1, rows, 'a 4 x 4 grid');
    try {
      for (const v of objectives(10)) {
        const o = model.solve(0, v);
        expect(o.certificate!.mu.length).toBeGreaterThan(0);
        const got = verifyOutcome(v, o, (a, b) => map.get(a * N + b));
        if (typeof got === 'string') throw new Error(got);
        expect(Math.abs(got.safeBound - o.safeBound)).toBeLessThan(1e-12);
      }
    } finally {
      model.dispose();
    }
  });

  it('refuses forged outcomes, naming what is wrong', () => {
    const v = objectives(1)[0]!;
    const o = new ExactOutputs(N, 1, G).solve(0, v);
    const refuse = (change: Partial<typeof o>): string => {
      const got = verifyOutcome(v, { ...o, ...change }, factor, G);
      expect(typeof got).toBe('string');
      return got as string;
    };
    expect(refuse({ safeBound: 0 })).toMatch(/^it claims a pricing bound of 0 where its multipliers prove -\d/);
    expect(refuse({ safeBound: o.safeBound + 1e-6 })).toMatch(/claims a pricing bound/);
    expect(refuse({ r: new Float64Array(N).fill(1) })).toMatch(/outside the column polytope \(an entry off by/);
    expect(refuse({ r: Float64Array.from(o.r, (x, i) => (i === 2 ? NaN : x)) })).toBe('its column has r[2] = NaN');
    expect(refuse({ r: new Float64Array(3) })).toBe('its column has 3 entries, not 16');
    expect(refuse({ certificate: undefined })).toBe('it sent no certificate');
    const cert = o.certificate!;
    expect(refuse({ certificate: { ...cert, mu: Float64Array.from(cert.mu, (x) => -x) } })).toMatch(/a multiplier -/);
    expect(refuse({ certificate: { ...cert, b: Int32Array.from(cert.b, () => 40) } })).toMatch(
      /names secrets \d+ and 40 \(n = 16\)/,
    );
    // a row the master's model does not hold (here: none on the diagonal)
    expect(refuse({ certificate: { a: Int32Array.of(3), b: Int32Array.of(3), mu: Float64Array.of(1) } })).toBe(
      "its certificate uses r[3] <= f r[3], not a row of this LP's pricing model",
    );
  });

  it('a bound from any multipliers is below the optimum (weak duality), so scaled multipliers only weaken it', () => {
    const pricer = new ExactOutputs(N, 1, G);
    for (const v of objectives(10)) {
      const o = pricer.solve(0, v);
      for (const s of [0, 0.3, 2, 50]) {
        const b = certifiedBound(v, { ...o.certificate!, mu: o.certificate!.mu.map((x) => x * s) }, factor) as number;
        expect(b).toBeLessThanOrEqual(o.objective + 1e-12);
      }
    }
  });

  it('the envelope of a column is in the polytope whatever was sent', () => {
    const rnd = seededRandom(5);
    for (const v of objectives(10)) {
      const junk = Float64Array.from({ length: N }, () => rnd() * 3 - 1);
      const e = envelopeColumn(v, junk, G);
      if (typeof e === 'string') throw new Error(e);
      for (let a = 0; a < N; a++)
        for (let b = 0; b < N; b++) expect(e.r[a]! * G[a * N + b]!).toBeLessThanOrEqual(e.r[b]! * (1 + 1e-12) + 1e-300);
      expect(Math.max(...e.r)).toBeLessThanOrEqual(1);
    }
  });

  it('certificates pack into three arrays and back; a pack that does not add up is named', () => {
    const c1 = { a: Int32Array.of(1, 2), b: Int32Array.of(3, 4), mu: Float64Array.of(0.5, 0.25) };
    const c2 = { a: Int32Array.of(7), b: Int32Array.of(8), mu: Float64Array.of(1) };
    const p = packCertificates([c1, undefined, c2]);
    expect([...p.count]).toEqual([2, 0, 1]);
    const back = unpackCertificates(p) as { a: Int32Array; mu: Float64Array }[];
    expect(back.map((c) => [...c.a])).toEqual([[1, 2], [], [7]]);
    expect(back[2]!.mu[0]).toBe(1);
    expect(unpackCertificates({ ...p, count: Int32Array.of(2, 0, 5) })).toBe('certificate 2 runs past its arrays');
    expect(unpackCertificates({ ...p, count: Int32Array.of(1, 0, 1) })).toBe('1 certificate entries left over');
  });
});
