/** The pricings one engine holds (this thread, or one pricing thread): HiGHS models per group of outputs, or exact pricing. */
import { MechError } from '../../src-shared/errors';
import { ExactOutputs } from './exact-pricing';
import type { LpOptions } from './lp-options';
import type { RunStop } from './persistent-lp';
import { type PricingForm, PricingGroups, type PricingOutcome, type PricingRows } from './pricing';

/** What the pricings are opened with (pricing-pool.ts PricingSpec). */
export interface OutputPricingSpec {
  n: number;
  m: number;
  rows: PricingRows;
  what: string;
  options?: LpOptions;
  form?: PricingForm;
  groupSize?: number;
  factors?: Float64Array;
}

/** The pricings one engine (this thread or a pricing thread) holds: LP models per group of outputs, or the exact pricer. */
export interface OutputPricings {
  solveUntil(w: number, v: Float64Array, retryTolerance: number, stop?: RunStop): PricingOutcome | null;
  addRows(rows: PricingRows, group?: number): void;
  readonly rows: number;
  readonly coldRetries: number;
  readonly failures: number;
  dispose(): void;
}

/** Exact pricing in the OutputPricings shape: each solve takes milliseconds, so a stop is honoured between outputs; there are no rows. */
export class ExactPricings implements OutputPricings {
  private readonly outputs: ExactOutputs;
  constructor(n: number, m: number, factors: Float64Array) {
    if (factors.length !== n * n) throw new MechError('internal', `exact pricing: ${n * n} factors expected, got ${factors.length}`);
    this.outputs = new ExactOutputs(n, m, factors);
  }
  solveUntil(w: number, v: Float64Array): PricingOutcome {
    return this.outputs.solve(w, v);
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
export async function openOutputPricings(spec: OutputPricingSpec, owns: (group: number) => boolean): Promise<OutputPricings> {
  const { n, m, rows, what, options, form, groupSize = m, factors } = spec;
  if (factors) return new ExactPricings(n, m, factors);
  return PricingGroups.open(n, m, rows, groupSize, owns, what, options, form);
}
