import { assertPositiveInt } from '../errors';
import { bestIdentity, type LossFunction } from './guessFunction';

/**
 * Binary loss l(w, x) = 0 if w = x else 1 (SPEC §3). Best guess: the most
 * likely secret; expected loss of a column = sum(q) - max(q), so
 * U_bin[pi > C] = 1 - V[pi > C].
 */
export function binaryLoss(n: number, labels?: (i: number) => string): LossFunction {
  assertPositiveInt(n, 'number of secrets');
  const f: LossFunction = {
    sense: 'loss',
    name: 'bin',
    secrets: n,
    guesses: n,
    guessLabel: (w) => (labels ? labels(w) : String(w)),
    value: (w, x) => (w === x ? 0 : 1),
    identityGuess: { pick: 'argmax', affine: [1, -1] },
    best: (q) => bestIdentity(f, q),
  };
  return f;
}
