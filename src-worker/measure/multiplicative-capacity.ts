import type { RowSource } from '../mechanism/channel';
import { assertChannelShape } from './prior-for-channel';

/**
 * Multiplicative capacity of a channel: sum_y max_x C[x][y] (SPEC §3), one
 * streaming pass. It is the largest V[pi > C] / V(pi) over priors (reached at
 * the uniform prior), hence min-capacity = log2 of it.
 */
export function multiplicativeCapacity(channel: RowSource): number {
  assertChannelShape(channel);
  const m = channel.cols;
  const buf = new Float64Array(m);
  const colMax = new Float64Array(m).fill(-Infinity);
  for (let x = 0; x < channel.rows; x++) {
    channel.row(x, buf);
    for (let y = 0; y < m; y++) if (buf[y]! > colMax[y]!) colMax[y] = buf[y]!;
  }
  let s = 0;
  for (let y = 0; y < m; y++) s += colMax[y]!;
  return s;
}

/** Min-capacity log2 sum_y max_x C[x][y] in bits (SPEC §3). */
export function minCapacity(channel: RowSource): number {
  return Math.log2(multiplicativeCapacity(channel));
}
