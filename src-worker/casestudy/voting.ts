/**
 * Case study 1, voting: which of six cities has the most votes (a
 * clique: answers fully distinguishable) and how many of five voters said
 * yes (a counting query: line 0..5), at eps = ln 2. The truncated geometric
 * mechanism (SPEC §2, lines only) against the symmetric-graph mechanism
 * (SPEC §2: on the clique it is randomised response; a line is first closed
 * into a ring), utility (binary gain, optimal remap, SPEC §3) under the
 * uniform prior and a non-uniform one; the single-orbit utility bound
 * (SPEC §5) for the clique.
 */
import { parseDomainSpec } from '../metric/parse-domain-spec';
import { truncatedGeometric } from '../mechanism/truncated-geometric';
import { symmetricGraph } from '../mechanism/symmetric-graph';
import { posteriorVulnerability } from '../measure/posterior-vulnerability';
import { uniformPrior, validatePrior } from '../measure/prior';
import { singleOrbitUtilityBound } from '../bound/single-orbit-utility-bound';
import { regularity } from '../bound/regularity';
import type { RowSource } from '../mechanism/channel';
import {
  studyParams,
  epsGrid,
  f,
  type Study,
  type CaseStudyResult,
  type ChartSpec,
  type CaseStudyTable,
} from './study';
import type { Domain } from '../metric/domain';
import type { FindingsOf } from '../../src-shared/protocol/index';

function firstRow(ch: RowSource): number[] {
  const out = new Float64Array(ch.cols);
  ch.row(0, out);
  return Array.from(out);
}

export const votingStudy: Study = (params): CaseStudyResult => {
  const p = studyParams('voting', params);
  const eps = p.epsilon;
  const cityPrior = validatePrior(p.cityPrior, 6);
  const votePrior = validatePrior(p.votePrior, 6);
  const cities = parseDomainSpec('clique:6');
  const votes = parseDomainSpec('count:5');
  const u6 = uniformPrior(6);

  const rr = symmetricGraph(cities, eps); // single orbit c = 5, m = 1: randomised response
  const tg = truncatedGeometric(votes, eps);
  const ring = symmetricGraph(votes, eps); // line closed into a ring (valid, not optimal)
  const util = (pi: Float64Array, ch: RowSource) => posteriorVulnerability(pi, ch).value;

  const rows = [
    {
      query: 'cities (clique:6)',
      mech: 'symmetric = randomised response',
      ch: rr.channel,
      uni: util(u6, rr.channel),
      non: util(cityPrior, rr.channel),
      prior: 'city sizes',
    },
    {
      query: 'yes votes (count:5)',
      mech: 'truncated geometric',
      ch: tg.channel,
      uni: util(u6, tg.channel),
      non: util(votePrior, tg.channel),
      prior: 'close race',
    },
    {
      query: 'yes votes (count:5)',
      mech: 'symmetric (line closed into a ring)',
      ch: ring.channel,
      uni: util(u6, ring.channel),
      non: util(votePrior, ring.channel),
      prior: 'close race',
    },
  ];
  const cliqueBound = singleOrbitUtilityBound(eps, 5, 1);
  const regVotesUniform = regularity(votes, eps, u6);
  const regVotesRace = regularity(votes, eps, votePrior);
  const regCities = regularity(cities, eps, cityPrior);

  // utility against eps for the count, both mechanisms, both priors
  const { grid, series } = countUtilityAgainstEps(votes, votePrior, u6);

  const [tgRow, ringRow] = [rows[1]!, rows[2]!];
  const prior = (r: ReturnType<typeof regularity>) => ({
    regular: r.status === 'regular',
    muSum: r.muSum,
    minMu: r.minMu,
    minMuLabel: r.minMuLabel,
  });
  const findings: FindingsOf<'voting'> = {
    kind: 'voting',
    epsilon: eps,
    cities: {
      uniform: rows[0]!.uni,
      sizes: rows[0]!.non,
      firstRow: firstRow(rr.channel),
      cliqueBound,
      sizesPrior: prior(regCities),
    },
    count: {
      tgUniform: tgRow.uni,
      ringUniform: ringRow.uni,
      tgRace: tgRow.non,
      ringRace: ringRow.non,
      uniformPrior: prior(regVotesUniform),
      racePrior: prior(regVotesRace),
    },
    ringBetterAt: grid.filter(
      (_, k) => (series.ringU[k] ?? -1) > series.tgU[k]! + 1e-12 || (series.ringR[k] ?? -1) > series.tgR[k]! + 1e-12,
    ),
  };
  return {
    type: 'case-study',
    study: 'voting',
    title: 'Voting: six cities and a five-voter count',
    findings,
    numbers: {
      epsilon: eps,
      rrUniform: rows[0]!.uni,
      rrCitySizes: rows[0]!.non,
      cliqueBound,
      tgUniform: tgRow.uni,
      ringUniform: ringRow.uni,
      tgCloseRace: tgRow.non,
      ringCloseRace: ringRow.non,
      closeRaceRegular: regVotesRace.status === 'regular',
      uniformBound: regVotesUniform.status === 'regular' ? regVotesUniform.muSum : null,
    },
    tables: votingTables(eps, rows, grid, series),
    charts: votingCharts(eps, rows, grid, series),
  };
};

