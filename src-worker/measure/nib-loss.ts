import { assertPositiveInt } from '../../src-shared/errors';
import { identityGuessFunction, type LossFunction } from './guess-function';

/**
 * "nib" loss, the dual of binary: l(w, x) = 1 if w = x else 0 (SPEC §3) —
 * an adversary penalised for hitting the secret. Best guess: the least likely
 * secret; expected loss of a column = min(q).
 */
export function nibLoss(n: number, labels?: (i: number) => string): LossFunction {
  assertPositiveInt(n, 'number of secrets');
  return identityGuessFunction('loss', 'nib', n, [1, 0], { pick: 'argmin', affine: [0, 1] }, labels);
}
