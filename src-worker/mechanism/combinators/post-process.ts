import { MechError } from '../../../src-shared/errors';
import { Matrix } from '../../linalg/matrix';
import { DenseChannel, validateChannel, type Mechanism, type RowSource } from '../channel';
import { FunctionRowSource } from '../function-row-source';

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
      for (let z = 0; z < k; z++) out[z]! += v * d[o + z]!;
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
    throw new MechError(
      'invalid-input',
      `post-processing matrix has ${p.rows} rows but the mechanism has ${c.cols} outputs`,
    );
  }
  if (outputLabels && outputLabels.length !== p.cols) {
    throw new MechError('invalid-input', `post-processing: ${outputLabels.length} output labels for ${p.cols} columns`);
  }
  // Row-stochastic P: finite, >= -NEG_TOL, rows summing to 1 within SUM_TOL.
  validateChannel(new DenseChannel(p), 'post-processing matrix');
  return {
    kind: 'combined',
    channel: productRowSource(c, p, (j) => (outputLabels ? outputLabels[j]! : String(j))),
    guaranteedEpsilon: m.guaranteedEpsilon,
    guarantee: `${m.guaranteedEpsilon}*d-private: post-processing of ${m.kind} cannot weaken privacy`,
    facts: { kind: 'combinator', combinator: 'post-process', outputs: p.cols },
  };
}
