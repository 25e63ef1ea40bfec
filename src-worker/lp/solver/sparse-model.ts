import type { ModelData, ObjectiveSense } from 'highs';
import { MechError } from '../../../src-shared/errors';
import { resized } from '../../numeric/typed-arrays';

/**
 * A linear program built row by row into growable typed arrays (CSR), handed
 * to HiGHS' persistent model API as sparse arrays (never LP text), solved,
 * and always disposed. Columns are fixed at construction: cost 0, bounds
 * [0, +inf) unless changed.
 */
export class SparseLp {
  readonly numCols: number;
  readonly colCost: Float64Array;
  readonly colLower: Float64Array;
  readonly colUpper: Float64Array;
  sense: 'minimize' | 'maximize' = 'minimize';
  private rowLo: Float64Array;
  private rowHi: Float64Array;
  private starts: Int32Array;
  private idx: Int32Array;
  private val: Float64Array;
  private rows = 0;
  private nz = 0;

  constructor(numCols: number, expectedRows = 16, expectedNonzeros = 64) {
    if (!Number.isInteger(numCols) || numCols < 0 || numCols > 0x7fffffff)
      throw new MechError('internal', `bad LP column count ${numCols}`);
    this.numCols = numCols;
    this.colCost = new Float64Array(numCols);
    this.colLower = new Float64Array(numCols);
    this.colUpper = new Float64Array(numCols).fill(Infinity);
    const r = Math.max(1, expectedRows);
    const z = Math.max(1, expectedNonzeros);
    this.rowLo = new Float64Array(r);
    this.rowHi = new Float64Array(r);
    this.starts = new Int32Array(r + 1);
    this.idx = new Int32Array(z);
    this.val = new Float64Array(z);
  }

  get numRows(): number {
    return this.rows;
  }
  get nonzeros(): number {
    return this.nz;
  }

  private reserve(extraRows: number, extraNz: number): void {
    if (this.rows + extraRows > this.rowLo.length) {
      const cap = Math.max(this.rows + extraRows, this.rowLo.length * 2);
      this.rowLo = resized(this.rowLo, cap);
      this.rowHi = resized(this.rowHi, cap);
      const s = new Int32Array(cap + 1);
      s.set(this.starts.subarray(0, this.rows + 1));
      this.starts = s;
    }
    if (this.nz + extraNz > this.idx.length) {
      const cap = Math.max(this.nz + extraNz, this.idx.length * 2);
      const i = new Int32Array(cap);
      i.set(this.idx.subarray(0, this.nz));
      this.idx = i;
      this.val = resized(this.val, cap);
    }
  }

  /** lower <= sum_k values[k] x[indices[k]] <= upper; indices must be distinct. Returns the row index. */
  addRow(lower: number, upper: number, indices: ArrayLike<number>, values: ArrayLike<number>): number {
    const k = indices.length;
    this.reserve(1, k);
    for (let t = 0; t < k; t++) {
      this.idx[this.nz + t] = indices[t]!;
      this.val[this.nz + t] = values[t]!;
    }
    return this.closeRow(lower, upper, k);
  }

  /** Two-entry row lower <= a x[i] + b x[j] <= upper (the privacy constraints). */
  addRow2(lower: number, upper: number, i: number, a: number, j: number, b: number): number {
    this.reserve(1, 2);
    this.idx[this.nz] = i;
    this.val[this.nz] = a;
    this.idx[this.nz + 1] = j;
    this.val[this.nz + 1] = b;
    return this.closeRow(lower, upper, 2);
  }

  private closeRow(lower: number, upper: number, k: number): number {
    const r = this.rows;
    this.rowLo[r] = lower;
    this.rowHi[r] = upper;
    this.nz += k;
    this.rows = r + 1;
    this.starts[this.rows] = this.nz;
    return r;
  }

  /** The model as HiGHS sparse input (views on the builder's arrays; HiGHS copies them). */
  toModelData(infinity: number, senses: { minimize: ObjectiveSense; maximize: ObjectiveSense }): ModelData {
    const clampInf = (a: Float64Array): Float64Array => {
      if (infinity === Infinity) return a;
      const b = a.slice();
      for (let i = 0; i < b.length; i++)
        if (b[i] === Infinity) b[i] = infinity;
        else if (b[i] === -Infinity) b[i] = -infinity;
      return b;
    };
    return {
      numCols: this.numCols,
      numRows: this.rows,
      sense: senses[this.sense],
      colCost: this.colCost,
      colLower: clampInf(this.colLower),
      colUpper: clampInf(this.colUpper),
      rowLower: clampInf(this.rowLo.subarray(0, this.rows)),
      rowUpper: clampInf(this.rowHi.subarray(0, this.rows)),
      matrix: {
        format: 'csr',
        numRows: this.rows,
        numCols: this.numCols,
        starts: this.starts.subarray(0, this.rows + 1),
        indices: this.idx.subarray(0, this.nz),
        values: this.val.subarray(0, this.nz),
      },
    };
  }

