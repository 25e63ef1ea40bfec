/**
 * Case study 6, smart meters. (a) The one-day trace (10 s
 * readings) with independent Laplace noise per reading: density
 * (eps/2) e^(-eps |w - w'| / unit) per unit of `unit` watts, so each reading
 * is eps*d-private for d = |w - w'| / unit and the whole trace eps*d1-private
 * (d1 = sum of per-reading distances); seeded, reproducible noise.
 * (b) The day's readings as a database of power levels (0..L) under the
 * max metric d_inf (SPEC §1): the truncated geometric mechanism (SPEC §2)
 * on the rounded average level and on a percentile level. Both queries are
 * 1-sensitive under d_inf, so TG with eps gives eps*d_inf-privacy on the
 * day. Query sensitivity (SPEC §4) is enumerated on a small V^u to show
 * which queries are *uniformly* 1-sensitive: the exact average is not.
 */
import { lineDomain } from '../metric/line';
import { databaseDomain, type DatabaseDomain } from '../metric/database';
import { customMetricDomain } from '../metric/custom-metric';
import { Matrix } from '../linalg/matrix';
import { querySensitivity } from '../metric/query-sensitivity';
import { truncatedGeometric } from '../mechanism/truncated-geometric';
import { percentileRank } from '../metric/answer-domains';
import { numbersPerEps, studyParams, f, type Study, type CaseStudyResult, type ChartSpec } from './study';
import { seededRandom } from '../../src-shared/numeric/seeded-random';
import type { FindingsOf, SensitivityFinding } from '../../src-shared/protocol/index';
import { sensitivityPlainWords } from '../../src-shared/charts/casestudy-words';

/** Laplace(0, b) by inverse CDF. */
function laplaceNoise(rand: () => number, b: number): number {
  const u = rand() - 0.5;
  return -b * Math.sign(u) * Math.log(1 - 2 * Math.abs(u));
}

/** Level of a reading: floor(w / width), capped at top. */
function levelOf(w: number, width: number, top: number): number {
  return Math.min(top, Math.max(0, Math.floor(w / width)));
}

/** The values index tuple of database i of V^u (first individual most significant). */
function values(db: DatabaseDomain, i: number, u: number, v: number): Int32Array {
  const x = new Int32Array(u);
  for (let k = u - 1; k >= 0; k--) {
    x[k] = i % v;
    i = Math.floor(i / v);
  }
  void db;
  return x;
}

/** A query of the sensitivity check, with its label (the table's first column). */
interface SensitivityRow extends SensitivityFinding {
  /** The query in words. */
  label: string;
}

/** Sensitivity of average, rounded average and a percentile under d_inf on {0..V}^u (enumerated). */
function maxMetricSensitivities(u: number, V: number, p: number): SensitivityRow[] {
  const v = V + 1;
  const db = databaseDomain(u, v, { metric: 'max' });
  const sum = (x: Int32Array) => x.reduce((s, a) => s + a, 0);
  // average: answers s/u for s = 0..uV with the real distance |s - s'| / u
  const na = u * V + 1;
  const dAvg = new Matrix(na, na);
  for (let i = 0; i < na; i++) for (let j = 0; j < na; j++) dAvg.data[i * na + j] = Math.abs(i - j) / u;
  const avgDomain = customMetricDomain(
    dAvg,
    Array.from({ length: na }, (_, s) => `${s}/${u}`),
    `average of ${u} values in 0..${V}`,
  );
  const line = lineDomain(v);
  const r = percentileRank(u, p);
  const rows: SensitivityRow[] = [];
  const add = (name: string, label: string, Y: typeof line, fx: (x: Int32Array) => number) => {
    const s = querySensitivity(db, Y, (i) => fx(values(db, i, u, v)));
    rows.push({
      query: name,
      label,
      delta: s.delta,
      uniform: s.uniform,
      counterexample:
        !s.uniform && s.counterexample ? { labels: s.counterexample.labels, reason: s.counterexample.reason } : null,
    });
  };
  add(`average (answers s/${u}, |y - y'|)`, 'exact average', avgDomain, (x) => sum(x));
  add(`rounded average (0..${V}, line)`, 'rounded average', line, (x) => Math.floor(sum(x) / u + 0.5));
  add(`${p}-percentile (0..${V}, line)`, `${p}th percentile`, line, (x) => Int32Array.from(x).sort()[r - 1]!);
  return rows;
}

