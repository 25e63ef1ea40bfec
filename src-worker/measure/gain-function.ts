import { assertPositiveInt } from '../../src-shared/errors';
import { identityGuessFunction, type GainFunction, type LossFunction } from './guess-function';

/**
 * Binary (identity) gain g(w, x) = 1 if w = x else 0: V_g = Bayes
 * vulnerability (SPEC §3). Best guess: the most likely secret.
 */
export function binaryGain(n: number, labels?: (i: number) => string): GainFunction {
  assertPositiveInt(n, 'number of secrets');
  return identityGuessFunction('gain', 'bin', n, [1, 0], { pick: 'argmax', affine: [0, 1] }, labels);
}

/**
 * The gain function c - l(w, x) of a loss (c = 0 by default, i.e. g = -l).
 * V_g[pi > C] = c - U_l[pi > C] with the same optimal remap. With c = 1 the
 * binary loss becomes the binary gain, and nib becomes "guess anything but
 * the secret".
 */
export function gainFromLoss(loss: LossFunction, c = 0): GainFunction {
  return {
    sense: 'gain',
    name: c === 0 ? `-${loss.name}` : `${c}-${loss.name}`,
    secrets: loss.secrets,
    guesses: loss.guesses,
    guessLabel: (w) => loss.guessLabel(w),
    value: (w, x) => c - loss.value(w, x),
    best: (q) => {
      const b = loss.best(q);
      let s = 0;
      for (let x = 0; x < q.length; x++) s += q[x]!;
      return { w: b.w, value: c * s - b.value };
    },
  };
}
