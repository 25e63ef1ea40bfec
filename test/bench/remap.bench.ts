/**
 * Remapped mechanisms and noisy data out (npm run bench -- remap).
 *
 * 1. Bayesian remap of planar Laplace (Euclidean grid, loss dist) with a
 *    lumpy non-uniform prior: whole columns with certified guesses (exact,
 *    bit-for-bit the measure) and windowed columns, on 100 x 100 and
 *    1000 x 1000; time and peak memory (rss / array buffers sampled at every
 *    progress report). Baseline: the full scan of the existing measure
 *    (n guesses per output), timed on a sample of outputs and extrapolated.
 *    Goals: 100 x 100 in seconds, 1000 x 1000 in minutes, no n x n array.
 * 2. Apply: 10^6 secrets through the sampler (crypto and seeded), CDF with
 *    binary search versus alias tables on the same rows, and the streaming
 *    CSV release end to end (rows/s).
 *
 * Set REMAP_BENCH_BIG=0 to skip the 1000 x 1000 runs (minutes).
 */
import { readCsvStream, releaseCsv } from '../../src-worker/data/apply';
import { ChannelSampler, cryptoBits } from '../../src-worker/data/channel-sampler';
import { planarLaplace } from '../../src-worker/mechanism/planar-laplace';
import { DenseChannel } from '../../src-worker/mechanism/channel';
import { Matrix } from '../../src-worker/linalg/matrix';
import { bestByScan } from '../../src-worker/measure/guess-function';
import { buildLoss } from '../../src-worker/measure/loss-spec';
import { gridDomain } from '../../src-worker/metric/grid';
import { seededRandom } from '../../src-shared/numeric/seeded-random';
import { type BayesRemapResult, columnAccessForMechanism, remapMechanism } from '../../src-worker/remap/bayes-remap';
import { MB, MemSampler } from './mem-sampler';

/** City-like prior: a few Gaussian hot spots on a floor (smoothing), normalised. */
function cityPrior(R: number, C: number, seed: number): Float64Array {
  const rnd = seededRandom(seed);
  const spots = Array.from(
    { length: 6 },
    () => [rnd() * R, rnd() * C, (0.03 + 0.08 * rnd()) * Math.min(R, C), 0.2 + rnd()] as const,
  );
  const p = new Float64Array(R * C);
  let s = 0;
  for (let r = 0; r < R; r++)
    for (let c = 0; c < C; c++) {
      let v = 1e-4;
      for (const [sr, sc, w, a] of spots) v += a * Math.exp(-((r - sr) ** 2 + (c - sc) ** 2) / (2 * w * w));
      p[r * C + c] = v;
      s += v;
    }
  for (let i = 0; i < p.length; i++) p[i] = p[i]! / s;
  return p;
}

function report(label: string, res: BayesRemapResult, mem: MemSampler, setupMs: number): void {
  const w = res.stats.window;
  console.log(
    `${label}: ${res.method}, ${(res.stats.timeMs / 1000).toFixed(1)} s (+ ${(setupMs / 1000).toFixed(1)} s mechanism), ${(res.stats.evaluations / res.stats.columns).toFixed(2)} guesses evaluated per output (max ${res.stats.maxEvaluationsPerColumn})` +
      (w
        ? `, window radius ${w.startRadius} (${w.meanCells.toFixed(0)} cells per output, ${w.widened} widened, max radius ${w.maxRadius})`
        : '') +
      `; loss ${res.originalLoss?.toFixed(6)} -> ${res.remappedLoss.toFixed(6)} (${(100 * (1 - res.remappedLoss / res.originalLoss!)).toFixed(2)}% less, slack ${res.valueSlack.toExponential(1)}); ${mem}`,
  );
}