type CountSeries = {
  tgU: number[];
  ringU: (number | null)[];
  tgR: number[];
  ringR: (number | null)[];
  bound: (number | null)[];
};

/**
 * The count's utility against eps (0.1..3): TG and the ring mechanism under both priors, and the uniform prior's bound
 * where it is regular.
 */
function countUtilityAgainstEps(
  votes: Domain,
  votePrior: Float64Array,
  u6: Float64Array,
): { grid: number[]; series: CountSeries } {
  const util = (pi: Float64Array, ch: RowSource) => posteriorVulnerability(pi, ch).value;
  const grid = epsGrid(0.1, 3, 0.1);
  const series: CountSeries = { tgU: [], ringU: [], tgR: [], ringR: [], bound: [] };
  for (const e of grid) {
    const t = truncatedGeometric(votes, e).channel;
    series.tgU.push(util(u6, t));
    series.tgR.push(util(votePrior, t));
    try {
      const s = symmetricGraph(votes, e).channel;
      series.ringU.push(util(u6, s));
      series.ringR.push(util(votePrior, s));
    } catch {
      series.ringU.push(null);
      series.ringR.push(null);
    }
    const r = regularity(votes, e, u6);
    series.bound.push(r.status === 'regular' ? r.muSum : null);
  }
  return { grid, series };
}

/** The study's two tables: utilities at eps, and the count's utility against eps. */
function votingTables(
  eps: number,
  rows: { query: string; mech: string; uni: number; non: number; prior: string }[],
  grid: number[],
  series: CountSeries,
): CaseStudyTable[] {
  return [
    {
      id: 'utilities',
      title: `Binary-gain utility with an optimal remap at eps = ${f(eps)}`,
      header: ['query', 'mechanism', 'uniform prior', 'non-uniform prior', 'non-uniform prior is'],
      rows: rows.map((r) => [r.query, r.mech, r.uni, r.non, r.prior]),
    },
    {
      id: 'count-utility-vs-eps',
      title: 'Count query: utility against eps',
      header: [
        'epsilon',
        'TG uniform',
        'ring uniform',
        'TG close race',
        'ring close race',
        'uniform-prior bound sum(mu)',
      ],
      rows: grid.map((e, k) => [
        e,
        series.tgU[k]!,
        series.ringU[k]!,
        series.tgR[k]!,
        series.ringR[k]!,
        series.bound[k]!,
      ]),
    },
  ];
}

/** The study's two charts: utilities at eps, and the count's utility against eps. */
function votingCharts(
  eps: number,
  rows: { uni: number; non: number }[],
  grid: number[],
  series: CountSeries,
): ChartSpec[] {
  return [
    {
      id: 'utilities',
      title: `Utility at eps = ${f(eps)} (binary gain, optimal remap)`,
      type: 'bar',
      xLabel: 'query and mechanism',
      yLabel: 'utility',
      categories: ['cities: RR', 'count: TG', 'count: ring'],
      yMin: 0,
      series: [
        { label: 'uniform prior', x: [0, 1, 2], y: rows.map((r) => r.uni) },
        { label: 'non-uniform prior', x: [0, 1, 2], y: rows.map((r) => r.non) },
      ],
    },
    {
      id: 'count-utility-vs-eps',
      title: 'Five-voter count: utility against eps',
      type: 'line',
      xLabel: 'ε',
      yLabel: 'utility (binary gain)',
      yMin: 0,
      yMax: 1,
      series: [
        { label: 'TG, uniform', x: grid, y: series.tgU },
        { label: 'ring, uniform', x: grid, y: series.ringU, dashed: true },
        { label: 'TG, close race', x: grid, y: series.tgR },
        { label: 'ring, close race', x: grid, y: series.ringR, dashed: true },
        { label: 'bound sum(mu), uniform', x: grid, y: series.bound, points: true, width: 1 },
      ],
    },
  ];
}
