/**
 * Case study 2, leakage bounds for databases (issue 8, SPEC §5): any eps-DP
 * mechanism on V^u (Hamming metric, v = |V|) leaks at most
 * u log2(v e^eps / (v - 1 + e^eps)) bits, tight for the uniform prior; with
 * at most r outputs at most log2(r e^(eps u) / ((v-1+e^eps)^l - e^(eps l) + e^(eps u))),
 * l = floor(log_v r); about one individual at most log2(e^eps) bits.
 */
import { databaseLeakageBound, databaseLeakageBoundWithOutputs, individualLeakageBound } from '../bound/databaseLeakageBounds';
import { epsGrid, f, knownParams, listParam, numParam, type Study, type CaseStudyResult } from './study';

export const leakageBoundsStudy: Study = (params): CaseStudyResult => {
  knownParams(params, 'leakage-bounds', ['u', 'values', 'from', 'to', 'step', 'outputs', 'outputsV']);
  const u = numParam(params, 'u', 100, { min: 1, max: 100000, int: true });
  const vs = listParam(params, 'values', [2, 10, 100], 'universe sizes v >= 2');
  const from = numParam(params, 'from', 0.05, { min: 1e-6 });
  const to = numParam(params, 'to', 5, { min: 1e-6, max: 700 });
  const step = numParam(params, 'step', 0.05, { min: 1e-6 });
  const rs = listParam(params, 'outputs', [2, 16, 1024, 1048576], 'output counts r');
  const vR = numParam(params, 'outputsV', 2, { min: 2, int: true });
  const grid = epsGrid(from, to, step);
  const byV = vs.map((v) => grid.map((e) => databaseLeakageBound(u, v, e)));
  const byR = rs.map((r) => grid.map((e) => databaseLeakageBoundWithOutputs(u, vR, e, r)));
  const indiv = grid.map((e) => individualLeakageBound(e));
  const at = (e: number) => vs.map((v) => databaseLeakageBound(u, v, e));
  const e1 = 1;
  const sat = vs.map((v) => u * Math.log2(v));
  const findings = [
    `Databases of u = ${u} individuals with v values each, Hamming metric (standard eps-DP). The bound u log2(v e^eps / (v - 1 + e^eps)) is reached by some mechanism under the uniform prior, so it is the exact worst case, not an estimate.`,
    `- At eps = ${e1}: ${vs.map((v, k) => `v = ${v}: ${f(at(e1)[k]!)} bits (of ${f(sat[k]!)} bits of secret)`).join('; ')}. At eps = 0.1: ${vs.map((v) => `v = ${v}: ${f(databaseLeakageBound(u, v, 0.1))}`).join('; ')} bits.`,
    `- For small eps the bound is about u (v-1)/v eps log2(e) bits, linear in eps and nearly independent of v; for large eps it saturates at u log2 v (the whole database). The larger v, the later it saturates (chart bound-vs-eps).`,
    `- About one individual (others known) an eps-DP mechanism leaks at most log2(e^eps) = eps log2(e) bits: ${f(individualLeakageBound(e1))} bits at eps = 1, whatever u and v. eps-DP is a per-individual guarantee; the total leakage about a database of ${u} grows with u.`,
    (() => {
      const gaps = rs.map((r, k) => {
        let best = 0;
        let at = grid[0]!;
        grid.forEach((e, j) => {
          const g = Math.min(Math.log2(r), databaseLeakageBound(u, vR, e)) - byR[k]![j]!;
          if (g > best) {
            best = g;
            at = e;
          }
        });
        return `r = ${r}: ${f(byR[k]![grid.indexOf(0.1) >= 0 ? grid.indexOf(0.1) : 0]!)} bits at eps = ${grid[grid.indexOf(0.1) >= 0 ? grid.indexOf(0.1) : 0]}, ${f(databaseLeakageBoundWithOutputs(u, vR, 1, r))} at eps = 1 (largest gain over min(log2 r, any-r bound): ${f(best)} bits at eps = ${at})`;
      });
      return `- With at most r outputs (v = ${vR}): ${gaps.join('; ')}. A mechanism with few outputs cannot leak more than log2 r bits, and the SPEC §5 formula is tighter still where eps is small (chart bound-with-outputs).`;
    })(),
  ];
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
        title: `Leakage bound (bits) against eps, u = ${u}`,
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
        title: `Max leakage of any eps-DP mechanism, u = ${u}`,
        type: 'line',
        xLabel: 'eps',
        yLabel: 'bits',
        yMin: 0,
        series: vs.map((v, k) => ({ label: `v = ${v}`, x: grid, y: byV[k]! })),
      },
      {
        id: 'bound-with-outputs',
        title: `Max leakage with at most r outputs, u = ${u}, v = ${vR}`,
        type: 'line',
        xLabel: 'eps',
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
