/**
 * Pure helpers for showing a row-major probability matrix: block downsampling
 * for the heat map (a 400 x 400 channel is drawn as at most `max` x `max`
 * blocks, each the mean of its entries) and CSV text of a matrix in the
 * SPEC §8 channel format.
 */
export interface MatrixLike {
  rows: number;
  cols: number;
  data: ArrayLike<number>;
  rowLabels: string[];
  colLabels: string[];
}

interface Block {
  /** Block row/col index and the range of matrix rows/cols it covers. */
  x: number;
  y: number;
  r0: number;
  r1: number;
  c0: number;
  c1: number;
  v: number;
}

export function downsample(
  m: MatrixLike,
  max = 120,
): { blocksX: number; blocksY: number; blocks: Block[]; vmax: number } {
  const by = Math.min(m.rows, max);
  const bx = Math.min(m.cols, max);
  const blocks: Block[] = [];
  let vmax = 0;
  for (let y = 0; y < by; y++) {
    const r0 = Math.floor((y * m.rows) / by);
    const r1 = Math.floor(((y + 1) * m.rows) / by);
    for (let x = 0; x < bx; x++) {
      const c0 = Math.floor((x * m.cols) / bx);
      const c1 = Math.floor(((x + 1) * m.cols) / bx);
      let s = 0;
      for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) s += m.data[r * m.cols + c]!;
      const v = s / ((r1 - r0) * (c1 - c0));
      if (v > vmax) vmax = v;
      blocks.push({ x, y, r0, r1, c0, c1, v });
    }
  }
  return { blocksX: bx, blocksY: by, blocks, vmax };
}

function csvCell(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** SPEC §8 channel CSV: header row of output labels after an empty first cell, then label + probabilities per row. */
export function matrixToCsv(m: MatrixLike): string {
  const lines: string[] = [['', ...m.colLabels].map(csvCell).join(',')];
  for (let r = 0; r < m.rows; r++) {
    const cells: string[] = [csvCell(m.rowLabels[r] ?? String(r))];
    for (let c = 0; c < m.cols; c++) cells.push(String(m.data[r * m.cols + c]));
    lines.push(cells.join(','));
  }
  return lines.join('\n') + '\n';
}

/**
 * What the heat map draws: block means of a channel, from an inline matrix
 * (downsample) or from the engine's `rows` job (any size). Block (y, x)
 * covers rows rowEdges[y]..rowEdges[y+1]-1 and columns colEdges[x]..colEdges[x+1]-1.
 */
export interface BlockGrid {
  rows: number;
  cols: number;
  blocksX: number;
  blocksY: number;
  /** Row-major blocksY x blocksX means. */
  means: ArrayLike<number>;
  vmax: number;
  rowEdges: number[];
  colEdges: number[];
  /** Label of a block's rows / columns ("a" or "a…b"). */
  rowLabel(y: number): string;
  colLabel(x: number): string;
}

const span = (first: string, last: string, n: number): string => (n <= 1 ? first : `${first}…${last}`);

export function blockGridFromMatrix(m: MatrixLike, max = 120): BlockGrid {
  const ds = downsample(m, max);
  const rowEdges = [0, ...Array.from({ length: ds.blocksY }, (_, y) => ds.blocks[y * ds.blocksX]!.r1)];
  const colEdges = [0, ...Array.from({ length: ds.blocksX }, (_, x) => ds.blocks[x]!.c1)];
  return {
    rows: m.rows,
    cols: m.cols,
    blocksX: ds.blocksX,
    blocksY: ds.blocksY,
    means: ds.blocks.map((b) => b.v),
    vmax: ds.vmax,
    rowEdges,
    colEdges,
    rowLabel: (y) =>
      span(m.rowLabels[rowEdges[y]!] ?? '', m.rowLabels[rowEdges[y + 1]! - 1] ?? '', rowEdges[y + 1]! - rowEdges[y]!),
    colLabel: (x) =>
      span(m.colLabels[colEdges[x]!] ?? '', m.colLabels[colEdges[x + 1]! - 1] ?? '', colEdges[x + 1]! - colEdges[x]!),
  };
}

/** The block means a `rows` job returned (RowsResult.blocks). */
interface RowsBlocks {
  blocksY: number;
  blocksX: number;
  rowEdges: number[];
  colEdges: number[];
  means: number[];
  vmax: number;
  rowFirst: string[];
  rowLast: string[];
  colFirst: string[];
  colLast: string[];
}

export function blockGridFromRows(rows: number, cols: number, b: RowsBlocks): BlockGrid {
  return {
    rows,
    cols,
    blocksX: b.blocksX,
    blocksY: b.blocksY,
    means: b.means,
    vmax: b.vmax,
    rowEdges: b.rowEdges,
    colEdges: b.colEdges,
    rowLabel: (y) => span(b.rowFirst[y] ?? '', b.rowLast[y] ?? '', b.rowEdges[y + 1]! - b.rowEdges[y]!),
    colLabel: (x) => span(b.colFirst[x] ?? '', b.colLast[x] ?? '', b.colEdges[x + 1]! - b.colEdges[x]!),
  };
}

/**
 * What the virtual table shows: a value per cell (undefined while its rows
 * are still being fetched) and labels. `ensure` asks for the visible rows.
 */
export interface TableSource {
  rows: number;
  cols: number;
  value(r: number, c: number): number | undefined;
  rowLabel(r: number): string;
  colLabel(c: number): string;
  ensure?(r0: number, r1: number): void;
  /** Changes when fetched rows arrive (read it to re-render). */
  readonly version?: number;
}

export function tableFromMatrix(m: MatrixLike): TableSource {
  return {
    rows: m.rows,
    cols: m.cols,
    value: (r, c) => m.data[r * m.cols + c],
    rowLabel: (r) => m.rowLabels[r] ?? String(r),
    colLabel: (c) => m.colLabels[c] ?? String(c),
  };
}

/**
 * How the heat map turns values into colour. 'sqrt' (most channels): sqrt(v / max), 0 white, so small entries
 * still show. 'range' when every value shown lies within RANGE_SHARE of the largest (e.g. randomised response on
 * 1,024 values: a diagonal entry only e^eps times the others, averaged with 100 of them in its block): colours
 * then run linearly from the smallest value to the largest, or the picture is one uniform block that hides the
 * diagonal.
 */
interface HeatScale {
  kind: 'sqrt' | 'range';
  lo: number;
  hi: number;
}

/** Values within this share of the largest use the 'range' scale (see HeatScale). */
const RANGE_SHARE = 0.25;

export function heatScale(values: ArrayLike<number>): HeatScale {
  let lo = Infinity;
  let hi = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!(hi > 0)) return { kind: 'sqrt', lo: 0, hi: 1 };
  return lo >= RANGE_SHARE * hi && hi > lo ? { kind: 'range', lo, hi } : { kind: 'sqrt', lo: 0, hi };
}

/** A value's position 0..1 on the colour ramp. */
export function heatPosition(v: number, s: HeatScale): number {
  const t = s.kind === 'range' ? (v - s.lo) / (s.hi - s.lo) : Math.sqrt(Math.max(0, v) / s.hi);
  return Math.min(1, Math.max(0, t));
}
