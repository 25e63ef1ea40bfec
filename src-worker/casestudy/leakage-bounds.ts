/**
 * Case study 2, leakage bounds for databases (SPEC §5): any eps-DP
 * mechanism on V^u (Hamming metric, v = |V|) leaks at most
 * u log2(v e^eps / (v - 1 + e^eps)) bits, tight for the uniform prior; with
 * at most r outputs at most log2(r e^(eps u) / ((v-1+e^eps)^l - e^(eps l) + e^(eps u))),
 * l = floor(log_v r); about one individual at most log2(e^eps) bits.
 */
import { databaseLeakageBound, databaseLeakageBoundWithOutputs, individualLeakageBound } from '../bound/database-leakage-bounds';
import { studyParams, epsGrid, f, type Study, type CaseStudyResult } from './study';

export const leakageBoundsStudy: Study = (params): CaseStudyResult => {
  const { u, values: vs, from, to, step, outputs: rs, outputsV: vR } = studyParams('leakage-bounds', params);
  const grid = epsGrid(from, to, step);
  const byV = vs.map((v) => grid.map((e) => databaseLeakageBound(u, v, e)));
  const byR = rs.map((r) => grid.map((e) => databaseLeakageBoundWithOutputs(u, vR, e, r)));
  const indiv = grid.map((e) => individualLeakageBound(e));
  const at = (e: number) => vs.map((v) => databaseLeakageBound(u, v, e));
  const e1 = 1;
  const sat = vs.map((v) => u * Math.log2(v));
  const findings = [
    `The most a mechanism with standard differential privacy can reveal about a database of ${u} people, each with one of v values: this bound is reached by some mechanism, so it is the exact worst case, not an estimate.`,
    `- At ε = ${e1}: ${vs.map((v, k) => `${v} values: ${f(at(e1)[k]!)} bits of the ${f(sat[k]!)} bits the database holds`).join('; ')}.`,
    `- About one person (everyone else known) it reveals at most ${f(individualLeakageBound(e1))} bits at ε = 1, however many people there are: the guarantee is per person, and what it reveals about the whole database grows with their number.`,
    `- A mechanism with only r possible outputs cannot reveal more than log2 r bits; the formula that counts outputs is not always the tighter bound (see the mathematics), so take the smaller of the bounds.`,
  ];
  const details = [
    `Databases of u = ${u} individuals with v values each, Hamming metric (standard eps-DP). The bound u log2(v e^eps / (v - 1 + e^eps)) is reached by some mechanism under the uniform prior, so it is the exact worst case, not an estimate.`,
    `- At eps = ${e1}: ${vs.map((v, k) => `v = ${v}: ${f(at(e1)[k]!)} bits (of ${f(sat[k]!)} bits of secret)`).join('; ')}. At eps = 0.1: ${vs.map((v) => `v = ${v}: ${f(databaseLeakageBound(u, v, 0.1))}`).join('; ')} bits.`,
    `- For small eps the bound is about u (v-1)/v eps log2(e) bits, linear in eps and nearly independent of v; for large eps it saturates at u log2 v (the whole database). The larger v, the later it saturates (chart bound-vs-eps).`,
    `- About one individual (others known) an eps-DP mechanism leaks at most log2(e^eps) = eps log2(e) bits: ${f(individualLeakageBound(e1))} bits at eps = 1, whatever u and v. eps-DP is a per-individual guarantee; the total leakage about a database of ${u} grows with u.`,
    (() => {
      const k01 = grid.indexOf(0.1) >= 0 ? grid.indexOf(0.1) : 0;
      let bestGain = 0;
      let bestAt = '';
      const looser: string[] = [];
      rs.forEach((r, k) => {
        grid.forEach((e, j) => {
          const any = databaseLeakageBound(u, vR, e);
          const g = Math.min(Math.log2(r), any) - byR[k]![j]!;
          if (g > bestGain) {
            bestGain = g;
            bestAt = `r = ${r}, eps = ${e}`;
          }
        });
        const worse = grid.filter((e, j) => byR[k]![j]! > databaseLeakageBound(u, vR, e) + 1e-9);
        if (worse.length) {
          const e0 = worse[0]!;
          const j0 = grid.indexOf(e0);
          looser.push(
            `r = ${r} at ${worse.length === 1 ? `eps = ${e0}` : `${worse.length} eps values from ${e0} to ${worse[worse.length - 1]}`} (at eps = ${e0}: ${f(byR[k]![j0]!)} against ${f(databaseLeakageBound(u, vR, e0))} bits)`,
          );
        }
      });
      return [
        `- With at most r outputs (v = ${vR}) the SPEC §5 formula gives ${rs.map((r, k) => `r = ${r}: ${f(byR[k]![k01]!)} bits at eps = ${grid[k01]}, ${f(databaseLeakageBound(u, vR, 1) > 0 ? databaseLeakageBoundWithOutputs(u, vR, 1, r) : NaN)} at eps = 1`).join('; ')}. Above small eps it is essentially log2 r: a mechanism with r outputs cannot leak more than log2 r bits.`,
        `- It improves on the simple min(log2 r, any-r bound) by at most ${f(bestGain, 3)} bits on this grid${bestAt ? ` (${bestAt})` : ''}${looser.length ? `, and it is LOOSER than the any-r bound for ${looser.join('; ')}. So the formula alone is not the best bound: take the minimum of the bounds (the chart plots the formula as stated)` : ''}.`,
      ].join('\n');
    })(),
  ];
  return {
    type: 'case-study',
    study: 'leakage-bounds',
    title: `Database leakage bounds, u = ${u}`,
    findings,
    details,
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
