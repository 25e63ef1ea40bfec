import type { RowSource } from '../mechanism/channel';
import { priorForChannel } from './prior-for-channel';

interface ChannelMeasures {
  /** V(pi) = max_x pi_x */
  vulnerability: number;
  /** V[pi > C] = sum_y max_x pi_x C[x][y] = binary-gain utility with an optimal remap */
  posteriorVulnerability: number;
  /** log2(V[pi > C] / V(pi)) */
  leakage: number;
  /** sum_y max_x C[x][y] */
  multiplicativeCapacity: number;
  /** 1 - sum_y min_x C[x][y] */
  additiveCapacity: number;
  /** log2 of the multiplicative capacity */
  minCapacity: number;
  /** The optimal (Bayes) remap w(y). */
  remap: Int32Array;
}

/**
 * The summary measures a mechanism job reports (SPEC §3): the Bayes measures
 * plus the utility with an optimal remap under binary gain (= V[pi > C]).
 * jobs/engine.ts measureChannel returns them for any channel, and
 * measure/structured/tight-measures.ts for tight-constraints mechanisms.
 */
export interface Measures extends ChannelMeasures {
  /** Utility with an optimal remap under binary gain = V[pi > C] (SPEC §3). */
  utility: number;
}

/**
 * All the Bayes measures of SPEC §3 in ONE streaming pass over the rows
 * (the CLI's `measure` command on an implicit mechanism reads each row once):
 * running max of pi_x C[x][y], max and min of C[x][y] per column.
 */
export function channelMeasures(pi: ArrayLike<number>, channel: RowSource): ChannelMeasures {
  const p = priorForChannel(pi, channel);
  const m = channel.cols;
  const buf = new Float64Array(m);
  const jointMax = new Float64Array(m).fill(-1);
  const colMax = new Float64Array(m).fill(-Infinity);
  const colMin = new Float64Array(m).fill(Infinity);
  const remap = new Int32Array(m);
  let vulnerability = 0;
  for (let x = 0; x < channel.rows; x++) {
    const px = p[x]!;
    if (px > vulnerability) vulnerability = px;
    channel.row(x, buf);
    for (let y = 0; y < m; y++) {
      const c = buf[y]!;
      const v = px * c;
      if (v > jointMax[y]!) {
        jointMax[y] = v;
        remap[y] = x;
      }
      if (c > colMax[y]!) colMax[y] = c;
      if (c < colMin[y]!) colMin[y] = c;
    }
  }
  let post = 0;
  let mult = 0;
  let minSum = 0;
  for (let y = 0; y < m; y++) {
    post += Math.max(0, jointMax[y]!);
    mult += colMax[y]!;
    minSum += colMin[y]!;
  }
  return {
    vulnerability,
    posteriorVulnerability: post,
    leakage: Math.log2(post / vulnerability),
    multiplicativeCapacity: mult,
    additiveCapacity: 1 - minSum,
    minCapacity: Math.log2(mult),
    remap,
  };
}
