import { describe, expect, it } from 'vitest';
import { expectedLoss } from '../../../../src-worker/jobs/engine';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { DenseChannel, type RowSource } from '../../../../src-worker/mechanism/channel';
import { planarLaplace } from '../../../../src-worker/mechanism/planar-laplace';
import { buildLoss } from '../../../../src-worker/measure/loss-spec';
import { optimalRemap } from '../../../../src-worker/measure/optimal-remap';
import type { Domain, GridMetric } from '../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { seededRandom } from '../../../../src-shared/numeric/seeded-random';

/** A random row-stochastic channel with a few heavy entries per row (posteriors with distinct best guesses). */
function randomChannel(n: number, seed: number): DenseChannel {
  const r = seededRandom(seed);
  const m = new Matrix(n, n);
  for (let x = 0; x < n; x++) {
    let s = 0;
    for (let y = 0; y < n; y++) {
      const v = r() ** 6;
      m.set(x, y, v);
      s += v;
    }
    for (let y = 0; y < n; y++) m.set(x, y, m.get(x, y) / s);
  }
  return new DenseChannel(m);
}

function randomPrior(n: number, seed: number): Float64Array {
  const r = seededRandom(seed);
  const p = new Float64Array(n).map(() => r() ** 3 + 1e-4);
  const s = p.reduce((a, b) => a + b, 0);
  return p.map((v) => v / s);
}

/** The full scan of the measure: every guess for every output (measure/optimal-remap.ts). */
function fullScan(
  prior: Float64Array,
  ch: RowSource,
  kind: 'dist' | 'dist2',
  domain: Domain,
): { value: number; remap: string[] } {
  const l = buildLoss({ kind }, domain);
  const r = optimalRemap(prior, ch, l);
  return { value: r.value, remap: Array.from(r.remap, (w) => l.guessLabel(w)) };
}

describe('expected loss of a distance loss on a grid: the certified search equals the full scan bit for bit', () => {
  const metrics: GridMetric[] = ['euclidean', 'manhattan', 'chebyshev'];
  const cases = metrics.flatMap((metric) => (['dist', 'dist2'] as const).map((kind) => ({ metric, kind })));
  it.each(cases)('$metric grid, $kind loss: dense random channels and planar Laplace', ({ metric, kind }) => {
    for (const [rows, cols, seed] of [
      [5, 7, 1],
      [8, 8, 2],
      [1, 9, 3],
    ] as const) {
      const domain = gridDomain(rows, cols, 0.5, metric);
      const prior = randomPrior(domain.n, seed);
      for (const ch of [randomChannel(domain.n, seed + 10), planarLaplace(domain, 0.8).channel]) {
        const fast = expectedLoss(prior, ch, { kind }, domain);
        const slow = fullScan(prior, ch, kind, domain);
        expect(fast.value).toBe(slow.value);
        expect(fast.remap).toEqual(slow.remap);
      }
    }
  });

  it('is cancelled by its signal', () => {
    const domain = gridDomain(30, 30);
    const ac = new AbortController();
    ac.abort();
    expect(() =>
      expectedLoss(randomPrior(900, 4), planarLaplace(domain, 1).channel, { kind: 'dist' }, domain, ac.signal),
    ).toThrow(/cancel/);
  });
});
