import { MechError } from '../../../src-shared/errors';
import type { PhiOperator } from '../../phi/phi-operator';
import type { Domain } from '../../metric/domain';
import type { RowSource } from '../channel';

/**
 * The tight-constraints mechanism C[x][y] = Phi[x][y] z[y] (SPEC §2) held as
 * its generator: the Phi operator (FFT kernel table, Kronecker factors or a
 * dense Phi for small domains) and the vector z. Row x is produced on demand
 * in O(n); nothing n x n is ever stored, so it works on a 1000 x 1000 grid.
 * Measures in measure/structured/ use `op` and `z` directly.
 */
export class ImplicitTightChannel implements RowSource {
  readonly rows: number;
  readonly cols: number;
  readonly domain: Domain;
  readonly op: PhiOperator;
  /** z >= 0 with Phi z = 1 (tiny negative rounding clamped to 0). */
  readonly z: Float64Array;

  constructor(domain: Domain, op: PhiOperator, z: Float64Array) {
    if (z.length !== domain.n || op.n !== domain.n)
      throw new MechError('internal', 'tight channel: z, Phi and the domain disagree in size');
    this.rows = domain.n;
    this.cols = domain.n;
    this.domain = domain;
    this.op = op;
    this.z = z;
  }

  get eps(): number {
    return this.op.eps;
  }

  row(i: number, out: Float64Array): Float64Array {
    if (!Number.isInteger(i) || i < 0 || i >= this.rows)
      throw new MechError('internal', `row ${i} is outside 0..${this.rows - 1}`);
    if (out.length < this.cols)
      throw new MechError('internal', `row buffer has ${out.length} entries, needs ${this.cols}`);
    this.op.row(i, out);
    const z = this.z;
    for (let j = 0; j < this.cols; j++) out[j]! *= z[j]!;
    return out;
  }

  /** C[x][y] without building the row. */
  entry(x: number, y: number): number {
    return Math.exp(-this.op.eps * this.domain.distance(x, y)) * this.z[y]!;
  }

  rowLabel(i: number): string {
    return this.domain.label(i);
  }

  colLabel(j: number): string {
    return this.domain.label(j);
  }
}
