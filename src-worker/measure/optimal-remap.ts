import { MechError } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import type { GuessFunction } from './guess-function';
import { priorForChannel } from './prior-for-channel';
import { forEachWeightedColumn } from './weighted-columns';

export interface RemapResult {
  /** sum_y best_w sum_x pi_x C[x][y] f(w, x): U_l[pi > C] for a loss, V_g[pi > C] for a gain (SPEC §3). */
  value: number;
  /** The optimal remap: output y -> guess w(y). Ties go to the smallest guess index. */
  remap: Int32Array;
  /** Per-output contribution best_w sum_x pi_x C[x][y] f(w, x). */
  columnValue: Float64Array;
}

/**
 * The optimal remap of a channel's outputs to guesses for a prior and a loss
 * or gain function, streaming over rows (SPEC §3). Identity-guess functions
 * (binary, nib) take one pass with a running max/min per column; the others
 * visit the columns q_y = pi .* C[., y] block by block (forEachWeightedColumn).
 */
export function optimalRemap(pi: ArrayLike<number>, channel: RowSource, f: GuessFunction): RemapResult {
  const p = priorForChannel(pi, channel);
  if (f.secrets !== channel.rows) {
    throw new MechError(
      'invalid-input',
      `${f.sense} function '${f.name}' is defined on ${f.secrets} secrets but the channel has ${channel.rows} rows`,
    );
  }
  const m = channel.cols;
  const remap = new Int32Array(m);
  const columnValue = new Float64Array(m);
  if (f.identityGuess) {
    const { pick, affine } = f.identityGuess;
    const buf = new Float64Array(m);
    const ext = new Float64Array(m).fill(pick === 'argmax' ? -Infinity : Infinity);
    const sum = new Float64Array(m);
    for (let x = 0; x < channel.rows; x++) {
      const px = p[x]!;
      channel.row(x, buf);
      for (let y = 0; y < m; y++) {
        const v = px * buf[y]!;
        sum[y]! += v;
        if (pick === 'argmax' ? v > ext[y]! : v < ext[y]!) {
          ext[y] = v;
          remap[y] = x;
        }
      }
    }
    let value = 0;
    for (let y = 0; y < m; y++) {
      const c = affine[0] * sum[y]! + affine[1] * ext[y]!;
      columnValue[y] = c;
      value += c;
    }
    return { value, remap, columnValue };
  }
  let value = 0;
  forEachWeightedColumn(p, channel, (y, q) => {
    const b = f.best(q);
    remap[y] = b.w;
    columnValue[y] = b.value;
    value += b.value;
  });
  return { value, remap, columnValue };
}

/**
 * The best guess with no channel: best_w sum_x pi_x f(w, x) — prior
 * g-vulnerability V_g(pi) for a gain, prior expected loss U_l(pi) for a loss.
 */
export function priorBestGuess(p: Float64Array, f: GuessFunction): { value: number; w: number } {
  if (f.secrets !== p.length) {
    throw new MechError(
      'invalid-input',
      `${f.sense} function '${f.name}' is defined on ${f.secrets} secrets but the prior has ${p.length} entries`,
    );
  }
  const b = f.best(p);
  return { value: b.value, w: b.w };
}