export default async function bench(): Promise<void> {
  // 1. Remap of planar Laplace.
  for (const [R, eps, modes] of [
    [100, 0.5, ['off', 'on']],
    [100, 1, ['off', 'on']],
    [1000, 1, ['auto']],
    [1000, 0.5, ['auto']],
  ] as const) {
    if (R >= 1000 && process.env.REMAP_BENCH_BIG === '0') continue;
    const d = gridDomain(R, R);
    const pi = cityPrior(R, R, 3);
    const t0 = performance.now();
    const mech = planarLaplace(d, eps);
    const setupMs = performance.now() - t0;
    for (const mode of modes) {
      const mem = new MemSampler();
      let tenth = 0;
      const res = remapMechanism(
        mech,
        d,
        pi,
        { kind: 'dist' },
        {
          window: mode,
          onProgress: (done, total) => {
            mem.sample();
            if (R >= 1000 && done * 10 >= (tenth + 1) * total) {
              tenth = Math.floor((done * 10) / total);
              process.stderr.write(
                `  ${R}x${R} eps ${eps}: ${tenth * 10}% after ${((performance.now() - t0 - setupMs) / 1000).toFixed(0)} s\n`,
              );
            }
          },
        },
      );
      mem.sample();
      report(`planar Laplace ${R}x${R} eps ${eps}, window ${mode}`, res, mem, setupMs);
    }
    if (R === 100) {
      // Baseline: the existing measure's full scan (all n guesses per output), on 4 outputs, extrapolated.
      const loss = buildLoss({ kind: 'dist' }, d);
      const cols = columnAccessForMechanism(mech, d)!;
      const col = new Float64Array(d.n);
      const t1 = performance.now();
      const k = 4;
      for (let t = 0; t < k; t++) {
        const y = Math.floor((t * d.n) / k);
        cols.column(y, col);
        for (let x = 0; x < d.n; x++) col[x] = pi[x]! * col[x]!;
        bestByScan(loss, col);
      }
      const perCol = (performance.now() - t1) / k;
      console.log(
        `  baseline full scan: ${perCol.toFixed(0)} ms per output -> ~${((perCol * d.n) / 1000).toFixed(0)} s for all ${d.n} outputs`,
      );
    }
  }

  // 2. Apply: 10^6 secrets.
  const d = gridDomain(100, 100);
  const mech = planarLaplace(d, 0.5);
  const N = 1_000_000;
  const pi = cityPrior(100, 100, 4);
  // the secrets drawn from the prior by the engine's own sampler: a one-row channel whose row is the prior
  const priorSampler = new ChannelSampler(new DenseChannel(new Matrix(1, d.n, pi)), { seed: 9 });
  const secrets = Int32Array.from(priorSampler.sampleAll(new Int32Array(N)));
  for (const seeded of [false, true]) {
    const mem = new MemSampler();
    const s = new ChannelSampler(mech.channel, seeded ? { seed: 1 } : {});
    const t = performance.now();
    let chk = 0;
    let i = 0;
    for (const o of s.sampleAll(secrets)) {
      chk += o;
      if ((i++ & 65535) === 0) mem.sample();
    }
    const ms = performance.now() - t;
    const st = s.stats();
    console.log(
      `apply 10^6 secrets on 100x100 (${seeded ? 'seeded' : 'crypto'}): ${((N / ms) * 1000).toFixed(0)} rows/s, ${st.rowsBuilt} rows built, ${st.cachedRows} cached, ${st.exactDraws} exact draws; ${mem} (checksum ${chk % 997})`,
    );
  }
  // CDF + binary search vs alias tables on the same cached rows (draws only).
  {
    const rows = 200;
    const m = d.n;
    const cum: Float64Array[] = [];
    const prob: Float64Array[] = [];
    const alias: Int32Array[] = [];
    const buf = new Float64Array(m);
    let tBuildCdf = 0;
    let tBuildAlias = 0;
    for (let r = 0; r < rows; r++) {
      mech.channel.row(r * 50, buf);
      let t = performance.now();
      const c = new Float64Array(m);
      let s = 0;
      for (let y = 0; y < m; y++) c[y] = s += buf[y]!;
      cum.push(c);
      tBuildCdf += performance.now() - t;
      t = performance.now();
      const [pr, al] = aliasTable(buf, s);
      prob.push(pr);
      alias.push(al);
      tBuildAlias += performance.now() - t;
    }
    const u = cryptoBits();
    const D = 2_000_000;
    let t = performance.now();
    let chk = 0;
    for (let i = 0; i < D; i++) {
      const c = cum[i % rows]!;
      const target = (u.bits(52) / 2 ** 52) * c[m - 1]!;
      let lo = 0;
      let hi = m - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (c[mid]! > target) hi = mid;
        else lo = mid + 1;
      }
      chk += lo;
    }
    const cdfMs = performance.now() - t;
    t = performance.now();
    for (let i = 0; i < D; i++) {
      const k = i % rows;
      const v = (u.bits(52) / 2 ** 52) * m;
      const j = Math.floor(v);
      chk += v - j < prob[k]![j]! ? j : alias[k]![j]!;
    }
    const aliasMs = performance.now() - t;
    console.log(
      `draws on rows of ${m}: CDF + binary search ${((D / cdfMs) * 1000).toFixed(0)}/s (build ${(tBuildCdf / rows).toFixed(2)} ms/row), alias ${((D / aliasMs) * 1000).toFixed(0)}/s (build ${(tBuildAlias / rows).toFixed(2)} ms/row) (checksum ${chk % 7})`,
    );
  }
  // End to end: a secrets CSV of 10^6 labelled rows (generated lazily) to a released CSV (discarded).
  {
    async function* lines(): AsyncGenerator<string> {
      yield 'cell\n';
      for (let i = 0; i < N; i += 10_000) {
        let s = '';
        for (let j = i; j < i + 10_000; j++) s += `"${d.label(secrets[j]!)}"\n`;
        yield s;
      }
    }
    const mem = new MemSampler();
    let bytes = 0;
    const res = await releaseCsv(
      readCsvStream(lines(), 'secrets.csv'),
      mech.channel,
      d,
      (txt) => {
        bytes += txt.length;
        mem.sample();
      },
      'secrets.csv',
    );
    console.log(
      `release CSV 10^6 rows end to end (crypto): ${((res.rows / res.timeMs) * 1000).toFixed(0)} rows/s, ${(bytes / MB).toFixed(1)} MB written, ${res.stats.rowsBuilt} rows built; ${mem}`,
    );
  }
}

/** Vose's alias method (bench comparison only). */
function aliasTable(p: Float64Array, total: number): [Float64Array, Int32Array] {
  const m = p.length;
  const prob = new Float64Array(m);
  const alias = new Int32Array(m);
  const scaled = new Float64Array(m);
  const small: number[] = [];
  const large: number[] = [];
  for (let i = 0; i < m; i++) {
    scaled[i] = (p[i]! * m) / total;
    (scaled[i]! < 1 ? small : large).push(i);
  }
  while (small.length > 0 && large.length > 0) {
    const s = small.pop()!;
    const l = large.pop()!;
    prob[s] = scaled[s]!;
    alias[s] = l;
    scaled[l] = scaled[l]! + scaled[s]! - 1;
    (scaled[l]! < 1 ? small : large).push(l);
  }
  for (const i of large) prob[i] = 1;
  for (const i of small) prob[i] = 1;
  return [prob, alias];
}
