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
import { numbersPerEps, studyParams, f, type ChartSpec, type Study, type CaseStudyResult } from './study';

export const registrationDateStudy: Study = (params, ctx): CaseStudyResult => {
  const { days: D, epsilons: epsList, scale: s, aMax, aStep } = studyParams('registration-date', params);
  const n = D + 1;
  // numeric date values: a clique whose points are the days 0..D
  const clique: Domain = { ...cliqueDomain(n), value: (i: number) => i };
  const line = lineDomain(n);
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
  const pick = (b: Float64Array, xs: number[]) => xs.map((a) => b[all.indexOf(a)]!);
  const curves = epsList.map((eps) => {
    ctx.progress(null, `usefulness at eps = ${eps}`);
    const rr = usefulnessCurve(randomisedResponse(clique, eps).channel, clique, all);
    const tg = usefulnessCurve(truncatedGeometric(line, eps / s).channel, line, all);
    return { eps, rr: pick(rr.b, aValues), tg: pick(tg.b, aValues), rrWide: pick(rr.b, wide), tgWide: pick(tg.b, wide) };
  });
  const at = (c: (typeof curves)[number], a: number, which: 'rr' | 'tg') => c[which][aValues.indexOf(a)] ?? null;
  // Both charts: b(a) of randomised response (eps*d_h, dashed) and of TG at eps/s (d_1) per eps.
  const usefulnessChart = (id: string, title: string, x: number[], ys: (c: (typeof curves)[number]) => [number[], number[]], xLog = false): ChartSpec => ({
    id,
    title,
    type: 'line',
    ...(xLog ? { xLog } : {}),
    xLabel: 'a (days)',
    yLabel: 'b = max P(|reported - true| > a)',
    yMin: 0,
    yMax: 1,
    series: curves.flatMap((c) => {
      const [rr, tg] = ys(c);
      return [
        { label: `d_h, RR, eps = ${c.eps}`, x, y: rr, dashed: true },
        { label: `d_1, TG eps/${s}, eps = ${c.eps}`, x, y: tg },
      ];
    }),
  });
  const a90 = (b: number[]) => {
    const k = b.findIndex((x) => x <= 0.1);
    return k < 0 ? null : aValues[k]!;
  };
  const findings = [
    `Earliest registration date among the users, days 0..${D} (${n} answers). Under eps*d_h the minimum's answer graph is a clique, so randomised response on ${n} values is the (utility-optimal, symmetric) choice; under (eps/${s})*d_1 the truncated geometric mechanism with eps/${s} on the line is. (a, b)-usefulness: b(a) = max over true dates of P(|reported - true| > a).`,
    ...curves.map(
      (c) =>
        `- eps = ${c.eps}: randomised response reports the exact date with probability ${f(1 - at(c, 0, 'rr')!)} (b(0) = ${f(at(c, 0, 'rr'))}) and is within ${aValues[aValues.length - 1]} days with probability at least ${f(1 - c.rr[c.rr.length - 1]!)}; the d_1 mechanism is within 10 days with probability ${f(1 - (at(c, 10, 'tg') ?? NaN))}, within ${aValues[aValues.length - 1]} days with ${f(1 - c.tg[c.tg.length - 1]!)}. Accuracy at 90% confidence (b <= 0.1): ${a90(c.tg) ?? `> ${aMax}`} days with d_1 against ${a90(c.rr) ?? `more than ${aMax}`} days with d_h.`,
    ),
    `- Over the whole range (chart usefulness-all-days) randomised response only becomes useful when a approaches the full span: its b(a) falls linearly, ${curves.map((c) => `b(${mid}) = ${f(c.rrWide[wide.indexOf(mid)]!)} at eps = ${c.eps}`).join(', ')}: a reported date says almost nothing.`,
    `- The price: (eps/${s})*d_1 only guarantees e^eps indistinguishability for dates ${s} days apart (or one user's date shifted by ${s} days); dates years apart are distinguishable, whereas eps*d_h hides any change of one user. For a statistic like the earliest date, where closeness is what users care about, the Manhattan metric gives far better utility for a meaningful guarantee.`,
  ];
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
        title: 'Smallest b for (a, b)-usefulness',
        header: ['a (days)', ...curves.flatMap((c) => [`eps*d_h (RR) eps=${c.eps}`, `(eps/${s})*d_1 (TG) eps=${c.eps}`])],
        rows: aValues.map((a, k) => [a, ...curves.flatMap((c) => [c.rr[k]!, c.tg[k]!])]),
      },
    ],
    charts: [
      usefulnessChart('usefulness', `(a, b)-usefulness of the earliest date: eps*d_h vs (eps/${s})*d_1`, aValues, (c) => [c.rr, c.tg]),
      usefulnessChart('usefulness-all-days', `(a, b)-usefulness over the whole range a = 1..${D} days (log axis)`, wide, (c) => [c.rrWide, c.tgWide], true),
    ],
  };
};
