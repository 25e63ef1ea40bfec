import type { RowSource } from '../mechanism/channel';
import { posteriorVulnerability } from './posterior-vulnerability';
import { priorForChannel } from './prior-for-channel';

/** Min-entropy leakage log2(V[pi > C] / V(pi)) in bits (SPEC §3). */
export function minEntropyLeakage(pi: ArrayLike<number>, channel: RowSource): number {
  const p = priorForChannel(pi, channel);
  let prior = 0;
  for (let i = 0; i < p.length; i++) if (p[i]! > prior) prior = p[i]!;
  const post = posteriorVulnerability(p, channel).value;
  return Math.log2(post / prior);
}
