import type { PricingOutcome } from './pricing';
import { ExactPricer } from './exact-pricing';

/** Outputs x secrets above which the previous columns are not kept for warm starts (memory: 8 bytes each). */
const MAX_WARM_ENTRIES = 40e6;

/**
 * The exact pricings of a decomposition's outputs on one thread: one ExactPricer and each output's last column
 * (its warm start; measured 5-7x fewer pivots than cold in the design, a neighbouring output's only 25-30%).
 * Outcomes in the shape of the LP pricing's: objective, certified bound, column, pivots.
 */
export class ExactOutputs {
  private readonly pricer: ExactPricer;
  private readonly last: (Float64Array | undefined)[];
  private readonly keep: boolean;
  pivots = 0;

  constructor(n: number, m: number, factors: Float64Array) {
    this.pricer = new ExactPricer(n, factors);
    this.last = new Array(m);
    this.keep = n * m <= MAX_WARM_ENTRIES;
  }

  /**
   * A warm start for output w before its first solve (a private channel's column for w: any point of P crashes into
   * a basis). Measured on the first round of 50 x 50 (250 outputs, one thread): 10.2 s from the cheapest candidate's
   * columns against 20.9 s cold, the same optima.
   */
  warm(w: number, r: Float64Array): void {
    if (this.keep && !this.last[w]) this.last[w] = r;
  }

  solve(w: number, v: Float64Array): PricingOutcome {
    const res = this.pricer.solve(v, this.last[w]);
    if (this.keep) this.last[w] = res.shape;
    this.pivots += res.pivots;
    // The flows y_ba as multipliers mu_ab = g_ab y_ba on the rows r_a <= f_ab r_b (PricingCertificate).
    const { a, b, y } = res.certificate;
    const mu = new Float64Array(y.length);
    for (let k = 0; k < y.length; k++) mu[k] = this.pricer.factor(a[k]!, b[k]!) * y[k]!;
    return {
      objective: res.objective,
      safeBound: res.bound,
      r: res.r,
      iterations: res.pivots,
      certificate: { a, b, mu },
    };
  }

  /**
   * Solves that reached the pivot cap once (re-solved cold) and twice (the point reached and its certificate returned).
   */
  get coldRetries(): number {
    return this.pricer.capped;
  }
  get failures(): number {
    return this.pricer.failed;
  }
}
