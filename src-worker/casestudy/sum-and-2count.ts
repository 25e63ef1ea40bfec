/**
 * Case study 4, sum and two counts: query-induced metrics
 * (SPEC §1) — the sum of u values in 0..V (answers 0..uV, d = ceil(|y-y'|/V))
 * and two counting queries over u records (answers {0..u}^2, Chebyshev).
 * The threshold eps of the tight-constraints mechanism (SPEC §5) and above
 * it the utility (uniform prior, optimal remap) of the tight-constraints
 * mechanism against the geometric one: TG with eps/V on the sum's line
 * (|y-y'|/V <= d, so eps*d-private) and, for the two counts, two independent
 * TGs with eps/2 each (eps/2 (|dy1| + |dy2|) <= eps max(|dy1|, |dy2|)).
 */
import { parseDomainSpec } from '../metric/parse-domain-spec';
import type { Domain } from '../metric/domain';
import { lineDomain } from '../metric/line';
import { tightExists } from '../bound/tight-exists';
import { tightConstraintsStructured } from '../mechanism/implicit/tight-structured';
import { tightChannelMeasures } from '../measure/structured/tight-measures';
import { truncatedGeometric } from '../mechanism/truncated-geometric';
import { FunctionRowSource } from '../mechanism/function-row-source';
import type { RowSource } from '../mechanism/channel';
import { posteriorVulnerability } from '../measure/posterior-vulnerability';
import { uniformPrior } from '../measure/prior';
import { checkPrivacy } from '../check/privacy-check';
import type { FindingsOf } from '../../src-shared/protocol/index';
import {
  studyParams,
  checkAbort,
  epsGrid,
  type Study,
  type StudyContext,
  type CaseStudyResult,
  type ChartSpec,
} from './study';

/**
 * Smallest eps on the grid step, 2 step, ... (up to `to`) where the
 * tight-constraints mechanism exists: a scan at `coarse` first, then every
 * `step` point inside the first bracket that contains an existing point.
 */
function thresholdScan(
  d: Domain,
  step: number,
  coarse: number,
  to: number,
  ctx: StudyContext,
): { epsilon: number | null; lastMissing: number | null; minZBelow: number | null } {
  let prev = 0;
  for (let e = coarse; e <= to + 1e-9; e = Math.round((e + coarse) * 1e9) / 1e9) {
    checkAbort(ctx.signal);
    ctx.progress(null, `${d.spec}: tight at eps = ${e}?`);
    if (tightExists(d, e).exists === true) {
      let lastMissing: number | null = prev > 0 ? prev : null;
      let minZBelow: number | null = null;
      for (let k = Math.round(prev / step) + 1; k * step <= e + 1e-9; k++) {
        const ee = Math.round(k * step * 1e9) / 1e9;
        const r = tightExists(d, ee);
        if (r.exists === true) return { epsilon: ee, lastMissing, minZBelow };
        lastMissing = ee;
        minZBelow = r.minZ;
      }
      return { epsilon: e, lastMissing, minZBelow };
    }
    prev = e;
  }
  return { epsilon: null, lastMissing: prev, minZBelow: null };
}

/** Two independent TGs on {0..u}^2 (row-major labels (a,b)), each with eps/2. */
function productTG(u: number, epsEach: number, d: Domain): RowSource {
  const line = lineDomain(u + 1);
  const tg = truncatedGeometric(line, epsEach).channel;
  const n = u + 1;
  const rowsCache: Float64Array[] = [];
  for (let i = 0; i < n; i++) rowsCache.push(tg.row(i, new Float64Array(n)));
  return new FunctionRowSource(
    n * n,
    n * n,
    (i, out) => {
      const a = rowsCache[Math.floor(i / n)]!;
      const b = rowsCache[i % n]!;
      for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) out[x * n + y] = a[x]! * b[y]!;
    },
    (i) => d.label(i),
  );
}

/** A query's utility against eps: the tight-constraints mechanism and the geometric one (dashed). */
function utilityChart(
  id: string,
  title: string,
  pts: { eps: number; tight: number | null; geo: number }[],
  geoLabel: string,
): ChartSpec {
  return {
    id,
    title,
    type: 'line',
    xLabel: 'ε',
    yLabel: 'utility (uniform prior)',
    yMin: 0,
    series: [
      { label: 'tight-constraints', x: pts.map((p) => p.eps), y: pts.map((p) => p.tight) },
      { label: geoLabel, x: pts.map((p) => p.eps), y: pts.map((p) => p.geo), dashed: true },
    ],
  };
}

