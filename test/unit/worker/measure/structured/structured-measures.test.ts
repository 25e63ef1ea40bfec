import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { tightConstraintsStructured } from '../../../../../src-worker/mechanism/implicit/tight-structured';
import type { ImplicitTightChannel } from '../../../../../src-worker/mechanism/implicit/implicit-tight-channel';
import { tightUtility, streamedUtility } from '../../../../../src-worker/measure/structured/tight-utility';
import { minPlusTransform } from '../../../../../src-worker/measure/structured/min-plus-transform';
import { tightExpectedError } from '../../../../../src-worker/measure/structured/tight-expected-error';
import { checkTightPrivacy } from '../../../../../src-worker/measure/structured/tight-privacy-check';
import { streamChannelCsv } from '../../../../../src-worker/measure/structured/channel-csv-stream';
import { toDense } from '../../../../../src-worker/mechanism/channel';
import { uniformPrior } from '../../../../../src-worker/measure/prior';
import { posteriorVulnerability } from '../../../../../src-worker/measure/posterior-vulnerability';
import { expectedDistanceError } from '../../../../../src-worker/measure/expected-distance-error';
import { checkPrivacy } from '../../../../../src-worker/check/privacy-check';
import type { Domain } from '../../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../../src-worker/metric/line';
import { ringDomain } from '../../../../../src-worker/metric/ring';
import { cliqueDomain } from '../../../../../src-worker/metric/clique';
import { planarLaplace } from '../../../../../src-worker/mechanism/planar-laplace';
import { tightChannelMeasures } from '../../../../../src-worker/measure/structured/tight-measures';
import { eccentricities } from '../../../../../src-worker/measure/structured/eccentricity';
import { multiplicativeCapacity, minCapacity } from '../../../../../src-worker/measure/multiplicative-capacity';
import { additiveCapacity } from '../../../../../src-worker/measure/additive-capacity';
import { minEntropyLeakage } from '../../../../../src-worker/measure/min-entropy-leakage';
import { hammingCubeDomain } from '../../../../../src-worker/metric/hamming-cube';
import {
  structuredMeasures,
  structuredExpectedDistanceError,
  structuredPrivacyCheck,
} from '../../../../../src-worker/measure/structured/structured-dispatch';
import { lcg, productDomain, structuredCases } from '../../../support/structured-helpers';

function tight(d: Domain, eps: number): ImplicitTightChannel {
  const r = tightConstraintsStructured(d, eps, { denseBelow: 0 });
  if (!r.exists) throw new Error(`no tight mechanism on ${d.spec} at ${eps}`);
  return r.mechanism.channel;
}

/** Priors: random, peaked (geometric decay from one point), and one with zeros. */
function priors(n: number, seed: number): Float64Array[] {
  const rnd = lcg(seed);
  const norm = (a: Float64Array) => {
    let s = 0;
    for (const v of a) s += v;
    return a.map((v) => v / s);
  };
  const random = norm(Float64Array.from({ length: n }, () => rnd() + 0.01));
  const peaked = norm(Float64Array.from({ length: n }, (_, i) => Math.exp(-0.15 * Math.abs(i - n / 3))));
  const zeros = norm(Float64Array.from({ length: n }, (_, i) => (i % 3 === 1 ? 0 : rnd())));
  return [random, peaked, zeros];
}

const cases: [Domain, number][] = [
  ...structuredCases(14, [13, 11], 60, 51),
  [gridDomain(10, 10, 2.5, 'euclidean'), 0.6],
];

