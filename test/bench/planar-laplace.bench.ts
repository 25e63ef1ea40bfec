/**
 * Planar Laplace offset tables (SPEC §2) and the row-by-row privacy check
 * (SPEC §4): build times, per-row costs, and the gain of computing the
 * translation-invariant tables once over integrating every entry directly
 * (the baseline, measured in the same run on the same grid).
 */
import { factsOf } from '../../src-worker/mechanism/facts';
import { checkGridOffsetPrivacy } from '../../src-worker/check/grid-offset-check';
import { checkPrivacy } from '../../src-worker/check/privacy-check';
import { planarLaplace } from '../../src-worker/mechanism/planar-laplace';
import { normLaplaceRegion } from '../../src-worker/mechanism/planar/norm-laplace-region';
import { truncatedGeometric } from '../../src-worker/mechanism/truncated-geometric';
import { gridDomain } from '../../src-worker/metric/grid';
import { lineDomain } from '../../src-worker/metric/line';

function time<T>(f: () => T): [T, number] {
  const t = performance.now();
  const r = f();
  return [r, performance.now() - t];
}

export default async function bench(): Promise<void> {
  // 1. Tables once vs direct quadrature of each entry (one row, extrapolated to all rows).
  const R = 60;
  const eps = 0.3;
  const d = gridDomain(R, R);
  const [m, buildMs] = time(() => planarLaplace(d, eps));
  const buf = new Float64Array(R * R);
  const [, allRowsMs] = time(() => {
    for (let i = 0; i < R * R; i++) m.channel.row(i, buf);
  });
  const I = Infinity;
  const r0 = 17;
  const c0 = 23;
  const [, directRowMs] = time(() => {
    for (let q = 0; q < R; q++)
      for (let s = 0; s < R; s++)
        normLaplaceRegion(
          'euclidean',
          eps,
          q === 0 ? -I : q - r0 - 0.5,
          q === R - 1 ? I : q - r0 + 0.5,
          s === 0 ? -I : s - c0 - 0.5,
          s === R - 1 ? I : s - c0 + 0.5,
        );
  });
  const directAll = directRowMs * R * R;
  console.log(
    `euclidean ${R}x${R}, eps*step ${eps}: tables ${buildMs.toFixed(0)} ms (${factsOf(m, 'planar-laplace').integrations} integrations, ${((buildMs * 1000) / factsOf(m, 'planar-laplace').integrations).toFixed(1)} us each), all ${R * R} rows ${allRowsMs.toFixed(0)} ms`,
  );
  console.log(
    `  baseline: direct quadrature of one row ${directRowMs.toFixed(0)} ms -> all rows ~${(directAll / 1000).toFixed(0)} s; ratio baseline / tables+rows = ${(directAll / (buildMs + allRowsMs)).toFixed(0)}x`,
  );

  // 2. Table build scaling (Euclidean) and closed-form Manhattan on a 1000 x 1000 grid.
  for (const n of [150, 300, 1000]) {
    const [mm, ms] = time(() => planarLaplace(gridDomain(n, n), 0.2));
    console.log(
      `euclidean ${n}x${n}: tables ${ms.toFixed(0)} ms for ${factsOf(mm, 'planar-laplace').integrations} integrations`,
    );
  }
  const big = gridDomain(1000, 1000, 1, 'manhattan');
  const [mb, mbMs] = time(() => planarLaplace(big, 0.05));
  const row = new Float64Array(1_000_000);
  const [, rowsMs] = time(() => {
    for (let i = 0; i < 20; i++) mb.channel.row(i * 49_999, row);
  });
  console.log(
    `manhattan 1000x1000: build ${mbMs.toFixed(1)} ms, ${(rowsMs / 20).toFixed(1)} ms per row of 10^6 entries`,
  );

  // 3. Privacy check throughput: edges (line) vs all pairs on the same channel.
  const N = 600;
  const tg = truncatedGeometric(lineDomain(N), 0.5);
  const [re, edgeMs] = time(() => checkPrivacy(tg.channel, lineDomain(N), 0.5));
  const [ra, allMs] = time(() => checkPrivacy(tg.channel, lineDomain(N), 0.5, { pairs: 'all' }));
  console.log(
    `check TG line:${N}: edges ${edgeMs.toFixed(0)} ms (eff ${re.effectiveEpsilon.toFixed(12)}), all pairs ${allMs.toFixed(0)} ms (eff ${ra.effectiveEpsilon.toFixed(12)}); ratio ${(allMs / edgeMs).toFixed(0)}x`,
  );

  // 4. Planar Laplace check by grid offsets vs all pairs (baseline, same channel, same run).
  for (const n of [20, 30]) {
    const g = gridDomain(n, n, 0.5);
    const pl = planarLaplace(g, Math.log(4));
    const [so, offMs] = time(() => checkGridOffsetPrivacy(pl.channel, g, Math.log(4)));
    const [sa, allPairsMs] = time(() => checkPrivacy(pl.channel, g, Math.log(4), { pairs: 'all' }));
    console.log(
      `check planar Laplace ${n}x${n}: grid offsets ${offMs.toFixed(0)} ms (eff ${so.effectiveEpsilon.toFixed(12)}), all pairs ${allPairsMs.toFixed(0)} ms (eff ${sa.effectiveEpsilon.toFixed(12)}); ratio ${(allPairsMs / offMs).toFixed(0)}x`,
    );
  }
  for (const n of [60, 100]) {
    const g = gridDomain(n, n, 0.5);
    const pl = planarLaplace(g, Math.log(4));
    const [so, offMs] = time(() => checkGridOffsetPrivacy(pl.channel, g, Math.log(4)));
    const allPairs = ((g.n * (g.n - 1)) / 2) * g.n;
    console.log(
      `check planar Laplace ${n}x${n}: grid offsets ${(offMs / 1000).toFixed(1)} s, ${so.pairsChecked.toExponential(2)} point pairs (all pairs would compare ${allPairs.toExponential(2)} entries), private ${so.passes}, exact ${so.exact}`,
    );
  }
}
