import { MechError } from '../../../src-shared/errors';
import { toDense, type Mechanism } from '../channel';
import { productRowSource } from './post-process';

/**
 * Cascade M then M' (SPEC §2): M' takes M's report as its secret, so the
 * channel is C C' (M' must have one row per output of M). The second stage
 * is post-processing of the first, so the guarantee is M's. M' is made dense
 * (refused when too large); M is streamed row by row.
 */
export function cascade(first: Mechanism, second: Mechanism): Mechanism {
  const a = first.channel;
  const b = second.channel;
  if (b.rows !== a.cols) {
    throw new MechError(
      'invalid-input',
      `cascade: the second mechanism has ${b.rows} secrets but the first has ${a.cols} outputs`,
    );
  }
  const bd = toDense(b);
  return {
    kind: 'combined',
    channel: productRowSource(a, bd.matrix, (j) => bd.colLabel(j)),
    guaranteedEpsilon: first.guaranteedEpsilon,
    guarantee: `${first.guaranteedEpsilon}*d-private: ${second.kind} after ${first.kind} is post-processing of the first stage`,
    facts: { kind: 'combinator', combinator: 'cascade', first: first.kind, second: second.kind },
  };
}
