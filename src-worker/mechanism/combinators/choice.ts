import { MechError, invalid } from '../../../src-shared/errors';
import type { Mechanism } from '../channel';
import { FunctionRowSource } from '../function-row-source';

/**
 * Probabilistic choice p*M + (1-p)*M' (SPEC §2): with probability p run M,
 * otherwise M', and report which one ran; the outputs are M's columns and
 * M''s side by side (labels prefixed "1:" and "2:"). Each column's ratios
 * are those of its own mechanism, so the result is max(eps, eps')*d-private
 * (only the one used when p is 0 or 1).
 */
export function probabilisticChoice(p: number, m1: Mechanism, m2: Mechanism): Mechanism {
  if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1)
    invalid(`choice probability p must be a number in [0, 1], got ${String(p)}`);
  const a = m1.channel;
  const b = m2.channel;
  if (a.rows !== b.rows) {
    throw new MechError(
      'invalid-input',
      `probabilistic choice needs both mechanisms on the same secrets: ${a.rows} rows vs ${b.rows} rows`,
    );
  }
  for (let i = 0; i < a.rows; i++) {
    if (a.rowLabel(i) !== b.rowLabel(i)) {
      throw new MechError(
        'invalid-input',
        `probabilistic choice: secret ${i} is '${a.rowLabel(i)}' in the first mechanism but '${b.rowLabel(i)}' in the second`,
      );
    }
  }
  const ma = a.cols;
  const bufB = new Float64Array(b.cols);
  const fill = (i: number, out: Float64Array): void => {
    a.row(i, out);
    for (let j = 0; j < ma; j++) out[j] = p * out[j]!;
    b.row(i, bufB);
    for (let j = 0; j < b.cols; j++) out[ma + j] = (1 - p) * bufB[j]!;
  };
  const eps =
    p === 1
      ? m1.guaranteedEpsilon
      : p === 0
        ? m2.guaranteedEpsilon
        : Math.max(m1.guaranteedEpsilon, m2.guaranteedEpsilon);
  return {
    kind: 'combined',
    channel: new FunctionRowSource(
      a.rows,
      ma + b.cols,
      fill,
      (i) => a.rowLabel(i),
      (j) => (j < ma ? `1:${a.colLabel(j)}` : `2:${b.colLabel(j - ma)}`),
    ),
    guaranteedEpsilon: eps,
    guarantee: `${eps}*d-private: choice of ${m1.kind} (p = ${p}) and ${m2.kind}; each output column keeps its mechanism's ratios`,
    facts: { kind: 'combinator', combinator: 'choice', p, first: m1.kind, second: m2.kind },
  };
}
