/**
 * violatedRows, the lazy rows an output's pricing column adds, against a recomputation in the test: every directed
 * pair row the column violates and the model does not hold, sorted by relative violation, the first `limit` of them.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../../src-shared/numeric/seeded-random';
import { violatedRows } from '../../../../../src-worker/lp/pricing/pricing-rows';

describe('violatedRows: the most violated rows not yet held', () => {
  const n = 40;
  const rnd = seededRandom(7);
  const pairs = { from: [] as number[], to: [] as number[], factor: [] as number[] };
  for (let a = 0; a < n; a++)
    for (let b = a + 1; b < n; b++) {
      pairs.from.push(a);
      pairs.to.push(b);
      pairs.factor.push(Math.exp(0.2 + 3 * rnd()));
    }
  const P = {
    from: Int32Array.from(pairs.from),
    to: Int32Array.from(pairs.to),
    factor: Float64Array.from(pairs.factor),
  };

  /** Every violated, unheld directed row (a, b) with its relative violation, most violated first. */
  function allViolated(r: Float64Array, held: Uint8Array): { a: number; b: number; v: number; k: number }[] {
    const out: { a: number; b: number; v: number; k: number }[] = [];
    for (let e = 0; e < P.from.length; e++) {
      const [a, b, f] = [P.from[e]!, P.to[e]!, P.factor[e]!];
      if (r[a]! > f * r[b]! * (1 + 1e-9) + 1e-12 && !held[2 * e])
        out.push({ a, b, v: (r[a]! - f * r[b]!) / r[a]!, k: 2 * e });
      if (r[b]! > f * r[a]! * (1 + 1e-9) + 1e-12 && !held[2 * e + 1])
        out.push({ a: b, b: a, v: (r[b]! - f * r[a]!) / r[b]!, k: 2 * e + 1 });
    }
    return out.sort((x, y) => y.v - x.v);
  }

  it.each([1, 5, 16, 10_000])(
    'limit %i: the most violated first, held rows skipped and marked held once added',
    (limit) => {
      for (let trial = 0; trial < 20; trial++) {
        const r = Float64Array.from({ length: n }, () => rnd() ** 4);
        const held = new Uint8Array(2 * P.from.length);
        for (let k = 0; k < held.length; k++) if (rnd() < 0.3) held[k] = 1;
        const want = allViolated(r, held);
        expect(want.length).toBeGreaterThan(limit === 10_000 ? 0 : limit);
        const out = { from: [] as number[], to: [] as number[], factor: [] as number[] };
        const before = held.slice();
        violatedRows(r, P, held, out, limit);
        const take = want.slice(0, limit);
        expect(out.from.length).toBe(take.length);
        if (limit < want.length) {
          // most violated first
          expect(out.from).toEqual(take.map((t) => t.a));
          expect(out.to).toEqual(take.map((t) => t.b));
        } else {
          // all of them, in pair order
          const inOrder = [...take].sort((x, y) => x.k - y.k);
          expect(out.from).toEqual(inOrder.map((t) => t.a));
          expect(out.to).toEqual(inOrder.map((t) => t.b));
        }
        for (let i = 0; i < out.from.length; i++) {
          const e = pairs.from.findIndex(
            (a, j) =>
              (a === out.from[i] && pairs.to[j] === out.to[i]) || (a === out.to[i] && pairs.to[j] === out.from[i]),
          );
          expect(out.factor[i]).toBe(P.factor[e]);
        }
        // exactly the added rows became held
        let newlyHeld = 0;
        for (let k = 0; k < held.length; k++) if (held[k] && !before[k]) newlyHeld++;
        expect(newlyHeld).toBe(take.length);
      }
    },
  );
});