describe('streamed and structured utility (posterior vulnerability, optimal remap)', () => {
  for (const [d, eps] of cases) {
    it(`${d.spec}: uniform and three other priors equal the dense computation`, () => {
      const ch = tight(d, eps);
      const dense = toDense(ch);
      const u = tightUtility(uniformPrior(d.n), ch);
      expect(u.method).toBe('uniform');
      let sz = 0;
      for (const v of ch.z) sz += v;
      expect(u.value).toBeCloseTo(sz / d.n, 14);
      expect(u.value).toBeCloseTo(posteriorVulnerability(uniformPrior(d.n), dense).value, 12);
      for (const pi of priors(d.n, d.n)) {
        const ref = posteriorVulnerability(pi, dense);
        const fast = tightUtility(pi, ch);
        expect(fast.method).not.toBe('uniform');
        expect(Math.abs(fast.value - ref.value) / ref.value).toBeLessThan(1e-10);
        // the remap attains the column maxima
        const row = new Float64Array(d.n);
        for (const y of [0, Math.floor(d.n / 2), d.n - 1]) {
          dense.row(fast.remap[y]!, row);
          expect(pi[fast.remap[y]!]! * row[y]!).toBeCloseTo(ref.columnMax[y]!, 14);
        }
        const brute = tightUtility(pi, ch, { method: 'brute' });
        expect(Math.abs(brute.value - ref.value) / ref.value).toBeLessThan(1e-10);
        const streamed = streamedUtility(pi, ch);
        expect(Math.abs(streamed.value - ref.value) / ref.value).toBeLessThan(1e-12);
      }
    });
  }

  it('uses Dijkstra on graph metrics and the block-minimum quadtree on Euclidean grids; all methods agree exactly', () => {
    const f = Float64Array.from({ length: 100 }, (_, i) => (i * 7919) % 13);
    expect(minPlusTransform(gridDomain(10, 10, 1, 'manhattan'), 0.5, f).method).toBe('dijkstra');
    expect(minPlusTransform(gridDomain(10, 10, 1, 'euclidean'), 0.5, f).method).toBe('quadtree');
    // a non-square grid, a far-away deep minimum (small eps) and zero-prior cells (f = Infinity)
    for (const metric of ['euclidean', 'manhattan', 'chebyshev'] as const) {
      const d = gridDomain(23, 17, 1.5, metric);
      const g = Float64Array.from({ length: d.n }, (_, i) => (i % 11 === 3 ? Infinity : ((i * 2654435761) % 97) / 9));
      g[d.n - 1] = -3;
      const ref = minPlusTransform(d, 0.05, g, { method: 'brute' });
      for (const method of ['quadtree', 'grid-window'] as const) {
        const r = minPlusTransform(d, 0.05, g, { method });
        expect(Array.from(r.value)).toEqual(Array.from(ref.value));
        for (let y = 0; y < d.n; y++) expect(g[r.source[y]!]! + 0.05 * d.distance(r.source[y]!, y)).toBe(r.value[y]);
      }
    }
    const a = minPlusTransform(gridDomain(10, 10, 1, 'chebyshev'), 0.5, f);
    const b = minPlusTransform(gridDomain(10, 10, 1, 'chebyshev'), 0.5, f, { method: 'brute' });
    for (let i = 0; i < 100; i++) expect(a.value[i]).toBeCloseTo(b.value[i]!, 13);
    const c = minPlusTransform(gridDomain(10, 10, 1, 'euclidean'), 0.5, f);
    const e = minPlusTransform(gridDomain(10, 10, 1, 'euclidean'), 0.5, f, { method: 'brute' });
    for (let i = 0; i < 100; i++) expect(c.value[i]).toBeCloseTo(e.value[i]!, 13);
  });

  it('the streamed fallback measures other implicit channels (planar Laplace) exactly, with progress', () => {
    const d = gridDomain(9, 8, 1, 'euclidean');
    const mech = planarLaplace(d, 0.8);
    const [pi] = priors(d.n, 5);
    const ref = posteriorVulnerability(pi!, toDense(mech.channel));
    const seen: number[] = [];
    const s = streamedUtility(pi!, mech.channel, (f) => seen.push(f));
    expect(Math.abs(s.value - ref.value) / ref.value).toBeLessThan(1e-13);
    expect(Array.from(s.remap)).toEqual(Array.from(ref.remap));
    expect(seen).toEqual([0, 64 / 72]);
  });

  it('rejects a prior of the wrong size or not summing to 1', () => {
    const ch = tight(gridDomain(5, 5), 2);
    expect(() => tightUtility(new Float64Array(24).fill(1 / 24), ch)).toThrow(/24 entries but the channel has 25/);
    expect(() => tightUtility(new Float64Array(25).fill(0.5), ch)).toThrow(/sums to/);
  });
});

