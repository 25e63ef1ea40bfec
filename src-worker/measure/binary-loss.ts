import { assertPositiveInt } from '../../src-shared/errors';
import { identityGuessFunction, type LossFunction } from './guess-function';

/**
 * Binary loss l(w, x) = 0 if w = x else 1 (SPEC §3). Best guess: the most
 * likely secret; expected loss of a column = sum(q) - max(q), so
 * U_bin[pi > C] = 1 - V[pi > C].
 */
export function binaryLoss(n: number, labels?: (i: number) => string): LossFunction {
  assertPositiveInt(n, 'number of secrets');
  return identityGuessFunction('loss', 'bin', n, [0, 1], { pick: 'argmax', affine: [1, -1] }, labels);
}
