/**
 * Case study 2, leakage bounds for databases (SPEC §5): any eps-DP
 * mechanism on V^u (Hamming metric, v = |V|) leaks at most
 * u log2(v e^eps / (v - 1 + e^eps)) bits, tight for the uniform prior; with
 * at most r outputs at most log2(r e^(eps u) / ((v-1+e^eps)^l - e^(eps l) + e^(eps u))),
 * l = floor(log_v r); about one individual at most log2(e^eps) bits.
 */
import {
  databaseLeakageBound,
  databaseLeakageBoundWithOutputs,
  individualLeakageBound,
} from '../bound/database-leakage-bounds';
import type { FindingsOf } from '../../src-shared/protocol/index';
import { studyParams, epsGrid, type Study, type CaseStudyResult } from './study';

export const leakageBoundsStudy: Study = (params): CaseStudyResult => {
  const { u, values: vs, from, to, step, outputs: rs, outputsV: vR } = studyParams('leakage-bounds', params);
  const grid = epsGrid(from, to, step);
  const byV = vs.map((v) => grid.map((e) => databaseLeakageBound(u, v, e)));
  const byR = rs.map((r) => grid.map((e) => databaseLeakageBoundWithOutputs(u, vR, e, r)));
  const indiv = grid.map((e) => individualLeakageBound(e));
  const at = (e: number) => vs.map((v) => databaseLeakageBound(u, v, e));
  const e1 = 1;
  const sat = vs.map((v) => u * Math.log2(v));
  // where the outputs formula improves on min(log2 r, any-r bound) most, and where it is looser than the any-r bound
  const k01 = grid.indexOf(0.1) >= 0 ? grid.indexOf(0.1) : 0;
  let bestGain = 0;
  let bestAt: { r: number; eps: number } | null = null;
  const looser: FindingsOf<'leakage-bounds'>['looser'] = [];
  rs.forEach((r, k) => {
    grid.forEach((e, j) => {
      const g = Math.min(Math.log2(r), databaseLeakageBound(u, vR, e)) - byR[k]![j]!;
      if (g > bestGain) {
        bestGain = g;
        bestAt = { r, eps: e };
      }
    });
    const worse = grid.filter((e, j) => byR[k]![j]! > databaseLeakageBound(u, vR, e) + 1e-9);
    if (worse.length) {
      const e0 = worse[0]!;
      looser.push({
        r,
        count: worse.length,
        from: e0,
        to: worse[worse.length - 1]!,
        bound: byR[k]![grid.indexOf(e0)]!,
        anyR: databaseLeakageBound(u, vR, e0),
      });
    }
  });
  const findings: FindingsOf<'leakage-bounds'> = {
    kind: 'leakage-bounds',
    u,
    values: vs.map((v, k) => ({ v, eps1: at(e1)[k]!, eps01: databaseLeakageBound(u, v, 0.1), holds: sat[k]! })),
    individualEps1: individualLeakageBound(e1),
    outputsV: vR,
    lowEps: grid[k01]!,
    outputs: rs.map((r, k) => ({
      r,
      atLow: byR[k]![k01]!,
      eps1: databaseLeakageBound(u, vR, 1) > 0 ? databaseLeakageBoundWithOutputs(u, vR, 1, r) : NaN,
    })),
    bestGain,
    bestAt,
    looser,
  };
  return {
    type: 'case-study',
    study: 'leakage-bounds',
    title: `Database leakage bounds, u = ${u}`,
    findings,
    numbers: Object.fromEntries([
      ['u', u],
      ...vs.map((v, k) => [`bound_v${v}_eps1`, at(1)[k]!] as [string, number]),
      ...rs.map((r) => [`bound_r${r}_eps1`, databaseLeakageBoundWithOutputs(u, vR, 1, r)] as [string, number]),
      ['individual_eps1', individualLeakageBound(1)],
    ]),
    tables: [
      {
        id: 'bound-vs-eps',
        title: `Leakage bound (bits) against ε, u = ${u}`,
        header: ['epsilon', ...vs.map((v) => `v = ${v}`), 'one individual'],
        rows: grid.map((e, k) => [e, ...byV.map((s) => s[k]!), indiv[k]!]),
      },
      {
        id: 'bound-with-outputs',
        title: `Leakage bound (bits) with at most r outputs, u = ${u}, v = ${vR}`,
        header: ['epsilon', ...rs.map((r) => `r = ${r}`), 'no limit on r'],
        rows: grid.map((e, k) => [e, ...byR.map((s) => s[k]!), databaseLeakageBound(u, vR, e)]),
      },
    ],
    charts: [
      {
        id: 'bound-vs-eps',
        title: `Max leakage of any ε-private mechanism, u = ${u}`,
        type: 'line',
        xLabel: 'ε',
        yLabel: 'bits',
        yMin: 0,
        series: vs.map((v, k) => ({ label: `v = ${v}`, x: grid, y: byV[k]! })),
      },
      {
        id: 'bound-with-outputs',
        title: `Max leakage with at most r outputs, u = ${u}, v = ${vR}`,
        type: 'line',
        xLabel: 'ε',
        yLabel: 'bits',
        yMin: 0,
        series: [
          ...rs.map((r, k) => ({ label: `r = ${r}`, x: grid, y: byR[k]! })),
          { label: 'any r', x: grid, y: grid.map((e) => databaseLeakageBound(u, vR, e)), dashed: true },
        ],
      },
    ],
  };
};