  /**
   * The LP dual as HiGHS sparse input, for a primal with x >= 0 (no finite
   * upper bounds) and rows that are equalities, <= or >= (one finite side):
   *   primal  min c'x  s.t. A x (=, <=, >=) b, x >= 0
   *   dual    max b'y  s.t. A'y <= c, y free / <= 0 / >= 0 respectively.
   * (A maximised primal is negated first.) The dual's matrix is the primal's
   * CSR arrays read as CSC: no copy, no transpose. Its basis has numCols rows
   * instead of numRows, which is what makes the privacy LPs (many more
   * two-entry constraint rows than variables) cheaper to solve.
   */
  toDualModelData(infinity: number, senses: { minimize: ObjectiveSense; maximize: ObjectiveSense }): ModelData {
    const m = this.rows;
    const sign = this.sense === 'maximize' ? -1 : 1;
    const yCost = new Float64Array(m);
    const yLo = new Float64Array(m);
    const yHi = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      const lo = this.rowLo[i]!;
      const hi = this.rowHi[i]!;
      if (!dualColumnOfRow(lo, hi, infinity, i, yCost, yLo, yHi))
        throw new MechError(
          'internal',
          `dual form needs rows with one finite side or equalities (row ${i}: [${lo}, ${hi}])`,
        );
    }
    const c = new Float64Array(this.numCols);
    for (let j = 0; j < this.numCols; j++) {
      if (this.colLower[j] !== 0 || this.colUpper[j] !== Infinity)
        throw new MechError('internal', `dual form needs variables in [0, inf) (column ${j})`);
      c[j] = sign * this.colCost[j]!;
    }
    return {
      numCols: m,
      numRows: this.numCols,
      sense: senses.maximize,
      colCost: yCost,
      colLower: yLo,
      colUpper: yHi,
      rowLower: new Float64Array(this.numCols).fill(-infinity),
      rowUpper: c,
      matrix: {
        format: 'csc',
        numRows: this.numCols,
        numCols: m,
        starts: this.starts.subarray(0, m + 1),
        indices: this.idx.subarray(0, this.nz),
        values: this.val.subarray(0, this.nz),
      },
    };
  }
}

/**
 * The dual column of a primal row lo <= a.x <= hi (x >= 0, minimised), written
 * at index i: cost = the row's finite side; the dual variable is free for an
 * equality, <= 0 for a <= row, >= 0 for a >= row. False (nothing written) for
 * a row with two different finite sides or none.
 */
export function dualColumnOfRow(
  lo: number,
  hi: number,
  infinity: number,
  i: number,
  cost: Float64Array,
  yLo: Float64Array,
  yHi: Float64Array,
): boolean {
  if (lo === hi) {
    cost[i] = lo;
    yLo[i] = -infinity;
    yHi[i] = infinity;
  } else if (lo === -Infinity && hi !== Infinity) {
    cost[i] = hi;
    yLo[i] = -infinity;
    yHi[i] = 0;
  } else if (hi === Infinity && lo !== -Infinity) {
    cost[i] = lo;
    yLo[i] = 0;
    yHi[i] = infinity;
  } else return false;
  return true;
}

/**
 * The rows r[from[k]] - factor[k] r[to[k]] <= 0 for k < count as CSR arrays (for PersistentLp.addRows, or read as CSC
 * columns).
 */
export function pairRowsCsr(
  from: ArrayLike<number>,
  to: ArrayLike<number>,
  factor: ArrayLike<number>,
  count: number,
): { lower: Float64Array; upper: Float64Array; starts: Int32Array; indices: Int32Array; values: Float64Array } {
  const lower = new Float64Array(count).fill(-Infinity);
  const upper = new Float64Array(count);
  const starts = new Int32Array(count + 1);
  const indices = new Int32Array(2 * count);
  const values = new Float64Array(2 * count);
  for (let r = 0; r < count; r++) {
    starts[r + 1] = 2 * r + 2;
    indices[2 * r] = from[r]!;
    values[2 * r] = 1;
    indices[2 * r + 1] = to[r]!;
    values[2 * r + 1] = -factor[r]!;
  }
  return { lower, upper, starts, indices, values };
}
