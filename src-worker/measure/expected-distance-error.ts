import { MechError } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import type { Domain } from '../metric/domain';
import { priorForChannel } from './prior-for-channel';

/**
 * Expected distance error (quality loss) sum_x pi_x sum_y C[x][y] d(x, y)
 * (SPEC §3): reports are read as points of the domain (no remap). One pass
 * over the rows; distances come from domain.distance, never a dense matrix.
 * `reportPoint` maps an output column to a domain point when the outputs are
 * not the domain's points in order.
 */
export function expectedDistanceError(
  pi: ArrayLike<number>,
  channel: RowSource,
  domain: Domain,
  reportPoint?: (y: number) => number,
): number {
  const p = priorForChannel(pi, channel);
  if (channel.rows !== domain.n)
    throw new MechError(
      'invalid-input',
      `channel has ${channel.rows} rows but the domain ${domain.spec} has ${domain.n} points`,
    );
  if (!reportPoint && channel.cols !== domain.n) {
    throw new MechError(
      'invalid-input',
      `channel has ${channel.cols} outputs but the domain ${domain.spec} has ${domain.n} points; say which point each output reports`,
    );
  }
  const m = channel.cols;
  const pt = new Int32Array(m);
  for (let y = 0; y < m; y++) {
    const v = reportPoint ? reportPoint(y) : y;
    if (!Number.isInteger(v) || v < 0 || v >= domain.n)
      throw new MechError('invalid-input', `output ${y} is mapped to ${v}, not a point of ${domain.spec}`);
    pt[y] = v;
  }
  return faceValueCost(p, channel, (x, y) => domain.distance(x, pt[y]!));
}

/**
 * sum_x p_x sum_y C[x][y] cost(x, y): the expected cost of taking each report
 * at face value, streaming rows (secrets of prior weight 0 and zero entries
 * are skipped; each row's sum is weighted once). The expected distance error
 * here, and the loss before a remap in remap/bayes-remap.ts.
 */
export function faceValueCost(
  p: ArrayLike<number>,
  channel: RowSource,
  cost: (x: number, y: number) => number,
): number {
  const m = channel.cols;
  const buf = new Float64Array(m);
  let total = 0;
  for (let x = 0; x < channel.rows; x++) {
    const px = p[x]!;
    if (px === 0) continue;
    channel.row(x, buf);
    let s = 0;
    for (let y = 0; y < m; y++) {
      const c = buf[y]!;
      if (c !== 0) s += c * cost(x, y);
    }
    total += px * s;
  }
  return total;
}