/**
 * Independent Laplace noise of scale unit/eps on every reading (seeded), with its measured mean absolute and RMS error.
 */
function noisyTrace(
  trace: readonly number[],
  unit: number,
  eps: number,
  seed: number,
): { eps: number; b: number; y: number[]; mae: number; rmse: number } {
  const n = trace.length;
  const rand = seededRandom(seed);
  const b = unit / eps;
  const y = trace.map((w) => w + laplaceNoise(rand, b));
  let mae = 0;
  let se = 0;
  for (let i = 0; i < n; i++) {
    mae += Math.abs(y[i]! - trace[i]!);
    se += (y[i]! - trace[i]!) ** 2;
  }
  return { eps, b, y, mae: mae / n, rmse: Math.sqrt(se / n) };
}

/** Reading i's time of day (hh:mm), and every `every`-th reading's index and hour (the charts' points). */
function traceTimes(
  n: number,
  stepSeconds: number,
  every: number,
): { hhmm: (i: number) => string; idx: number[]; hours: number[] } {
  const hhmm = (i: number) => {
    const s = Math.round(i * stepSeconds);
    return `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}`;
  };
  const idx: number[] = [];
  for (let i = 0; i < n; i += every) idx.push(i);
  return { hhmm, idx, hours: idx.map((i) => (i * stepSeconds) / 3600) };
}

/**
 * (b) The readings' levels (0..L-1): the rounded average level and the
 * pct-th percentile level, the truncated geometric mechanism's rows (eps) at
 * both, their chance of the exact level and their expected distance from it.
 */
function releasedLevels(
  trace: readonly number[],
  width: number,
  L: number,
  pct: number,
  eps: number,
): {
  avgLevel: number;
  roundedAvg: number;
  pLevel: number;
  rowAvg: Float64Array;
  rowPct: Float64Array;
  exact: { avg: number; pct: number };
  off: { avg: number; pct: number };
} {
  const n = trace.length;
  const top = L - 1;
  const lv = trace.map((w) => levelOf(w, width, top));
  const avgLevel = lv.reduce((s, a) => s + a, 0) / n;
  const roundedAvg = Math.floor(avgLevel + 0.5);
  const r = percentileRank(n, pct);
  const pLevel = Int32Array.from(lv).sort()[r - 1]!;
  const tg = truncatedGeometric(lineDomain(L), eps).channel;
  const rowAvg = tg.row(roundedAvg, new Float64Array(L));
  const rowPct = tg.row(pLevel, new Float64Array(L));
  const expAbs = (row: Float64Array, t: number) => row.reduce((s, q, z) => s + q * Math.abs(z - t), 0);
  const exact = { avg: rowAvg[roundedAvg]!, pct: rowPct[pLevel]! };
  const off = { avg: expAbs(rowAvg, roundedAvg), pct: expAbs(rowPct, pLevel) };
  return { avgLevel, roundedAvg, pLevel, rowAvg, rowPct, exact, off };
}

/** One noise level's chart: the true and the noisy readings at the chart's points (every `shownSeconds` s). */
function traceChart(
  x: { eps: number; b: number; y: number[] },
  trace: readonly number[],
  unit: number,
  shownSeconds: number,
  hours: number[],
  idx: number[],
): ChartSpec {
  return {
    id: `trace-eps${x.eps}`,
    title: `Smart-meter day: true and noisy readings, ε = ${x.eps} per ${unit} W (every ${f(shownSeconds)} s shown)`,
    type: 'line',
    xLabel: 'hour of day',
    yLabel: 'watts',
    series: [
      { label: 'true reading', x: hours, y: idx.map((i) => trace[i]!), width: 1.5, color: '#000000' },
      {
        label: `noisy (Laplace, scale ${f(x.b)} W)`,
        x: hours,
        y: idx.map((i) => x.y[i]!),
        width: 1,
        color: 'rgba(86, 180, 233, 0.75)',
      },
    ],
  };
}

