/**
 * Fast structured solvers (npm run bench -- fast): Phi z = 1 by dense
 * Cholesky versus FFT + preconditioned CG on grids, the preconditioner's
 * effect, and the fast path alone on 100 x 100 and 1000 x 1000 grids with
 * time and peak memory (rss / arrayBuffers sampled at every CG iteration).
 * Goals: 100 x 100 under 1 s, 1000 x 1000 under 60 s.
 */
import { solvePhi, type SolvePhiResult } from '../../src-worker/phi/phi-solve';
import { tightConstraintsStructured } from '../../src-worker/mechanism/implicit/tight-structured';
import { tightUtility } from '../../src-worker/measure/structured/tight-utility';
import { tightChannelMeasures } from '../../src-worker/measure/structured/tight-measures';
import { minPlusTransform } from '../../src-worker/measure/structured/min-plus-transform';
import { tightExpectedError } from '../../src-worker/measure/structured/tight-expected-error';
import { checkTightPrivacy } from '../../src-worker/measure/structured/tight-privacy-check';
import { uniformPrior } from '../../src-worker/measure/prior';
import { gridDomain } from '../../src-worker/metric/grid';
import type { GridMetric } from '../../src-worker/metric/domain';
import { gc, MemSampler } from './mem-sampler';

function maxRelDiff(a: Float64Array, b: Float64Array): number {
  let e = 0;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    e = Math.max(e, Math.abs(a[i]! - b[i]!));
    m = Math.max(m, Math.abs(b[i]!));
  }
  return e / m;
}

function timed<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const r = f();
  return [r, performance.now() - t0];
}

function line(r: SolvePhiResult, ms: number): string {
  return `${r.method.padEnd(14)} ${ms.toFixed(0).padStart(7)} ms  it ${String(r.iterations).padStart(3)}  residual ${r.relResidual.toExponential(1)}`;
}

