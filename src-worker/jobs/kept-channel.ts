/**
 * Channels the app host keeps (an optimal LP's, which cannot be rebuilt
 * without solving again), as they travel between the host and its worker
 * threads: the doubles in a Float64Array on a SharedArrayBuffer (a worker
 * and the host see the same memory, nothing is copied or parsed, whatever
 * the size: 2,500 x 2,500 is 50 MB), the labels as strings.
 *
 * - A mechanism job asked to keep its channel hands it to `ctx.keep`; the
 *   worker copies it here once (sharedChannel) and returns it beside its
 *   reply (src-main/dispatcher/channel-store.ts stores and persists it).
 * - A measure, check or apply job naming a `channelRef` gets the kept
 *   channel from `ctx.keptChannel` (the dispatcher passes it with the task)
 *   and reads it in place (keptRowSource), validated like any channel.
 */
import { MechError } from '../../src-shared/errors';
import { Matrix } from '../linalg/matrix';
import { DenseChannel, validateChannel, type RowSource } from '../mechanism/channel';

export interface KeptChannel {
  rows: number;
  cols: number;
  /** Row-major doubles, rows * cols of them (on a SharedArrayBuffer when shared with workers). */
  data: Float64Array;
  rowLabels: string[];
  colLabels: string[];
}

/** A copy of any channel into shared memory, row by row (the one copy a kept channel costs the worker). */
export function sharedChannel(src: RowSource): KeptChannel {
  const n = src.rows * src.cols;
  const data = new Float64Array(new SharedArrayBuffer(n * Float64Array.BYTES_PER_ELEMENT));
  const rowLabels: string[] = [];
  const colLabels: string[] = [];
  for (let i = 0; i < src.rows; i++) {
    src.row(i, data.subarray(i * src.cols, (i + 1) * src.cols));
    rowLabels.push(src.rowLabel(i));
  }
  for (let j = 0; j < src.cols; j++) colLabels.push(src.colLabel(j));
  return { rows: src.rows, cols: src.cols, data, rowLabels, colLabels };
}

/** A kept channel read in place as a dense channel (no copy), checked like any channel a job is given. */
export function keptRowSource(ch: KeptChannel, what = 'kept channel'): DenseChannel {
  if (ch.data.length !== ch.rows * ch.cols || ch.rowLabels.length !== ch.rows || ch.colLabels.length !== ch.cols)
    throw new MechError(
      'invalid-input',
      `the ${what} does not have the shape its labels say (${ch.rows} x ${ch.cols})`,
    );
  const dense = new DenseChannel(new Matrix(ch.rows, ch.cols, ch.data), ch.rowLabels, ch.colLabels);
  validateChannel(dense, what);
  return dense;
}

/** The channel a request names by `channelRef`, as the job's context holds it; a clear error when it does not. */
export function channelOfRef(
  ref: string,
  keptChannel: ((ref: string) => KeptChannel | undefined) | undefined,
): DenseChannel {
  const ch = keptChannel?.(ref);
  if (!ch)
    throw new MechError(
      'invalid-input',
      `channelRef ${ref} names a channel kept by the app host; it cannot be used here (send the channel or the mechanism's construction)`,
    );
  return keptRowSource(ch, `kept channel ${ref}`);
}