describe('summary measures of the tight mechanism from z and the metric', () => {
  for (const [d, eps] of [
    ...cases,
    [hammingCubeDomain(7), 0.6] as [Domain, number],
    [cliqueDomain(30), 1] as [Domain, number],
  ]) {
    it(`${d.spec}: capacities, leakage and utility equal the dense measures`, () => {
      const ch = tight(d, eps);
      const dense = toDense(ch);
      for (const pi of [uniformPrior(d.n), priors(d.n, 11)[0]!]) {
        const m = tightChannelMeasures(pi, ch);
        expect(m.multiplicativeCapacity).toBeCloseTo(multiplicativeCapacity(dense), 11);
        expect(m.minCapacity).toBeCloseTo(minCapacity(dense), 11);
        expect(m.additiveCapacity).toBeCloseTo(additiveCapacity(dense), 11);
        expect(m.leakage).toBeCloseTo(minEntropyLeakage(pi, dense), 10);
        expect(m.utility).toBeCloseTo(posteriorVulnerability(pi, dense).value, 12);
      }
    });
  }

  it('eccentricities by structure equal the O(n^2) scan', () => {
    for (const d of [
      gridDomain(7, 9, 1, 'euclidean'),
      gridDomain(6, 5, 2, 'chebyshev'),
      lineDomain(9),
      ringDomain(10),
      ringDomain(11),
      productDomain(lineDomain(3), 3),
      cliqueDomain(5),
    ]) {
      const fast = eccentricities(d);
      expect(fast.method).not.toBe('scan');
      const bare: Domain = { ...d, structure: {} };
      const slow = eccentricities(bare);
      expect(slow.method).toBe('scan');
      expect(Array.from(fast.ecc)).toEqual(Array.from(slow.ecc));
    }
  });
});

describe('dispatch for callers holding a plain RowSource', () => {
  it('structured answers for the implicit tight channel, null for anything else or another domain', () => {
    const d = gridDomain(8, 8, 1, 'manhattan');
    const ch = tight(d, 0.6);
    const dense = toDense(ch);
    const pi = uniformPrior(d.n);
    expect(structuredMeasures(pi, ch)!.utility).toBeCloseTo(posteriorVulnerability(pi, dense).value, 13);
    expect(structuredExpectedDistanceError(pi, ch, d)!).toBeCloseTo(expectedDistanceError(pi, dense, d), 12);
    expect(structuredPrivacyCheck(ch, d, 0.6)!.effectiveEpsilon).toBeCloseTo(0.6, 13);
    expect(structuredMeasures(pi, dense)).toBeNull();
    expect(structuredPrivacyCheck(dense, d, 0.6)).toBeNull();
    expect(structuredPrivacyCheck(ch, gridDomain(8, 8, 1, 'euclidean'), 0.6)).toBeNull();
  });
});

describe('expected distance error by convolution', () => {
  for (const [d, eps] of cases) {
    it(`${d.spec}: equals the dense double sum for uniform and other priors`, () => {
      const ch = tight(d, eps);
      const dense = toDense(ch);
      for (const pi of [uniformPrior(d.n), ...priors(d.n, 7)]) {
        const ref = expectedDistanceError(pi, dense, d);
        const fast = tightExpectedError(pi, ch);
        expect(fast.method).toBe(ch.op.method === 'lattice' ? 'fft' : ch.op.method);
        expect(Math.abs(fast.value - ref) / ref).toBeLessThan(1e-9);
      }
    });
  }
});

describe('privacy check from the structure', () => {
  for (const [d, eps] of cases) {
    it(`${d.spec}: effective eps is eps exactly and agrees with the generic pairwise check`, () => {
      const ch = tight(d, eps);
      const s = checkTightPrivacy(ch, eps);
      expect(s.passes).toBe(true);
      expect(s.maxRatio).toBeCloseTo(1, 12);
      expect(s.effectiveEpsilon).toBeCloseTo(eps, 12);
      expect(s.verified).toBeGreaterThan(0);
      const generic = checkPrivacy(toDense(ch), d, eps);
      expect(generic.effectiveEpsilon).toBeCloseTo(s.effectiveEpsilon, 6);
      // against a smaller eps it fails
      const strict = checkTightPrivacy(ch, eps * 0.9);
      expect(strict.passes).toBe(false);
      expect(strict.effectiveEpsilon).toBeCloseTo(eps, 12);
    });
  }

  it('sees a broken triangle inequality (a lattice "metric" that is not one)', () => {
    const base = lineDomain(12);
    // d(k) = k^2 violates the triangle inequality: the verification finds ratio > 1
    const bad: Domain = {
      ...base,
      spec: 'bad-line',
      distance: (i, j) => (i - j) ** 2,
      structure: { ...base.structure, lattice: { shape: [12], periodic: false, offsetDistance: (dd) => dd[0]! ** 2 } },
    };
    const r = tightConstraintsStructured(bad, 1.5, { method: 'lattice' });
    expect(r.exists).toBe(true);
    if (!r.exists) return;
    const s = checkTightPrivacy(r.mechanism.channel, 1.5);
    expect(s.maxRatio).toBeGreaterThan(1);
    expect(s.passes).toBe(false);
  });
});

