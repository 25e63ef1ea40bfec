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

export interface Block {
  /** Block row/col index and the range of matrix rows/cols it covers. */
  x: number;
  y: number;
  r0: number;
  r1: number;
  c0: number;
  c1: number;
  v: number;
}

export function downsample(m: MatrixLike, max = 120): { blocksX: number; blocksY: number; blocks: Block[]; vmax: number } {
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
