/**
 * What a `rows` job returns, computed from any channel seen row by row:
 * listed rows over a column range, or block means. No engine
 * imports, so the app host can serve channels it keeps without a worker.
 */
import { MechError } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import { type RowsRequest, ROWS_MAX_ENTRIES, type RowsResult } from '../../src-shared/protocol/index';
import { checkCancelled, type JobContext } from './context';

/**
 * Listed rows or block means of a channel seen as rows (pure: the rows job
 * and the app host, for the channels it keeps, call it).
 */
export function rowsOf(
  ch: RowSource,
  req: Pick<RowsRequest, 'rows' | 'colFrom' | 'colTo' | 'blocks'>,
  ctx?: JobContext,
): RowsResult {
  const buf = new Float64Array(ch.cols);
  if (req.rows) {
    const colFrom = req.colFrom ?? 0;
    const colTo = Math.min(req.colTo ?? ch.cols, ch.cols);
    const bad = req.rows.find((i) => i >= ch.rows);
    if (bad !== undefined)
      throw new MechError(
        'invalid-input',
        `row ${bad} does not exist: the channel has ${ch.rows} rows (0 to ${ch.rows - 1})`,
      );
    if (colFrom >= ch.cols)
      throw new MechError('invalid-input', `colFrom ${colFrom} does not exist: the channel has ${ch.cols} columns`);
    const entries = req.rows.length * (colTo - colFrom);
    if (entries > ROWS_MAX_ENTRIES) {
      throw new MechError(
        'too-large',
        `${req.rows.length} rows x ${colTo - colFrom} columns is ${entries} entries, over the ${ROWS_MAX_ENTRIES} one answer carries; ask for fewer rows or a column range`,
      );
    }
    const data: number[][] = [];
    for (const i of req.rows) {
      ch.row(i, buf);
      data.push(Array.from(buf.subarray(colFrom, colTo)));
    }
    const colLabels: string[] = [];
    for (let j = colFrom; j < colTo; j++) colLabels.push(ch.colLabel(j));
    return {
      type: 'rows',
      rows: ch.rows,
      cols: ch.cols,
      indices: req.rows.slice(),
      colFrom,
      colTo,
      data,
      rowLabels: req.rows.map((i) => ch.rowLabel(i)),
      colLabels,
    };
  }
  const blocks = blockMeans(ch, req.blocks!, ctx);
  return { type: 'rows', rows: ch.rows, cols: ch.cols, blocks };
}

/** Edges of `parts` nearly equal consecutive ranges of 0..n-1 (the same split as the page's downsample). */
function edges(n: number, parts: number): number[] {
  const e: number[] = [];
  for (let k = 0; k <= parts; k++) e.push(Math.floor((k * n) / parts));
  return e;
}

/** Block means of a channel streamed row by row (one pass, Float64Array sums). */
function blockMeans(ch: RowSource, maxBlocks: number, ctx?: JobContext): NonNullable<RowsResult['blocks']> {
  const blocksY = Math.min(ch.rows, maxBlocks);
  const blocksX = Math.min(ch.cols, maxBlocks);
  const rowEdges = edges(ch.rows, blocksY);
  const colEdges = edges(ch.cols, blocksX);
  const colBlock = new Int32Array(ch.cols);
  for (let bx = 0; bx < blocksX; bx++) for (let j = colEdges[bx]!; j < colEdges[bx + 1]!; j++) colBlock[j] = bx;
  const sums = new Float64Array(blocksY * blocksX);
  const buf = new Float64Array(ch.cols);
  for (let by = 0; by < blocksY; by++) {
    if (ctx) {
      checkCancelled(ctx.signal);
      ctx.progress(by / blocksY, 'block means');
    }
    const base = by * blocksX;
    for (let i = rowEdges[by]!; i < rowEdges[by + 1]!; i++) {
      ch.row(i, buf);
      for (let j = 0; j < ch.cols; j++) sums[base + colBlock[j]!]! += buf[j]!;
    }
  }
  const means: number[] = new Array(blocksY * blocksX);
  let vmax = 0;
  for (let by = 0; by < blocksY; by++)
    for (let bx = 0; bx < blocksX; bx++) {
      const k = by * blocksX + bx;
      const v = sums[k]! / ((rowEdges[by + 1]! - rowEdges[by]!) * (colEdges[bx + 1]! - colEdges[bx]!));
      means[k] = v;
      if (v > vmax) vmax = v;
    }
  const labels = (e: number[], parts: number, label: (i: number) => string): { first: string[]; last: string[] } => {
    const first: string[] = [];
    const last: string[] = [];
    for (let k = 0; k < parts; k++) {
      first.push(label(e[k]!));
      last.push(label(e[k + 1]! - 1));
    }
    return { first, last };
  };
  const rl = labels(rowEdges, blocksY, (i) => ch.rowLabel(i));
  const cl = labels(colEdges, blocksX, (j) => ch.colLabel(j));
  return {
    blocksY,
    blocksX,
    rowEdges,
    colEdges,
    means,
    vmax,
    rowFirst: rl.first,
    rowLast: rl.last,
    colFirst: cl.first,
    colLast: cl.last,
  };
}
