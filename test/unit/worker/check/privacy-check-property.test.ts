/**
 * Property-based tests of the privacy check: random small metrics
 * (valid and invalid), channels with zeros, subnormals and 1e-300 entries,
 * eps from 1e-6 to 1e4. The check must agree with a brute-force reference
 * written here — one that shares no arithmetic with the engine: it takes
 * logarithms after splitting every entry into mantissa and power of two by
 * exact doublings — and must never say "private" where the reference does
 * not. Measures of the same channels stay finite, and every error is a
 * MechError with a code.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPrivacy } from '../../../../src-worker/check/privacy-check';
import { MechError } from '../../../../src-shared/errors';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { DenseChannel } from '../../../../src-worker/mechanism/channel';
import { channelMeasures } from '../../../../src-worker/measure/channel-measures';
import { customMetricDomain } from '../../../../src-worker/metric/custom-metric';
import type { Domain } from '../../../../src-worker/metric/domain';
import { REL_TOL } from '../../../../src-shared/numeric/tolerance';

/** ln v for v > 0 by exact doublings/halvings into [1, 2): independent of how the engine divides. */
function refLn(v: number): number {
  let e = 0;
  let m = v;
  while (m < 1) {
    m *= 2;
    e--;
  }
  while (m >= 2) {
    m /= 2;
    e++;
  }
  return Math.log(m) + e * Math.LN2;
}

interface RefVerdict {
  private: boolean;
  effective: number;
  /** Smallest |ln-ratio - allowed| over comparisons: how close the verdict is to the boundary. */
  margin: number;
}

/** The definition, pair by pair, output by output (SPEC §4 in the docs' words). */
function reference(c: number[][], d: number[][], eps: number): RefVerdict {
  const n = c.length;
  const m = c[0]!.length;
  const logTol = Math.log1p(REL_TOL);
  let priv = true;
  let effective = 0;
  let margin = Infinity;
  for (let x = 0; x < n; x++)
    for (let xp = 0; xp < n; xp++) {
      if (x === xp) continue;
      const dist = d[x]![xp]!;
      if (dist === Infinity) continue;
      for (let y = 0; y < m; y++) {
        const a = c[x]![y]!;
        const b = c[xp]![y]!;
        if (a === 0) continue;
        if (b === 0) {
          priv = false;
          effective = Infinity;
          continue;
        }
        const lr = refLn(a) - refLn(b);
        const allowed = dist === 0 ? logTol : eps * dist + logTol;
        margin = Math.min(margin, Math.abs(lr - allowed) / Math.max(1, Math.abs(allowed)));
        if (lr > allowed) priv = false;
        const eff = dist === 0 ? (lr > logTol ? Infinity : 0) : Math.max(0, lr / dist);
        if (eff > effective) effective = eff;
      }
    }
  return { private: priv, effective, margin };
}

/** Entries the issue names (zeros, subnormals, 1e-300, the smallest normal) and ordinary ones. */
const entry = fc.oneof(
  fc.constantFrom(0, 0, 5e-324, 1e-320, 1e-310, 2 ** -1022, 1e-300, 1e-200, 1e-20),
  fc.double({ min: 1e-6, max: 1, noNaN: true }),
);

const epsilon = fc.double({ min: Math.log(1e-6), max: Math.log(1e4), noNaN: true }).map(Math.exp);

/** A valid metric: shortest paths (Floyd-Warshall) over random positive weights, scaled by 10^k. */
const validMetric = fc
  .record({
    n: fc.integer({ min: 2, max: 5 }),
    seed: fc.array(fc.double({ min: 0.01, max: 10, noNaN: true }), { minLength: 25, maxLength: 25 }),
    scale: fc.integer({ min: -4, max: 4 }).map((k) => 10 ** k),
  })
  .map(({ n, seed, scale }) => {
    const d = Array.from({ length: n }, (_, i) =>
      Array.from({ length: n }, (_, j) => (i === j ? 0 : seed[Math.min(i, j) * 5 + Math.max(i, j)]! * scale)),
    );
    for (let k = 0; k < n; k++)
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) if (d[i]![k]! + d[k]![j]! < d[i]![j]!) d[i]![j] = d[i]![k]! + d[k]![j]!;
    return d;
  });

function domainOf(d: number[][]): Domain {
  const n = d.length;
  return customMetricDomain(
    new Matrix(n, n, Float64Array.from(d.flat())),
    Array.from({ length: n }, (_, i) => `p${i}`),
  );
}

/**
 * Rows normalised to sum 1, keeping exact zeros and tiny entries in place (a row without a large entry gets one in
 * column 0).
 */
function channelRows(raw: number[][]): number[][] {
  return raw.map((r0) => {
    const r = r0.some((v) => v > 1e-6) ? r0.slice() : [0.5, ...r0.slice(1)];
    const big = r.reduce((s, v) => s + (v > 1e-6 ? v : 0), 0);
    const tiny = r.reduce((s, v) => s + (v > 1e-6 ? 0 : v), 0);
    return r.map((v) => (v > 1e-6 ? (v / big) * (1 - tiny) : v));
  });
}

const channelFor = (n: number, m: number) =>
  fc.array(fc.array(entry, { minLength: m, maxLength: m }), { minLength: n, maxLength: n }).map(channelRows);

function dense(c: number[][]): DenseChannel {
  return new DenseChannel(Matrix.fromRows(c));
}