describe('measures on an unstructured implicit channel (clique, metric operator)', () => {
  it('clique:500 at ln 2 is randomised response: utility 2/(N+1) uniform, expected error, effective eps', () => {
    const N = 500;
    const d = cliqueDomain(N);
    const r = tightConstraintsStructured(d, Math.LN2);
    if (!r.exists) throw new Error('should exist');
    const ch = r.mechanism.channel;
    expect(ch.op.method).toBe('metric');
    expect(tightUtility(uniformPrior(N), ch).value).toBeCloseTo(2 / (N + 1), 14);
    // E[d] = P(report != secret) = (N - 1) / (N + 1) for every secret
    expect(tightExpectedError(uniformPrior(N), ch).value).toBeCloseTo((N - 1) / (N + 1), 12);
    const [pi] = priors(N, 3);
    const ref = posteriorVulnerability(pi!, toDense(ch)).value;
    expect(Math.abs(tightUtility(pi!, ch).value - ref) / ref).toBeLessThan(1e-12);
    const c = checkTightPrivacy(ch, Math.LN2);
    expect(c.passes).toBe(true);
    expect(c.effectiveEpsilon).toBeCloseTo(Math.LN2, 14);
  });
});

describe('streamed CSV export', () => {
  it('streams a channel to CSV in chunks that parse back to the same numbers and labels', async () => {
    const d = gridDomain(7, 6, 1, 'euclidean');
    const ch = tight(d, 1.5);
    const dense = toDense(ch);
    const dir = mkdtempSync(join(tmpdir(), 'fast-csv-'));
    const path = join(dir, 'tight.csv');
    const progress: number[] = [];
    const res = await streamChannelCsv(ch, path, { chunkRows: 5, onProgress: (f) => progress.push(f) });
    expect(res.rows).toBe(42);
    expect(progress).toHaveLength(9); // ceil(42 / 5) chunks
    expect(progress.at(-1)).toBe(1);
    const recs = parse(readFileSync(path, 'utf8')) as string[][];
    expect(recs).toHaveLength(43);
    expect(recs[0]![0]).toBe('');
    expect(recs[0]!.slice(1)).toEqual(dense.colLabels);
    for (let i = 0; i < 42; i++) {
      expect(recs[i + 1]![0]).toBe(d.label(i));
      for (let j = 0; j < 42; j++) expect(Number(recs[i + 1]![j + 1])).toBe(dense.matrix.get(i, j));
    }
    expect(res.bytes).toBe(readFileSync(path).length);
    expect(existsSync(`${path}.partial`)).toBe(false);
  });

  it('export to an unwritable path is a clear error; a cancelled export stops', async () => {
    const ch = tight(lineDomain(20), 1);
    // unwritable whoever runs it: under a regular file the test makes (a folder named once could have been created by
    // --out)
    const plain = join(mkdtempSync(join(tmpdir(), 'ms-unwritable-')), 'plain');
    writeFileSync(plain, '');
    const target = join(plain, 'x.csv');
    await expect(streamChannelCsv(ch, target)).rejects.toThrow(`cannot write ${target}`);
    const ac = new AbortController();
    ac.abort();
    const dir = mkdtempSync(join(tmpdir(), 'fast-csv-'));
    await expect(streamChannelCsv(ch, join(dir, 'c.csv'), { chunkRows: 4, signal: ac.signal })).rejects.toThrow(
      /cancelled after 4 rows/,
    );
    // nothing is left behind: neither a truncated file nor its .partial
    expect(existsSync(join(dir, 'c.csv'))).toBe(false);
    expect(existsSync(join(dir, 'c.csv.partial'))).toBe(false);
  });
});
