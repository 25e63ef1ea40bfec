import { MechError } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import type { LossFunction } from './guess-function';
import { optimalRemap, priorBestGuess, type RemapResult } from './optimal-remap';
import { validatePrior } from './prior';

function assertLoss(l: LossFunction): void {
  if (l.sense !== 'loss')
    throw new MechError('invalid-input', `'${l.name}' is a gain function; expected loss needs a loss function`);
}

/**
 * U_l[pi > C] = sum_y min_w sum_x pi_x C[x][y] l(w, x) (SPEC §3): the expected
 * loss of a user who remaps each output y to the guess w(y) minimising it.
 * The minimising remap is returned with the value.
 */
export function posteriorLoss(pi: ArrayLike<number>, channel: RowSource, l: LossFunction): RemapResult {
  assertLoss(l);
  return optimalRemap(pi, channel, l);
}

/** U_l(pi) = min_w sum_x pi_x l(w, x): the best blind guess's expected loss. */
export function priorLoss(pi: ArrayLike<number>, l: LossFunction): { value: number; w: number } {
  assertLoss(l);
  return priorBestGuess(validatePrior(pi, l.secrets), l);
}
