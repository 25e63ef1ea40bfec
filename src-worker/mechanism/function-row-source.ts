import { MechError } from '../../src-shared/errors';
import type { RowSource } from './channel';

/**
 * An implicit channel: row i is generated on demand by a function (O(cols)
 * per row, no n x m array), so closed-form mechanisms work on domains far
 * too large to hold densely. `toDense` materialises it when it fits.
 */
export class FunctionRowSource implements RowSource {
  readonly rows: number;
  readonly cols: number;
  private readonly fill: (i: number, out: Float64Array) => void;
  private readonly rowName: (i: number) => string;
  private readonly colName: (j: number) => string;

  constructor(
    rows: number,
    cols: number,
    fill: (i: number, out: Float64Array) => void,
    rowLabel: (i: number) => string,
    colLabel: (j: number) => string = rowLabel,
  ) {
    this.rows = rows;
    this.cols = cols;
    this.fill = fill;
    this.rowName = rowLabel;
    this.colName = colLabel;
  }

  row(i: number, out: Float64Array): Float64Array {
    if (!Number.isInteger(i) || i < 0 || i >= this.rows)
      throw new MechError('internal', `row ${i} is outside 0..${this.rows - 1}`);
    if (out.length < this.cols)
      throw new MechError('internal', `row buffer has ${out.length} entries, needs ${this.cols}`);
    this.fill(i, out);
    return out;
  }

  rowLabel(i: number): string {
    return this.rowName(i);
  }

  colLabel(j: number): string {
    return this.colName(j);
  }
}

/**
 * A channel on a grid whose entries are a function of grid offsets (planar
 * Laplace, SPEC §2): the privacy check may use the structured check of
 * check/grid-offset-check.ts, which is sound for any channel and exact for
 * this one, in O(n^2) instead of O(n^3).
 */
export class GridOffsetChannel extends FunctionRowSource {
  readonly gridSpec: string;
  constructor(
    rows: number,
    fill: (i: number, out: Float64Array) => void,
    label: (i: number) => string,
    gridSpec: string,
  ) {
    super(rows, rows, fill, label);
    this.gridSpec = gridSpec;
  }
}
