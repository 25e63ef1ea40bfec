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
    xLabel: 'error allowed (days)',
    // b(a): the largest, over the true dates, chance that the released date is off by more than a days
    yLabel: 'chance of a larger error',
    notes: ['each curve: the chance that the released date is off by more than the error allowed, at the true date where that chance is highest'],
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
  const findings = [
    `The earliest registration date among the users, a day from 0 to ${D}, released in two ways: hiding any change of one user's date (randomised response on the ${n} possible dates), or hiding only shifts of about ${s} days (the truncated geometric mechanism on the line of dates, ε/${s} per day). The charts show how often the released date is off by more than a given number of days, for the true date where that is most likely.`,
    ...curves.map(
      (c) =>
        `- ε = ${c.eps}: randomised response reports the exact date with probability ${f(1 - at(c, 0, 'rr')!)} and is within ${aValues[aValues.length - 1]} days with probability at least ${f(1 - c.rr[c.rr.length - 1]!)}; the ${s}-day mechanism is within 10 days with probability ${f(1 - (at(c, 10, 'tg') ?? NaN))}, within ${aValues[aValues.length - 1]} days with ${f(1 - c.tg[c.tg.length - 1]!)}. Within how many days it is right 90% of the time: ${a90(c.tg) ?? `more than ${aMax}`} with the ${s}-day mechanism against ${a90(c.rr) ?? `more than ${aMax}`} with randomised response.`,
    ),
    `- Over the whole range (the second chart) randomised response only becomes useful when the error allowed approaches the full span: ${curves.map((c) => `at ε = ${c.eps} it is more than ${mid} days off with probability ${f(c.rrWide[wide.indexOf(mid)]!)}`).join(', ')}: a reported date says almost nothing.`,
    `- The price: the ${s}-day mechanism only hides dates about ${s} days apart (or one user's date shifted by ${s} days); dates years apart can be told apart, whereas randomised response hides any change of one user. For a statistic like the earliest date, where closeness is what users care about, it gives far better accuracy for a meaningful guarantee.`,
  ];
  const details = [
    `Under ε·d_h (Hamming) the minimum's answer graph is a clique, so randomised response on ${n} values is the utility-optimal, symmetric choice; under (ε/${s})·d_1 (Manhattan) the truncated geometric mechanism with ε/${s} on the line is. (a, b)-usefulness: b(a) = max over true dates of P(|reported − true| > a); randomised response has b(0) = ${curves.map((c) => `${f(at(c, 0, 'rr'))} at ε = ${c.eps}`).join(', ')}.`,
    `(ε/${s})·d_1 guarantees e^ε indistinguishability for dates ${s} days apart; ε·d_h for any change of one user.`,
  ];
  return {
    type: 'case-study',
    study: 'registration-date',
    title: `Earliest registration date (days 0..${D})`,
    findings,
    details,
    numbers: numbersPerEps(curves, '_eps', {
      rr_b0: (c) => at(c, 0, 'rr'),
      tg_b0: (c) => at(c, 0, 'tg'),
      tg_b10: (c) => at(c, 10, 'tg'),
      rr_b10: (c) => at(c, 10, 'rr'),
    }),
    tables: [
      {
        id: 'usefulness',
        title: 'The chance that the released date is off by more than the error allowed, for the true date where that chance is highest',
        header: [
          'error allowed (days)',
          ...curves.flatMap((c) => [`randomised response, ε = ${c.eps}`, `truncated geometric (${s}-day shifts), ε = ${c.eps}`]),
        ],
        rows: aValues.map((a, k) => [a, ...curves.flatMap((c) => [c.rr[k]!, c.tg[k]!])]),
      },
    ],
    charts: [
      usefulnessChart('usefulness', `Errors of the released earliest date: any change hidden vs ${s}-day shifts hidden`, aValues, (c) => [c.rr, c.tg]),
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