export const sumAndCountsStudy: Study = (params, ctx): CaseStudyResult => {
  const { sumU, sumV, countU, step, to, sweepStep } = studyParams('sum-and-2count', params);
  const sum = parseDomainSpec(`sum:${sumU},${sumV}`);
  const counts = parseDomainSpec(`kcount:2,${countU}`);
  const sumLine = lineDomain(sum.n);

  const thSum = thresholdScan(sum, step, 0.1, to, ctx);
  const thCounts = thresholdScan(counts, step, 0.1, to, ctx);

  const sweep = (d: Domain, th: number | null, geo: (e: number) => RowSource) => {
    const pts: { eps: number; tight: number | null; geo: number }[] = [];
    if (th === null) return pts;
    const pi = uniformPrior(d.n);
    const grid = epsGrid(th, to, sweepStep);
    for (const e of grid) {
      checkAbort(ctx.signal);
      ctx.progress(null, `${d.spec}: utilities at eps = ${e}`);
      const t = tightConstraintsStructured(d, e);
      pts.push({
        eps: e,
        tight: t.exists ? tightChannelMeasures(pi, t.mechanism.channel).utility : null,
        geo: posteriorVulnerability(pi, geo(e)).value,
      });
    }
    return pts;
  };
  const sumPts = sweep(sum, thSum.epsilon, (e) => truncatedGeometric(sumLine, e / sumV).channel);
  const cntPts = sweep(counts, thCounts.epsilon, (e) => productTG(countU, e / 2, counts));

  // the geometric constructions are checked, not assumed: effective eps on the query metric
  const chkEps = thSum.epsilon ?? 1;
  const sumGeoCheck = checkPrivacy(truncatedGeometric(sumLine, chkEps / sumV).channel, sum, chkEps, { topK: 1 });
  const cntEps = thCounts.epsilon ?? 1;
  const cntGeoCheck = checkPrivacy(productTG(countU, cntEps / 2, counts), counts, cntEps, { topK: 1 });

  const query = (
    th: ReturnType<typeof thresholdScan>,
    points: typeof sumPts,
    check: ReturnType<typeof checkPrivacy>,
    at: number,
  ) => ({
    ...th,
    points,
    check: { at, effectiveEpsilon: check.effectiveEpsilon, passes: check.passes },
  });
  const findings: FindingsOf<'sum-and-2count'> = {
    kind: 'sum-and-2count',
    sumU,
    sumV,
    countU,
    sumN: sum.n,
    countN: counts.n,
    to,
    step,
    sum: query(thSum, sumPts, sumGeoCheck, chkEps),
    counts: query(thCounts, cntPts, cntGeoCheck, cntEps),
  };
  const table = (pts: { eps: number; tight: number | null; geo: number }[]) => pts.map((p) => [p.eps, p.tight, p.geo]);
  return {
    type: 'case-study',
    study: 'sum-and-2count',
    title: 'Sum and two counts: tight-constraints against geometric',
    findings,
    numbers: {
      sumThreshold: thSum.epsilon,
      countsThreshold: thCounts.epsilon,
      sumTightAtThreshold: sumPts[0]?.tight ?? null,
      sumGeoAtThreshold: sumPts[0]?.geo ?? null,
      countsTightAtThreshold: cntPts[0]?.tight ?? null,
      countsGeoAtThreshold: cntPts[0]?.geo ?? null,
      sumGeoEffectiveEps: sumGeoCheck.effectiveEpsilon,
      countsGeoEffectiveEps: cntGeoCheck.effectiveEpsilon,
    },
    tables: [
      {
        id: 'sum-utility',
        title: `Sum of ${sumU} values in 0..${sumV}: utility against eps`,
        header: ['epsilon', 'tight-constraints', `TG with eps/${sumV}`],
        rows: table(sumPts),
      },
      {
        id: 'counts-utility',
        title: `Two counts over ${countU} records: utility against eps`,
        header: ['epsilon', 'tight-constraints', 'two TGs with eps/2'],
        rows: table(cntPts),
      },
    ],
    charts: [
      utilityChart(
        'sum-utility',
        `Sum of ${sumU} values in 0..${sumV} (threshold ${thSum.epsilon ?? 'none'})`,
        sumPts,
        `geometric (TG, eps/${sumV})`,
      ),
      utilityChart(
        'counts-utility',
        `Two counts over ${countU} records (threshold ${thCounts.epsilon ?? 'none'})`,
        cntPts,
        'geometric (two TGs, eps/2 each)',
      ),
    ],
  };
};