describe('privacy check against a brute-force reference (property-based, seeded)', () => {
  it('agrees with the definition on random metrics, channels with zeros/subnormals/1e-300, eps in [1e-6, 1e4]; never private where the reference is not', () => {
    let unsafe = 0;
    let agreed = 0;
    let borderline = 0;
    fc.assert(
      fc.property(
        validMetric.chain((d) =>
          fc.tuple(
            fc.constant(d),
            fc.integer({ min: 1, max: 5 }).chain((m) => channelFor(d.length, m)),
            epsilon,
          ),
        ),
        ([d, c, eps]) => {
          const r = checkPrivacy(dense(c), domainOf(d), eps, { pairs: 'all' });
          const ref = reference(c, d, eps);
          if (r.passes && !ref.private) unsafe++;
          if (ref.margin < 1e-12) {
            borderline++;
            return; // within rounding of the boundary: either verdict is defensible
          }
          expect(r.passes, `eps ${eps}, metric ${JSON.stringify(d)}, channel ${JSON.stringify(c)}`).toBe(ref.private);
          if (ref.effective === Infinity) expect(r.effectiveEpsilon).toBe(Infinity);
          else
            expect(Math.abs(r.effectiveEpsilon - ref.effective)).toBeLessThanOrEqual(1e-9 * Math.max(1, ref.effective));
          agreed++;
        },
      ),
      { seed: 20261124, numRuns: 3000 },
    );
    expect(unsafe).toBe(0);
    expect(agreed).toBeGreaterThan(2900);
    expect(borderline).toBeLessThan(100);
  });

  it("near the boundary: C[x'][y] = C[x][y] e^(-t eps d) passes exactly when t <= 1 (up to the stated tolerance), tiny entries included", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0.3, 1e-20, 1e-300, 1e-310, 2 ** -1022),
        epsilon,
        fc.double({ min: 1e-3, max: 50, noNaN: true }),
        fc.double({ min: 0.5, max: 1.5, noNaN: true }),
        (a, eps, dist, t) => {
          const b = a * Math.exp(-t * eps * dist);
          if (!(b > 0) || b >= 1 || a >= 1) return;
          const c = [
            [a, 1 - a],
            [b, 1 - b],
          ];
          const d = [
            [0, dist],
            [dist, 0],
          ];
          const ref = reference(c, d, eps);
          const r = checkPrivacy(dense(c), domainOf(d), eps);
          if (r.passes) expect(ref.private || ref.margin < 1e-12).toBe(true);
          if (ref.margin >= 1e-12) expect(r.passes).toBe(ref.private);
        },
      ),
      { seed: 7, numRuns: 3000 },
    );
  });

  it('measures of the same channels stay finite', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 5 }).chain((n) =>
          fc.tuple(
            fc.integer({ min: 1, max: 5 }).chain((m) => channelFor(n, m)),
            fc.array(fc.double({ min: 1e-12, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
          ),
        ),
        ([c, w]) => {
          const s = w.reduce((a, b) => a + b, 0);
          const prior = w.map((v) => v / s);
          const mm = channelMeasures(prior, dense(c));
          for (const k of [
            'vulnerability',
            'posteriorVulnerability',
            'leakage',
            'multiplicativeCapacity',
            'additiveCapacity',
            'minCapacity',
          ] as const) {
            expect(Number.isFinite(mm[k]), `${k} = ${mm[k]}`).toBe(true);
          }
          expect(mm.leakage).toBeGreaterThanOrEqual(-1e-12);
          expect(mm.minCapacity).toBeGreaterThanOrEqual(-1e-12);
        },
      ),
      { seed: 11, numRuns: 1000 },
    );
  });

  it('invalid metrics and channels: every error is a MechError with a code, never a verdict on bad data', () => {
    let errors = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 5 }).chain((n) =>
          fc.tuple(
            fc.array(fc.oneof(fc.double({ min: -1, max: 10 }), fc.constantFrom(NaN, Infinity, -0, 0, 1e-300)), {
              minLength: n * n,
              maxLength: n * n,
            }),
            fc.array(fc.oneof(entry, fc.constantFrom(NaN, -1e-3, Infinity, -1e-13)), {
              minLength: n * 2,
              maxLength: n * 2,
            }),
            epsilon,
          ),
        ),
        ([dm, ch, eps]) => {
          const n = Math.round(Math.sqrt(dm.length));
          try {
            const dom = customMetricDomain(
              new Matrix(n, n, Float64Array.from(dm)),
              Array.from({ length: n }, (_, i) => `p${i}`),
            );
            const c = new DenseChannel(new Matrix(n, 2, Float64Array.from(ch)));
            const r = checkPrivacy(c, dom, eps, { pairs: 'all' });
            // a verdict on data with a NaN/negative/infinite entry would be wrong: those must have thrown
            expect(ch.every((v) => Number.isFinite(v) && v >= -1e-12)).toBe(true);
            expect(typeof r.passes).toBe('boolean');
          } catch (e) {
            errors++;
            expect(e).toBeInstanceOf(MechError);
            expect(typeof (e as MechError).code).toBe('string');
            expect(['invalid-input', 'not-a-metric']).toContain((e as MechError).code);
          }
        },
      ),
      { seed: 3, numRuns: 1500 },
    );
    expect(errors).toBeGreaterThan(100);
  });
});
