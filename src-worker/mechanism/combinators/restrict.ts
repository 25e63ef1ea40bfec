import { MechError } from '../../../src-shared/errors';
import type { Mechanism } from '../channel';
import { FunctionRowSource } from '../function-row-source';

/**
 * Restriction of a mechanism to a subset of its secrets (SPEC §2): keep the
 * listed rows (in the given order), all outputs. Private for the same eps on
 * the sub-domain with the induced metric.
 */
export function restrictSecrets(m: Mechanism, secrets: ArrayLike<number>): Mechanism {
  const src = m.channel;
  const idx = Int32Array.from(secrets as ArrayLike<number>);
  if (idx.length === 0) throw new MechError('invalid-input', 'restriction needs at least one secret');
  const seen = new Set<number>();
  for (let k = 0; k < idx.length; k++) {
    const i = (secrets as ArrayLike<number>)[k]!;
    if (!Number.isInteger(i) || i < 0 || i >= src.rows) {
      throw new MechError('invalid-input', `restriction: secret index ${String(i)} is outside 0..${src.rows - 1}`);
    }
    if (seen.has(i)) throw new MechError('invalid-input', `restriction: secret ${src.rowLabel(i)} is listed twice`);
    seen.add(i);
  }
  return {
    kind: 'combined',
    channel: new FunctionRowSource(
      idx.length,
      src.cols,
      (i, out) => void src.row(idx[i]!, out),
      (i) => src.rowLabel(idx[i]!),
      (j) => src.colLabel(j),
    ),
    guaranteedEpsilon: m.guaranteedEpsilon,
    guarantee: `${m.guaranteedEpsilon}*d-private on the ${idx.length} kept secrets (induced metric): restriction of ${m.kind}`,
    facts: { kind: 'combinator', combinator: 'restrict', kept: idx.length, of: src.rows },
  };
}
