/**
 * Case study 7, registration dates: the earliest registration date
 * (days 0..D) of a set of users, released under eps*d_h (standard DP: one
 * user changes, the minimum can jump anywhere, so the answer graph is a
 * clique and the best one can do is randomised response, SPEC §1, §2) versus
 * (eps/s)*d_1 (d_1 = total number of days the dates differ by; the minimum
 * is 1-sensitive, so the truncated geometric mechanism with eps/s on the line
 * 0..D). With s = 5, a change of up to s days in total is protected as
 * strongly as eps-DP protects any change. Utility as (a, b)-usefulness
 * (SPEC §3): the smallest b with P(|reported - true| <= a) >= 1 - b for
 * every true date.
 */
import { cliqueDomain } from '../metric/clique';
import { lineDomain } from '../metric/line';
import type { Domain } from '../metric/domain';
import { randomisedResponse } from '../mechanism/randomised-response';
import { truncatedGeometric } from '../mechanism/truncated-geometric';
import { usefulnessCurve } from '../measure/usefulness';
import type { FindingsOf } from '../../src-shared/protocol/index';
import { numbersPerEps, studyParams, type ChartSpec, type Study, type CaseStudyResult } from './study';

/**
 * The errors allowed: 0..aMax by aStep (first chart and table), the whole
 * range 1..D on a log scale (second chart), D's midpoint, and their union.
 */
function errorGrids(
  D: number,
  aMax: number,
  aStep: number,
): { aValues: number[]; wide: number[]; mid: number; all: number[] } {
  const aValues: number[] = [];
  for (let a = 0; a <= aMax; a += aStep) aValues.push(a);
  // the whole range 0..D, coarser, for the second chart
  const wide: number[] = [];
  // on a log axis (the d_1 curves fall within days, randomised response only near the full span): a = 1, 2, 3 ...
  // then about 60 points per decade up to D
  for (let a = 1; a <= D; a = Math.max(a + 1, Math.round(a * 1.04))) wide.push(a);
  const mid = Math.round(D / 2);
  for (const a of [mid, D]) if (!wide.includes(a)) wide.push(a);
  wide.sort((x, y) => x - y);
  const all = [...new Set([...aValues, ...wide])].sort((x, y) => x - y);
  return { aValues, wide, mid, all };
}

export const registrationDateStudy: Study = (params, ctx): CaseStudyResult => {
  const { days: D, epsilons: epsList, scale: s, aMax, aStep } = studyParams('registration-date', params);
  const n = D + 1;
  // numeric date values: a clique whose points are the days 0..D
  const clique: Domain = { ...cliqueDomain(n), value: (i: number) => i };
  const line = lineDomain(n);
  const { aValues, wide, mid, all } = errorGrids(D, aMax, aStep);
  const pick = (b: Float64Array, xs: number[]) => xs.map((a) => b[all.indexOf(a)]!);
  const curves = epsList.map((eps) => {
    ctx.progress(null, `usefulness at eps = ${eps}`);
    const rr = usefulnessCurve(randomisedResponse(clique, eps).channel, clique, all);
    const tg = usefulnessCurve(truncatedGeometric(line, eps / s).channel, line, all);
    return {
      eps,
      rr: pick(rr.b, aValues),
      tg: pick(tg.b, aValues),
      rrWide: pick(rr.b, wide),
      tgWide: pick(tg.b, wide),
    };
  });
  const at = (c: (typeof curves)[number], a: number, which: 'rr' | 'tg') => c[which][aValues.indexOf(a)] ?? null;
  // Both charts: b(a) of randomised response (eps*d_h, dashed) and of TG at eps/s (d_1) per eps.
  const usefulnessChart = (
    id: string,
    title: string,
    x: number[],
    ys: (c: (typeof curves)[number]) => [number[], number[]],
    xLog = false,
  ): ChartSpec => ({
    id,
    title,
    type: 'line',
    ...(xLog ? { xLog } : {}),
    xLabel: 'error allowed (days)',
    // b(a): the largest, over the true dates, chance that the released date is off by more than a days
    yLabel: 'chance of a larger error',
    notes: [
      'each curve: the chance that the released date is off by more than the error allowed, at the true date where that chance is highest',
    ],
    yMin: 0,
    yMax: 1,
    series: curves.flatMap((c) => {
      const [rr, tg] = ys(c);
      return [
        { label: `any change hidden (randomised response), ε = ${c.eps}`, x, y: rr, dashed: true },
        { label: `${s}-day shifts hidden (truncated geometric), ε = ${c.eps}`, x, y: tg },
      ];
    }),
  });
  const a90 = (b: number[]) => {
    const k = b.findIndex((x) => x <= 0.1);
    return k < 0 ? null : aValues[k]!;
  };
  const findings: FindingsOf<'registration-date'> = {
    kind: 'registration-date',
    days: D,
    scale: s,
    aMax,
    aLast: aValues[aValues.length - 1]!,
    mid,
    curves: curves.map((c) => ({
      eps: c.eps,
      rr0: at(c, 0, 'rr'),
      rrLast: c.rr[c.rr.length - 1]!,
      tg10: at(c, 10, 'tg'),
      tgLast: c.tg[c.tg.length - 1]!,
      tg90: a90(c.tg),
      rr90: a90(c.rr),
      rrMid: c.rrWide[wide.indexOf(mid)]!,
    })),
  };
  return {
    type: 'case-study',
    study: 'registration-date',
    title: `Earliest registration date (days 0..${D})`,
    findings,
    numbers: numbersPerEps(curves, '_eps', {
      rr_b0: (c) => at(c, 0, 'rr'),
      tg_b0: (c) => at(c, 0, 'tg'),
      tg_b10: (c) => at(c, 10, 'tg'),
      rr_b10: (c) => at(c, 10, 'rr'),
    }),
    tables: [
      {
        id: 'usefulness',
        title:
          'The chance that the released date is off by more than the error allowed, for the true date where that chance is highest',
        header: [
          'error allowed (days)',
          ...curves.flatMap((c) => [
            `randomised response, ε = ${c.eps}`,
            `truncated geometric (${s}-day shifts), ε = ${c.eps}`,
          ]),
        ],
        rows: aValues.map((a, k) => [a, ...curves.flatMap((c) => [c.rr[k]!, c.tg[k]!])]),
      },
    ],
    charts: [
      usefulnessChart(
        'usefulness',
        `Errors of the released earliest date: any change hidden vs ${s}-day shifts hidden`,
        aValues,
        (c) => [c.rr, c.tg],
      ),
      usefulnessChart(
        'usefulness-all-days',
        `Errors of the released earliest date over the whole range, 1 to ${D} days (log axis)`,
        wide,
        (c) => [c.rrWide, c.tgWide],
        true,
      ),
    ],
  };
};
