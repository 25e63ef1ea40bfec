import { MechError } from '../../errors';
import { Matrix } from '../../linalg/matrix';
import { NEG_TOL, SUM_TOL } from '../../numeric/tolerance';
import type { Mechanism, RowSource } from '../channel';
import { FunctionRowSource } from '../functionRowSource';

/** Check that P is row-stochastic (entries >= -NEG_TOL, rows summing to 1 within SUM_TOL). */
export function assertStochastic(p: Matrix, what: string): void {
  for (let i = 0; i < p.rows; i++) {
    let s = 0;
    for (let j = 0; j < p.cols; j++) {
      const v = p.get(i, j);
      if (!Number.isFinite(v)) throw new MechError('invalid-input', `${what}: entry (${i}, ${j}) is ${v}, not a number`);
      if (v < -NEG_TOL) throw new MechError('invalid-input', `${what}: entry (${i}, ${j}) is negative (${v})`);
      s += v;
    }
    if (Math.abs(s - 1) > SUM_TOL) throw new MechError('invalid-input', `${what}: row ${i} sums to ${s}, not 1`);
  }
}

/**
 * Row-wise product of a channel with a dense m x k matrix: row i of C P in
 * O(m k) from row i of C (C itself is never materialised).
 */
export function productRowSource(c: RowSource, p: Matrix, colLabel: (j: number) => string): RowSource {
  const buf = new Float64Array(c.cols);
  const k = p.cols;
  const d = p.data;
  const fill = (i: number, out: Float64Array): void => {
    c.row(i, buf);
    out.fill(0, 0, k);
    for (let y = 0; y < c.cols; y++) {
      const v = buf[y]!;
      if (v === 0) continue;
      const o = y * k;
      for (let z = 0; z < k; z++) out[z] += v * d[o + z]!;
    }
  };
  return new FunctionRowSource(c.rows, k, fill, (i) => c.rowLabel(i), colLabel);
}

/**
 * Post-processing C P (SPEC §2) by a row-stochastic m x k matrix P (a remap
 * of outputs, deterministic or randomised): never weakens privacy, so the
 * guarantee is the mechanism's own.
 */
export function postProcess(m: Mechanism, p: Matrix, outputLabels?: string[]): Mechanism {
  const c = m.channel;
  if (p.rows !== c.cols) {
    throw new MechError('invalid-input', `post-processing matrix has ${p.rows} rows but the mechanism has ${c.cols} outputs`);
  }
  if (outputLabels && outputLabels.length !== p.cols) {
    throw new MechError('invalid-input', `post-processing: ${outputLabels.length} output labels for ${p.cols} columns`);
  }
  assertStochastic(p, 'post-processing matrix');
  return {
    kind: 'combined',
    channel: productRowSource(c, p, (j) => (outputLabels ? outputLabels[j]! : String(j))),
    guaranteedEpsilon: m.guaranteedEpsilon,
    guarantee: `${m.guaranteedEpsilon}*d-private: post-processing of ${m.kind} cannot weaken privacy`,
    info: { combinator: 'post-process', outputs: p.cols },
  };
}
