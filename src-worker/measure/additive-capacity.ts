import type { RowSource } from '../mechanism/channel';
import { assertChannelShape } from './prior-for-channel';

/**
 * Additive capacity of a channel: 1 - sum_y min_x C[x][y] (SPEC §3), one
 * streaming pass: a running min per column.
 */
export function additiveCapacity(channel: RowSource): number {
  assertChannelShape(channel);
  const m = channel.cols;
  const buf = new Float64Array(m);
  const colMin = new Float64Array(m).fill(Infinity);
  for (let x = 0; x < channel.rows; x++) {
    channel.row(x, buf);
    for (let y = 0; y < m; y++) if (buf[y]! < colMin[y]!) colMin[y] = buf[y]!;
  }
  let s = 0;
  for (let y = 0; y < m; y++) s += colMin[y]!;
  return 1 - s;
}
