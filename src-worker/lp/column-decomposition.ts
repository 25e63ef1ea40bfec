import { MechError } from '../errors';
import { weightedAllPairs } from '../metric/shortest-paths';
import { type LpOptions, checkCancelled, progress } from './lp-options';
import { PersistentLp, SparseLp } from './sparse-model';
import type { Basis } from 'highs';

/**
 * Dantzig-Wolfe decomposition of the LP over d-private channels (SPEC §2) by
 * output column. The channel LP
 *   min sum_w c_w . p_w   s.t.  sum_w p_w = 1 (row sums),  p_w in P,
 * where p_w is column w of C, c_w[x] = cost[x*m + w], and
 *   P = { p in [0,1]^n : p_a <= f_e p_b and p_b <= f_e p_a on every constrained pair e = {a, b} }
 * is the same small polytope for every output, couples its m columns only
 * through the n row sums. So:
 *
 *  - master: the row sums over the columns found so far (each a point r of P
 *    for one output w, cost c_w . r), n rows; it starts from the constant
 *    column and the graph-distance column e^(-dist(., w)) of every output
 *    (enough for feasibility), plus 2n penalty columns +-e_x of cost B that
 *    keep the duals in [-B, B] (du Merle box; the final solution must not use
 *    them, else B grows);
 *  - pricing, for each output w at duals lambda: min (c_w - lambda) . r over r
 *    in P, one LP with n variables and the pair rows, whose objective alone
 *    changes between outputs and rounds: it is loaded once and re-solved by
 *    primal simplex from the basis this output had last time (stored per output);
 *  - any lambda gives the Lagrangian lower bound
 *      L(lambda) = sum_x lambda_x + sum_w min_{r in P} (c_w - lambda) . r,
 *    the master objective an upper bound; the loop stops when they agree to
 *    `tolerance` (relative). So the answer is certified optimal to that gap.
 *  - Wentges dual smoothing: pricing is done at alpha lambda_best + (1 - alpha)
 *    lambda_master, lambda_best the duals with the best bound so far (0 at the
 *    start), alpha lowered as the gap closes. Without it the master's
 *    degenerate duals swing wildly and the bound lags (measured on the
 *    20 x 20 city: test/bench/lp.bench.ts).
 *
 * The vertices of P are exactly the plateau columns r_S(x) = e^(-dist(x, S))
 * for non-empty sets S of secrets (dist: shortest paths of the pair graph
 * with lengths log f_e; r_S = 1 on S), and 0: on each component of a
 * vertex's tight rows some entry must sit at its bound 1, and feasibility
 * forces r >= e^(-dist(., S)) while the tight paths give equality. At the
 * optimum the master has at most n basic columns, i.e. about one such
 * plateau per output: the master stays small (n rows, a few
 * thousand columns), pricing is n-variable LPs, and the 160,000-variable
 * 20 x 20 city LP, whose 1.19M-row spanner model does not fit the solver
 * heap, is solved in minutes.
 */
export interface DecompositionOptions {
  /** Stop when (upper - lower) <= tolerance * max(|upper|, 1e-12) (default 1e-9). */
  tolerance?: number;
  /** Wentges smoothing weight while the relative gap exceeds 1e-2 (default 0.8; 0 = none). */
  smoothing?: number;
  /** Give up (MechError 'too-large') after this many master solves (default 2000; the 20x20 city at eps 0.5 needs ~250). */
  maxIterations?: number;
}

export interface DecompositionPairs {
  from: Int32Array;
  to: Int32Array;
  /** e^(exponent), possibly capped: the coefficient in the pair rows. */
  factor: Float64Array;
}

export interface DecompositionIteration {
  /** Master objective and best bound so far, in the caller's sense. */
  objective: number;
  bound: number;
  /** Columns appended after this round. */
  added: number;
  /** Time in master solves and in pricing so far (cumulative). */
  masterMs: number;
  pricingMs: number;
}

