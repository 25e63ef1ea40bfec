import { MechError } from '../../src-shared/errors';
import { Matrix } from '../linalg/matrix';
import { NEG_TOL, SUM_TOL } from '../../src-shared/numeric/tolerance';
import type { MechanismFacts } from './facts';

/**
 * A channel C[x][y] = P(report y | secret x) seen row by row. Dense channels
 * and implicit (generator-held) channels on large domains both implement it,
 * so every measure streams over rows and never needs an n x m array.
 */
export interface RowSource {
  readonly rows: number;
  readonly cols: number;
  /** Fill `out` (length >= cols) with row i and return it. */
  row(i: number, out: Float64Array): Float64Array;
  rowLabel(i: number): string;
  colLabel(j: number): string;
}

export class DenseChannel implements RowSource {
  readonly matrix: Matrix;
  readonly rowLabels: string[];
  readonly colLabels: string[];

  constructor(matrix: Matrix, rowLabels?: string[], colLabels?: string[]) {
    this.matrix = matrix;
    this.rowLabels = rowLabels ?? Array.from({ length: matrix.rows }, (_, i) => String(i));
    this.colLabels = colLabels ?? Array.from({ length: matrix.cols }, (_, j) => String(j));
    if (this.rowLabels.length !== matrix.rows || this.colLabels.length !== matrix.cols) {
      throw new MechError('internal', 'channel labels do not match its dimensions');
    }
  }
  get rows(): number {
    return this.matrix.rows;
  }
  get cols(): number {
    return this.matrix.cols;
  }
  row(i: number, out: Float64Array): Float64Array {
    out.set(this.matrix.row(i));
    return out;
  }
  rowLabel(i: number): string {
    return this.rowLabels[i]!;
  }
  colLabel(j: number): string {
    return this.colLabels[j]!;
  }
}

/** Materialise any row source (refuses when too large). */
export function toDense(src: RowSource): DenseChannel {
  if (src instanceof DenseChannel) return src;
  const m = new Matrix(src.rows, src.cols);
  for (let i = 0; i < src.rows; i++) src.row(i, m.row(i));
  const rl: string[] = [];
  const cl: string[] = [];
  for (let i = 0; i < src.rows; i++) rl.push(src.rowLabel(i));
  for (let j = 0; j < src.cols; j++) cl.push(src.colLabel(j));
  return new DenseChannel(m, rl, cl);
}

/**
 * Validate a channel: finite, entries >= 0 (>= -NEG_TOL treated as 0 and
 * clamped), rows summing to 1 within SUM_TOL. Throws naming the first bad row.
 */
export function validateChannel(src: RowSource, what = 'channel'): void {
  const buf = new Float64Array(src.cols);
  for (let i = 0; i < src.rows; i++) {
    src.row(i, buf);
    let s = 0;
    for (let j = 0; j < src.cols; j++) {
      const v = buf[j]!;
      if (!Number.isFinite(v))
        throw new MechError(
          'invalid-input',
          `${what}: entry (${src.rowLabel(i)}, ${src.colLabel(j)}) is ${v}, not a number`,
        );
      if (v < -NEG_TOL)
        throw new MechError(
          'invalid-input',
          `${what}: entry (${src.rowLabel(i)}, ${src.colLabel(j)}) is negative (${v})`,
        );
      s += v;
    }
    if (Math.abs(s - 1) > SUM_TOL) {
      throw new MechError(
        'invalid-input',
        `${what}: row ${src.rowLabel(i)} sums to ${s}, not 1 (tolerance ${SUM_TOL})`,
      );
    }
  }
}

/** What a constructed mechanism is, with its honest privacy guarantee. */
type MechanismKind =
  | 'tg'
  | 'rr'
  | 'exponential'
  | 'laplace'
  | 'planar-laplace'
  | 'tight'
  | 'symmetric'
  | 'optimal'
  | 'capacity'
  | 'combined'
  | 'custom';

export interface Mechanism {
  kind: MechanismKind;
  channel: RowSource;
  /**
   * The channel is guaranteedEpsilon * d-private on its domain (SPEC §2). For
   * the row-normalised Laplace variant this is 2 eps, not eps.
   */
  guaranteedEpsilon: number;
  /** One sentence on the guarantee, shown to users (e.g. "2 eps d-private: row normalisation doubles eps"). */
  guarantee: string;
  /** What the constructor knows (solver figures, closed-form constants), typed per construction (facts.ts). */
  facts: MechanismFacts;
}
