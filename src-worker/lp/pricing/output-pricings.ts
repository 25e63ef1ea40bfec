/**
 * The pricings one engine holds (this thread, or one pricing thread): HiGHS models per group of outputs, or exact
 * pricing.
 */
import { ExactOutputs } from './exact-outputs';
import type { LpOptions } from '../solver/lp-options';
import type { RunStop } from '../solver/persistent-lp';
import { type PricingForm, PricingGroups, type PricingOutcome, type PricingRows } from './pricing';

/**
 * What a pricing engine is opened with: n secrets, m outputs, the seed rows, HiGHS form and options, outputs per
 * model (default m: one). With `factors` (G[a*n + b] = 1/f_ab, ln f a metric: exact-pricing.ts) every output is
 * priced exactly over the whole column polytope and the rows are not used.
 */
export interface PricingSpec {
  n: number;
  m: number;
  rows: PricingRows;
  what: string;
  options?: LpOptions;
  form?: PricingForm;
  groupSize?: number;
  factors?: Float64Array;
}

/**
 * The pricings one engine (this thread or a pricing thread) holds: LP models per group of outputs, or the exact pricer.
 */
export interface OutputPricings {
  solveUntil(w: number, v: Float64Array, retryTolerance: number, stop?: RunStop): PricingOutcome | null;
  /** A warm start for output w's first solve (exact pricing; the LP models keep their own bases). */
  warm?(w: number, r: Float64Array): void;
  addRows(rows: PricingRows, group?: number): void;
  readonly rows: number;
  readonly coldRetries: number;
  readonly failures: number;
  dispose(): void;
}

/**
 * Exact pricing in the OutputPricings shape: each solve takes milliseconds, so a stop is honoured between outputs;
 * there are no rows.
 */
export class ExactPricings implements OutputPricings {
  private readonly outputs: ExactOutputs;
  constructor(n: number, m: number, factors: Float64Array) {
    this.outputs = new ExactOutputs(n, m, factors);
  }
  solveUntil(w: number, v: Float64Array): PricingOutcome {
    return this.outputs.solve(w, v);
  }
  warm(w: number, r: Float64Array): void {
    this.outputs.warm(w, r);
  }
  addRows(): void {}
  get rows(): number {
    return 0;
  }
  get coldRetries(): number {
    return this.outputs.coldRetries;
  }
  get failures(): number {
    return this.outputs.failures;
  }
  dispose(): void {}
}

/** The pricings of spec's outputs that `owns` accepts: exact when the spec has factors, else HiGHS models per group. */
export async function openOutputPricings(spec: PricingSpec, owns: (group: number) => boolean): Promise<OutputPricings> {
  const { n, m, rows, what, options, form, groupSize = m, factors } = spec;
  if (factors) return new ExactPricings(n, m, factors);
  return PricingGroups.open(n, m, rows, groupSize, owns, what, options, form);
}