export interface DecompositionResult {
  /** Row-major n x m channel sum over the master's columns of theta r (before the caller's tidy-up and repair). */
  channel: Float64Array;
  /** Master objective, and the best Lagrangian bound on the optimum (below it when minimising, above when maximising). */
  objective: number;
  bound: number;
  /** (upper - lower) / |upper|. */
  gap: number;
  iterations: DecompositionIteration[];
  columns: number;
  /** Columns dropped from the master along the way (non-basic, largest reduced cost). */
  pruned: number;
  masterMs: number;
  pricingMs: number;
  /** Largest pricing LP: n variables and 2 x pairs rows. */
  pricingRows: number;
  simplexIterations: number;
}

/** Pair rows with a larger factor are left out of the pricing LP (see there). */
const MAX_PRICING_FACTOR = Math.exp(18);

/** The master is pruned when it holds more than this many columns per row. */
const MASTER_PRUNE_FACTOR = 15;
/** ... down to this many per row. */
const MASTER_KEEP_FACTOR = 10;

/** Outputs x secrets above which per-output bases are not kept (memory); pricing then warm-starts from the previous output's basis. */
const MAX_STORED_BASIS_ENTRIES = 60e6;

export async function solveByColumnDecomposition(
  n: number,
  m: number,
  cost: Float64Array,
  sense: 'minimize' | 'maximize',
  pairs: DecompositionPairs,
  what: string,
  options?: LpOptions,
  opts: DecompositionOptions = {},
): Promise<DecompositionResult> {
  const tolerance = opts.tolerance ?? 1e-9;
  const alpha0 = opts.smoothing ?? 0.8;
  const maxIterations = opts.maxIterations ?? 2000;
  if (!(tolerance > 0)) throw new MechError('invalid-input', `${what}: the decomposition tolerance must be > 0`);
  if (!(alpha0 >= 0 && alpha0 < 1)) throw new MechError('invalid-input', `${what}: the smoothing weight must be in [0, 1)`);
  const sign = sense === 'maximize' ? -1 : 1;
  // Column-major costs for pricing: c[w*n + x], minimised.
  const c = new Float64Array(n * m);
  for (let x = 0; x < n; x++) for (let w = 0; w < m; w++) c[w * n + x] = sign * cost[x * m + w]!;
  // Pricing model: r in [0,1]^n, two rows per pair, except pairs whose factor
  // exceeds MAX_PRICING_FACTOR: such rows only ask r_b >= r_a / f (<= e^-18),
  // and the caller's privacy repair lifts those entries on the full graph.
  // Leaving them out makes the pricing LP a relaxation of P, so the bound
  // stays a lower bound. Why: with all pairs of the 2 km city at eps 1
  // (factors up to e^25) HiGHS reported pricing optima that were not, and the
  // master stopped 8e-4 above the true optimum with a bound above it; without
  // those rows 1.8e-5, still not exact. So 'auto' decomposes only sparse
  // graphs (spanner, edges: short pairs, moderate factors), where it agrees
  // with the full model to 1e-14 (tests, test/bench/lp.bench.ts).
  checkCancelled(options, `building ${what}`);
  let keep = 0;
  for (let e = 0; e < pairs.from.length; e++) if (pairs.factor[e]! <= MAX_PRICING_FACTOR) keep++;
  const from = new Int32Array(keep);
  const to = new Int32Array(keep);
  const factor = new Float64Array(keep);
  for (let e = 0, k = 0; e < pairs.from.length; e++) {
    if (pairs.factor[e]! > MAX_PRICING_FACTOR) continue;
    from[k] = pairs.from[e]!;
    to[k] = pairs.to[e]!;
    factor[k] = pairs.factor[e]!;
    k++;
  }
  const E = keep;
  const pricingLp = new SparseLp(n, 2 * E, 4 * E);
  pricingLp.colUpper.fill(1);
  for (let e = 0; e < E; e++) {
    pricingLp.addRow2(-Infinity, 0, from[e]!, 1, to[e]!, -factor[e]!);
    pricingLp.addRow2(-Infinity, 0, to[e]!, 1, from[e]!, -factor[e]!);
  }
  // Objectives change between solves, the feasible set never: primal simplex keeps feasibility.
  const pricingOptions: LpOptions = { ...options, solver: 'simplex', highsOptions: { simplex_strategy: 4, ...options?.highsOptions }, timeLimitSeconds: undefined };
  const masterOptions: LpOptions = { ...options, solver: 'simplex', highsOptions: { simplex_strategy: 4, ...options?.highsOptions }, timeLimitSeconds: undefined };
  const deadline = options?.timeLimitSeconds !== undefined ? performance.now() + options.timeLimitSeconds * 1000 : Infinity;

  // Starting columns: constant 1 and e^(-dist) along the pair graph (log-factor lengths), both in P.
  const start: { w: number; r: Float64Array }[] = [];
  const ones = new Float64Array(n).fill(1);
  let dist: Float64Array | null = null;
  if (n <= 2500) {
    const weight = new Float64Array(E);
    for (let e = 0; e < E; e++) weight[e] = Math.log(factor[e]!);
    dist = weightedAllPairs(n, { from, to, weight }, `${what}: starting columns`);
  }
  for (let w = 0; w < m; w++) {
    start.push({ w, r: ones });
    // Outputs beyond the secrets (m > n) get the constant column only.
    if (dist && w < n) {
      const r = new Float64Array(n);
      for (let x = 0; x < n; x++) r[x] = Math.exp(-dist[w * n + x]!);
      start.push({ w, r });
    }
  }

  const masterLp = new SparseLp(0, n, 0);
  const none = new Int32Array(0);
  const noneV = new Float64Array(0);
  for (let x = 0; x < n; x++) masterLp.addRow(1, 1, none, noneV);
  const master = await PersistentLp.open(masterLp, `${what} (master)`, masterOptions);
  let pricing: PersistentLp | undefined;
  try {
    pricing = await PersistentLp.open(pricingLp, `${what} (pricing)`, pricingOptions);
    const colOutput: number[] = [];
    const colVectors: Float64Array[] = [];
    const appendColumns = (batch: { w: number; r: Float64Array }[]): void => {
      const k = batch.length;
      const cc = new Float64Array(k);
      const st = new Int32Array(k + 1);
      const ix = new Int32Array(k * n);
      const vv = new Float64Array(k * n);
      let p = 0;
      for (let j = 0; j < k; j++) {
        const { w, r } = batch[j]!;
        st[j] = p;
        let s = 0;
        for (let x = 0; x < n; x++) {
          const v = r[x]!;
          if (v > 0) {
            ix[p] = x;
            vv[p] = v;
            p++;
            s += c[w * n + x]! * v;
          }
        }
        cc[j] = s;
        colOutput.push(w);
        colVectors.push(r);
      }
      st[k] = p;
      master.addColumns(cc, st, ix, vv);
    };
    appendColumns(start);
    // du Merle box: penalty columns +-e_x of cost B bound the duals to [-B, B].
    const firstUpper = master.run(false).objective;
    let box = Math.max(Math.abs(firstUpper), 1e-12);
    let boxStart = colOutput.length;
    const addBox = (B: number): void => {
      const k = 2 * n;
      const st = new Int32Array(k + 1);
      const ix = new Int32Array(k);
      const vv = new Float64Array(k);
      for (let j = 0; j < k; j++) {
        st[j] = j;
        ix[j] = j % n;
        vv[j] = j < n ? 1 : -1;
        colOutput.push(-1);
        colVectors.push(ones);
      }
      st[k] = k;
      master.addColumns(new Float64Array(k).fill(B), st, ix, vv);
    };
    addBox(box);

    const storeBases = m * (n + 2 * E) <= MAX_STORED_BASIS_ENTRIES;
    const bases: (Basis | undefined)[] = new Array(m);
    const v = new Float64Array(n);
    const lamS = new Float64Array(n);
    // lambda = 0 is a valid starting centre: its bound L(0) = sum_w min_P c_w . r (0 for costs >= 0).
    let lamBest = new Float64Array(n);
    let lowerBest = -Infinity;
    let cNonNeg = true;
    for (let i = 0; i < c.length; i++) if (c[i]! < 0) cNonNeg = false;
    if (cNonNeg) lowerBest = 0;
    const iterations: DecompositionIteration[] = [];
    let masterMs = 0;
    let pricingMs = 0;
    let simplexIterations = 0;
    let upper = firstUpper;
    let lam = new Float64Array(n);
    let boxUsed = false;
    let stalled = 0;
    let lastUpper = Infinity;
    let pruned = 0;
    const t0 = performance.now();
    for (let it = 0; ; it++) {
      if (it >= maxIterations || performance.now() > deadline) {
        const lo = Math.min(sign * upper, sign * lowerBest);
        const hi = Math.max(sign * upper, sign * lowerBest);
        throw new MechError(
          'too-large',
          `${what} did not converge within ${it} master solves${performance.now() > deadline ? ` and the ${options!.timeLimitSeconds} s limit` : ''}: the optimum lies between ${lo.toPrecision(8)} and ${hi.toPrecision(8)} (gap ${(((upper - lowerBest) / Math.abs(upper)) * 100).toPrecision(3)}%)`,
          { reason: 'limit', gap: (upper - lowerBest) / Math.abs(upper), objective: sign * upper, bound: sign * lowerBest },
        );
      }
      checkCancelled(options, `solving ${what}`);
      let t = performance.now();
      const ms = master.run(false);
      masterMs += performance.now() - t;
      simplexIterations += ms.iterations;
      upper = ms.objective;
      lam = master.rowDuals().slice(0, n);
      // Penalty columns in use: the box is too tight for this master, widen it (the duals it clips are not the optimum's).
      // (Basic at a rounding level on a degenerate vertex does not count.)
      let boxMass = 0;
      for (let j = boxStart; j < colOutput.length; j++) if (colOutput[j] === -1) boxMass += Math.abs(ms.colValue[j]!);
      boxUsed = boxMass > 1e-9;
      const scale = Math.max(Math.abs(upper), 1e-12);
      const gapNow = (upper - lowerBest) / scale;
      // Smoothing fades as the gap closes, and halves with every round the
      // master does not improve (degenerate masters: new columns enter at 0
      // and only the bound can move, which smoothing would slow down).
      if (upper < lastUpper - 1e-9 * scale) stalled = 0;
      else if (it > 0) stalled++;
      lastUpper = upper;
      const alpha = (gapNow > 1e-2 ? alpha0 : gapNow > 1e-3 ? 0.6 * alpha0 : gapNow > 1e-5 ? 0.3 * alpha0 : 0) * 0.5 ** stalled;
      for (let x = 0; x < n; x++) lamS[x] = alpha * lamBest[x]! + (1 - alpha) * lam[x]!;
      let lower = 0;
      for (let x = 0; x < n; x++) lower += lamS[x]!;
      const batch: { w: number; r: Float64Array }[] = [];
      t = performance.now();
      for (let w = 0; w < m; w++) {
        if ((w & 15) === 0) checkCancelled(options, `solving ${what}`);
        const cw = w * n;
        for (let x = 0; x < n; x++) v[x] = c[cw + x]! - lamS[x]!;
        pricing.setCosts(v);
        // Without stored bases the previous output's basis is the warm start.
        const b = storeBases ? bases[w] : undefined;
        if (b) pricing.setBasis(b);
        const ps = pricing.run(false);
        simplexIterations += ps.iterations;
        if (storeBases) bases[w] = pricing.getBasis();
        lower += Math.min(0, ps.objective);
        // Reduced cost against the master's own duals.
        const r = ps.colValue;
        let rc = 0;
        for (let x = 0; x < n; x++) {
          let rx = r[x]!;
          if (rx < 0) rx = 0;
          else if (rx > 1) rx = 1;
          rc += (c[cw + x]! - lam[x]!) * rx;
        }
        if (rc < -1e-12 * scale) {
          const col = new Float64Array(n);
          for (let x = 0; x < n; x++) col[x] = Math.min(1, Math.max(0, r[x]!));
          batch.push({ w, r: col });
        }
      }
      const pt = performance.now() - t;
      pricingMs += pt;
      if (lower > lowerBest) {
        lowerBest = lower;
        lamBest = lamS.slice();
      }
      iterations.push({ objective: sign * upper, bound: sign * lowerBest, added: batch.length, masterMs: masterMs, pricingMs: pricingMs });
      const gap = (upper - lowerBest) / scale;
      progress(options, Math.min(0.85, 0.2 + 0.65 * Math.min(1, Math.log10(Math.max(gap, tolerance)) / Math.log10(tolerance))), `solving ${what} by column decomposition: round ${it + 1}, objective ${(sign * upper).toPrecision(8)}, gap ${(gap * 100).toPrecision(2)}%, ${colOutput.length} columns, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      if (boxUsed) {
        // du Merle: the penalty columns stand in for columns not generated yet;
        // widen the box only once pricing finds nothing better to offer.
        if (batch.length === 0) {
          box *= 10;
          master.setCostRange(boxStart, new Float64Array(2 * n).fill(box));
        } else appendColumns(batch);
        continue;
      }
      if (gap <= tolerance || (batch.length === 0 && alpha < 1e-6)) {
        // Assemble C = sum_j theta_j r_j.
        const C = new Float64Array(n * m);
        for (let j = 0; j < colOutput.length; j++) {
          const w = colOutput[j]!;
          const th = ms.colValue[j]!;
          if (w < 0 || !(th > 0)) continue;
          const r = colVectors[j]!;
          for (let x = 0; x < n; x++) C[x * m + w] += th * r[x]!;
        }
        return {
          channel: C,
          objective: sign * upper,
          bound: sign * lowerBest,
          gap: Math.max(0, gap),
          iterations,
          columns: colOutput.length,
          pruned,
          masterMs,
          pricingMs,
          pricingRows: 2 * E,
          simplexIterations,
        };
      }
      appendColumns(batch);
      // Keep the master bounded: past 15n columns, drop the non-basic ones with
      // the largest reduced costs down to 10n (pricing brings back any needed;
      // pruning harder, to 3n, doubled the rounds on the city at eps 0.5).
      if (colOutput.length > MASTER_PRUNE_FACTOR * n) {
        const cand: { j: number; rc: number }[] = [];
        for (let j = 0; j < colOutput.length - batch.length; j++) {
          const w = colOutput[j]!;
          if (w < 0 || ms.colValue[j]! > 0) continue;
          const r = colVectors[j]!;
          let rc = 0;
          for (let x = 0; x < n; x++) rc += (c[w * n + x]! - lam[x]!) * r[x]!;
          if (rc > 1e-9 * scale) cand.push({ j, rc });
        }
        cand.sort((a, b) => b.rc - a.rc);
        const drop = cand.slice(0, Math.max(0, colOutput.length - MASTER_KEEP_FACTOR * n)).map((e) => e.j).sort((a, b) => a - b);
        if (drop.length > 0) {
          master.deleteColumns(Int32Array.from(drop));
          let k = 0;
          let d = 0;
          for (let j = 0; j < colOutput.length; j++) {
            if (d < drop.length && drop[d] === j) {
              d++;
              continue;
            }
            colOutput[k] = colOutput[j]!;
            colVectors[k] = colVectors[j]!;
            k++;
          }
          colOutput.length = k;
          colVectors.length = k;
          boxStart = colOutput.indexOf(-1);
          pruned += drop.length;
        }
      }
    }
  } finally {
    pricing?.dispose();
    master.dispose();
  }
}
