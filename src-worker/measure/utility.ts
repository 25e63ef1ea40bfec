import type { RowSource } from '../mechanism/channel';
import { posteriorVulnerability } from './posterior-vulnerability';

/**
 * Utility of a mechanism for a prior with an optimal remap under binary gain
 * (the probability that the best guess of the true answer is right). Equal to
 * the posterior Bayes vulnerability V[pi > C] (SPEC §3); the remap is
 * w(y) = argmax_x pi_x C[x][y].
 */
export function binaryUtility(pi: ArrayLike<number>, channel: RowSource): { value: number; remap: Int32Array } {
  const r = posteriorVulnerability(pi, channel);
  return { value: r.value, remap: r.remap };
}