export const smartMeterStudy: Study = (params): CaseStudyResult => {
  const p = studyParams('smart-meter', params);
  const { trace, unit, seed, epsilon: eps, chartEvery: every } = p;
  const [noiseEps, width, L, pct, sU, sV] = [
    p.noiseEpsilons,
    p.levelWidth,
    p.levels,
    p.percentile,
    p.sensitivityU,
    p.sensitivityV,
  ];
  const n = trace.length;
  const stepSeconds = (24 * 3600) / n;

  // (a) per-reading Laplace noise
  const noisy = noiseEps.map((e, k) => noisyTrace(trace, unit, e, seed + 1000 * k));
  const trueMean = trace.reduce((s, w) => s + w, 0) / n;
  const peak = Math.max(...trace);
  const sd = Math.sqrt(trace.reduce((s, w) => s + (w - trueMean) ** 2, 0) / n);

  // (b) TG on the rounded average level and a percentile level, d_inf
  const { avgLevel, roundedAvg, pLevel, rowAvg, rowPct, exact, off } = releasedLevels(trace, width, L, pct, eps);
  const sens = maxMetricSensitivities(sU, sV, pct);
  const avgRow = sens[0]!;

  const { hhmm, idx, hours } = traceTimes(n, stepSeconds, every);

  const findings: FindingsOf<'smart-meter'> = {
    kind: 'smart-meter',
    readings: n,
    stepSeconds,
    trueMean,
    peak,
    sd,
    unit,
    noisy: noisy.map((x) => ({ eps: x.eps, mae: x.mae, b: x.b, rmse: x.rmse })),
    levels: L,
    levelWidth: width,
    avgLevel,
    roundedAvg,
    percentile: pct,
    percentileLevel: pLevel,
    epsilon: eps,
    exact,
    off,
    sensitivityU: sU,
    sensitivityV: sV,
    sensitivity: sens.map(({ label: _label, ...x }) => x),
  };
  return {
    type: 'case-study',
    study: 'smart-meter',
    title: 'A smart-meter day',
    findings,
    numbers: {
      readings: n,
      trueMean,
      ...numbersPerEps(noisy, '_eps', { mae: (x) => x.mae, scale: (x) => x.b }),
      avgLevel,
      roundedAvg,
      percentileLevel: pLevel,
      tgExactAvg: exact.avg,
      tgExactPercentile: exact.pct,
      averageUniform: avgRow.uniform,
      roundedAverageUniform: sens[1]!.uniform,
      percentileUniform: sens[2]!.uniform,
    },
    tables: [
      {
        id: 'noisy-trace',
        title: 'True and noisy readings (every reading)',
        header: ['time', 'watts', ...noisy.map((x) => `noisy, ε = ${x.eps}`)],
        rows: trace.map((w, i) => [hhmm(i), w, ...noisy.map((x) => Math.round(x.y[i]! * 10) / 10)]),
      },
      {
        id: 'released-levels',
        title: `Truncated geometric mechanism, ε = ${eps}: the chance of each released level`,
        header: ['released level', `rounded average (true ${roundedAvg})`, `${pct}th percentile (true ${pLevel})`],
        rows: Array.from({ length: L }, (_, z) => [z, rowAvg[z]!, rowPct[z]!]),
      },
      {
        id: 'sensitivity',
        title: `Which released numbers keep the guarantee (every day of ${sU} readings in levels 0 to ${sV})`,
        header: ['released number', 'largest move per level of change', 'keeps the guarantee', 'why'],
        rows: sens.map((s) => [s.label, s.delta, s.uniform ? 'yes' : 'no', sensitivityPlainWords(s)]),
      },
    ],
    charts: [
      ...noisy.map((x) => traceChart(x, trace, unit, every * stepSeconds, hours, idx)),
      {
        id: 'released-levels',
        title: `Truncated geometric mechanism with ε = ${eps} on the day's rounded average and ${pct}th-percentile level`,
        type: 'bar',
        xLabel: 'reported level',
        yLabel: 'probability',
        categories: Array.from({ length: L }, (_, z) => String(z)),
        yMin: 0,
        series: [
          {
            label: `rounded average (true ${roundedAvg})`,
            x: Array.from({ length: L }, (_, z) => z),
            y: Array.from(rowAvg),
          },
          {
            label: `${pct}-percentile (true ${pLevel})`,
            x: Array.from({ length: L }, (_, z) => z),
            y: Array.from(rowPct),
          },
        ],
      },
    ],
  };
};