export default async function fastBench(): Promise<void> {
  const eps = 1;
  console.log(`\n-- Phi z = 1, Euclidean grid, eps = ${eps}: dense Cholesky vs FFT + PCG (same run) --`);
  console.log('grid      n      dense (build + solve)            fast                              ratio   rel. diff');
  for (const s of [30, 40, 50, 60, 70]) {
    const d = gridDomain(s, s, 1, 'euclidean');
    const ones = new Float64Array(d.n).fill(1);
    gc();
    const [dense, tDense] = timed(() => solvePhi(d, eps, ones, { method: 'dense' }));
    const [fast, tFast] = timed(() => solvePhi(d, eps, ones, { method: 'lattice' }));
    console.log(
      `${`${s}x${s}`.padEnd(9)} ${String(d.n).padEnd(6)} ${line(dense, tDense)}  ${line(fast, tFast)}  ${(tDense / tFast).toFixed(0).padStart(5)}x  ${maxRelDiff(fast.x, dense.x).toExponential(1)}`,
    );
  }

  console.log(
    '\n-- preconditioner: 100 x 100, FFT products, CG iterations with and without the circulant preconditioner --',
  );
  for (const metric of ['euclidean', 'manhattan', 'chebyshev'] as GridMetric[]) {
    for (const e of [0.2, 1]) {
      const d = gridDomain(100, 100, 1, metric);
      const ones = new Float64Array(d.n).fill(1);
      const [p, tp] = timed(() => solvePhi(d, e, ones, { method: 'lattice' }));
      const [c, tc] = timed(() => solvePhi(d, e, ones, { method: 'lattice', precondition: false, maxIter: 5000 }));
      console.log(
        `${metric.padEnd(10)} eps ${String(e).padEnd(4)} PCG ${String(p.iterations).padStart(4)} it ${tp.toFixed(0).padStart(5)} ms | CG ${String(c.iterations).padStart(4)} it ${tc.toFixed(0).padStart(5)} ms | speed-up ${(tc / tp).toFixed(1)}x`,
      );
    }
  }

  console.log('\n-- fast path, tight-constraints mechanism + uniform utility + expected error + privacy check --');
  for (const [size, metric, e] of [
    [100, 'euclidean', 1],
    [100, 'manhattan', 0.5],
    [100, 'chebyshev', 1.5],
    [1000, 'euclidean', 1],
    [1000, 'manhattan', 0.5],
  ] as [number, GridMetric, number][]) {
    const mem = new MemSampler();
    const d = gridDomain(size, size, 1, metric);
    const [res, tSolve] = timed(() => tightConstraintsStructured(d, e, { onIteration: mem.sample }));
    mem.sample();
    let extra: string;
    if (res.exists) {
      const ch = res.mechanism.channel;
      const pi = uniformPrior(d.n);
      const [m, tm] = timed(() => tightChannelMeasures(pi, ch));
      // a bump prior (Gaussian, sigma = size/6, centred at a third of the grid): the distance-transform path
      const bump = new Float64Array(d.n);
      let bs = 0;
      for (let r = 0; r < size; r++)
        for (let c = 0; c < size; c++)
          bs += bump[r * size + c] = Math.exp(-((r - size / 3) ** 2 + (c - size / 3) ** 2) / (2 * (size / 6) ** 2));
      for (let i = 0; i < d.n; i++) bump[i] = bump[i]! / bs;
      const [ub, tub] = timed(() => tightUtility(bump, ch));
      const [ee, te] = timed(() => tightExpectedError(pi, ch));
      mem.sample();
      const [pc, tc] = timed(() => checkTightPrivacy(ch, e));
      extra =
        `uniform: utility ${m.utility.toFixed(6)}, mult. cap. ${m.multiplicativeCapacity.toFixed(2)}, add. cap. ${m.additiveCapacity.toFixed(6)} (${tm.toFixed(0)} ms); ` +
        `bump prior utility ${ub.value.toFixed(6)} (${ub.method}, ${tub.toFixed(0)} ms); E[d] ${ee.value.toFixed(4)} (${te.toFixed(0)} ms); eff. eps ${pc.effectiveEpsilon.toPrecision(12)} (${tc.toFixed(0)} ms)`;
    } else extra = `does not exist: min z ${res.minZ.toExponential(3)} at ${res.argMinLabel}`;
    const s = res.solve;
    console.log(
      `${`${size}x${size}`.padEnd(9)} ${metric.padEnd(10)} eps ${String(e).padEnd(4)} total ${tSolve.toFixed(0).padStart(6)} ms (setup ${s.setupMs.toFixed(0)}, solve ${s.timeMs.toFixed(0)}), ${s.method} ${s.iterations} it, residual ${s.relResidual.toExponential(1)}; ${mem.text()}`,
    );
    console.log(`          ${extra}`);
    console.log(
      `          goal ${size === 100 ? '< 1 s' : '< 60 s'}: ${tSolve < (size === 100 ? 1000 : 60000) ? 'met' : 'MISSED'}`,
    );
  }

  console.log(
    '\n-- weighted distance transform for the bump prior, Euclidean 300 x 300, eps 0.1 (a wide search): quadtree vs ring window --',
  );
  {
    const size = 300;
    const d = gridDomain(size, size, 1, 'euclidean');
    const f = new Float64Array(d.n);
    for (let r = 0; r < size; r++)
      for (let c = 0; c < size; c++)
        f[r * size + c] = ((r - size / 3) ** 2 + (c - size / 3) ** 2) / (2 * (size / 6) ** 2);
    const [q, tq] = timed(() => minPlusTransform(d, 0.1, f, { method: 'quadtree' }));
    const [w, tw] = timed(() => minPlusTransform(d, 0.1, f, { method: 'grid-window' }));
    let same = true;
    for (let i = 0; i < d.n; i++) if (q.value[i] !== w.value[i]) same = false;
    console.log(
      `quadtree ${tq.toFixed(0)} ms (${q.work} blocks), window ${tw.toFixed(0)} ms (${w.work} cells): ${(tw / tq).toFixed(0)}x, identical ${same}`,
    );
    const d2 = gridDomain(1000, 1000, 1, 'euclidean');
    const f2 = new Float64Array(d2.n);
    for (let r = 0; r < 1000; r++)
      for (let c = 0; c < 1000; c++) f2[r * 1000 + c] = ((r - 333) ** 2 + (c - 333) ** 2) / (2 * (1000 / 6) ** 2);
    const [q2, tq2] = timed(() => minPlusTransform(d2, 0.1, f2));
    console.log(`1000 x 1000, eps 0.1: ${q2.method} ${tq2.toFixed(0)} ms (${q2.work} blocks)`);
  }

  console.log('\n-- Chebyshev, a harder eps (wide kernel, most PCG iterations of the three metrics) --');
  for (const size of [300, 1000]) {
    const mem = new MemSampler();
    const d = gridDomain(size, size, 1, 'chebyshev');
    const ones = new Float64Array(d.n).fill(1);
    const [r, t] = timed(() => solvePhi(d, 0.5, ones, { onIteration: mem.sample }));
    console.log(`${size}x${size} eps 0.5: ${line(r, t)}; ${mem.text()}`);
  }
}
