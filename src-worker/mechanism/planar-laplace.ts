import { MechError, assertEpsilon } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import type { Mechanism } from './channel';
import { GridOffsetChannel } from './function-row-source';
import { buildPlanarOffsetTables, type PlanarOffsetTables } from './planar/offset-tables';

/**
 * Planar Laplace snapped to the grid's cells (SPEC §2): the true cell centre
 * plus continuous noise with density proportional to exp(-eps * norm(z))
 * (the grid's metric: Euclidean e^2/(2 pi) e^(-e r), Manhattan
 * (e^2/4) e^(-e d1), Chebyshev (e^2/8) e^(-e d_inf)), reported as the
 * nearest cell; the border cells absorb the unbounded tail. Post-processing
 * of a continuous eps*d-private mechanism, hence exactly eps*d-private.
 * Distances scale with the cell size s: the noise has e = eps * s per cell.
 *
 * The translation-invariant offset tables are computed once
 * (planar/offset-tables.ts); row i is generated in O(n) from them, so a
 * 1000 x 1000 grid needs 4 * 10^6 table entries, never an n x n array.
 */
export function planarLaplace(domain: Domain, eps: number): Mechanism {
  assertEpsilon(eps);
  const g = domain.structure.grid;
  if (!g)
    throw new MechError('not-applicable', `planar Laplace needs a grid domain (grid:RxC), got ${domain.spec}`, {
      domain: domain.spec,
    });
  const R = g.rows;
  const C = g.cols;
  const e = eps * g.step;
  // eps and the cell size are each valid, but their product may leave the doubles: 0 (no noise scale at
  // all: every table entry 0, rows that sum to 0) or Infinity. Refuse instead of returning a non-channel.
  if (!(e > 0) || !Number.isFinite(e)) {
    throw new MechError(
      'invalid-input',
      `planar Laplace on ${domain.spec}: eps x cell size = ${eps} x ${g.step} ${e === 0 ? 'underflows to 0' : 'overflows'}; choose eps or the grid step (step=S) so that their product is a normal positive number`,
    );
  }
  const t0 = performance.now();
  const tables = buildPlanarOffsetTables(R, C, g.metric, e);
  const buildMs = performance.now() - t0;
  const channel = new GridOffsetChannel(R * C, planarRowFiller(tables), (i) => domain.label(i), domain.spec);
  const density =
    g.metric === 'euclidean'
      ? 'eps^2/(2 pi) exp(-eps r)'
      : g.metric === 'manhattan'
        ? '(eps^2/4) exp(-eps d1)'
        : '(eps^2/8) exp(-eps d_inf)';
  return {
    kind: 'planar-laplace',
    channel,
    guaranteedEpsilon: eps,
    guarantee: `exactly eps*d-private with eps = ${eps} (${g.metric} d): snapping continuous planar Laplace to cells is post-processing`,
    facts: {
      kind: 'planar-laplace',
      metric: g.metric,
      density,
      epsPerCell: e,
      integrations: tables.integrations,
      tableBuildMs: Math.round(buildMs * 10) / 10,
      method:
        tables.kind === 'factorised'
          ? 'closed form (product of 1-D Laplace intervals)'
          : 'polar rays with closed-form radial integral, adaptive Gauss-Kronrod in angle',
    },
  };
}

/** Row filler: maps (true cell, output cell) to a table entry. */
export function planarRowFiller(t: PlanarOffsetTables): (i: number, out: Float64Array) => void {
  const R = t.rows;
  const C = t.cols;
  // Interval kind per output row / column for the current true cell: >= 0 a cell offset, < 0 a tail (-(t+1)).
  const rk = new Int32Array(R);
  const ck = new Int32Array(C);
  const describe = (dst: Int32Array, L: number, p: number): void => {
    for (let q = 0; q < L; q++) {
      if (L === 1) dst[q] = 0;
      else if (q === 0)
        dst[q] = -(p + 1); // (-inf, -p+1/2] reflected: tail t = p
      else if (q === L - 1) dst[q] = -(L - 1 - p + 1);
      else dst[q] = Math.abs(q - p);
    }
  };
  return (i: number, out: Float64Array): void => {
    const r = Math.floor(i / C);
    const c = i - r * C;
    describe(rk, R, r);
    describe(ck, C, c);
    if (t.kind === 'factorised') {
      const rc = t.rowCell!;
      const rt = t.rowTailP!;
      const cc = t.colCell!;
      const ct = t.colTailP!;
      for (let q = 0; q < R; q++) {
        const kr = rk[q]!;
        const pr = R === 1 ? 1 : kr >= 0 ? rc[kr]! : rt[-kr - 1]!;
        const o = q * C;
        for (let s = 0; s < C; s++) {
          const kc = ck[s]!;
          const pc = C === 1 ? 1 : kc >= 0 ? cc[kc]! : ct[-kc - 1]!;
          out[o + s] = pr * pc;
        }
      }
      return;
    }
    if (R === 1 && C === 1) {
      out[0] = 1;
      return;
    }
    if (R === 1 || C === 1) {
      const fc = t.fullCell!;
      const ft = t.fullTail!;
      const kinds = R === 1 ? ck : rk;
      const L = R === 1 ? C : R;
      for (let q = 0; q < L; q++) {
        const k = kinds[q]!;
        out[q] = k >= 0 ? fc[k]! : ft[-k - 1]!;
      }
      return;
    }
    const cell = t.cell!;
    const rowTail = t.rowTail!;
    const colTail = t.colTail!;
    const quad = t.quad!;
    for (let q = 0; q < R; q++) {
      const kr = rk[q]!;
      const o = q * C;
      if (kr >= 0) {
        const co = kr * C;
        for (let s = 0; s < C; s++) {
          const kc = ck[s]!;
          out[o + s] = kc >= 0 ? cell[co + kc]! : colTail[(-kc - 1) * R + kr]!;
        }
      } else {
        const tr = -kr - 1;
        const to = tr * C;
        for (let s = 0; s < C; s++) {
          const kc = ck[s]!;
          out[o + s] = kc >= 0 ? rowTail[to + kc]! : quad[to + (-kc - 1)]!;
        }
      }
    }
  };
}
