import { MechError } from '../../../src-shared/errors';
import type { LpMethod } from '../../mechanism/lp-result';
import type { Domain } from '../../metric/domain';
import {
  type DecompositionIteration,
  type DecompositionOptions,
  type DecompositionStop,
  solveByColumnDecomposition,
} from '../decomposition/column-decomposition';
import {
  type ChannelShape,
  MAX_EXPONENT,
  buildFullLp,
  buildOrbitLp,
  edgeFactors,
  metricLifter,
  privateChannelLpSize,
} from '../model/channel-model';
import { domainSymmetries } from '../model/domain-symmetries';
import { type PairOrbits, pairOrbits } from '../model/orbit-reduction';
import {
  type ConstraintMode,
  type PrivacyConstraintGraph,
  DEFAULT_SPANNER_DELTA,
  privacyConstraintGraph,
} from '../model/privacy-constraint-graph';
import { repairPrivacy } from '../model/privacy-repair';
import { EXACT_PRICING_MAX_SECRETS, closurePricingFactors, exactPricingFactors } from '../pricing/exact-pricing';
import { type LpOptions, checkCancelled, placesWords, progress } from '../solver/lp-options';
import { assertLpFits } from '../solver/memory-estimate';
import { solveSparseLp } from '../solver/persistent-lp';
import { type GenerationOptions, type GenerationRound, solveByConstraintGeneration } from './constraint-generation';
import { chooseLpStrategy } from './lp-strategy';

/**
 * The LP over d-private channels shared by the optimal mechanism (docs/lp.md,
 * "The private-channel LP") and the capacities (docs/capacities.md, "Capacities by linear programming"): its rows
 * (model/channel-model.ts) over the pairs of a constraint graph, solved by the method chooseLpStrategy picks
 * (lp-strategy.ts): the full model (or one variable per orbit), constraint generation or the decomposition.
 */
export interface PrivateChannelProblem {
  domain: Domain;
  eps: number;
  /** Number of outputs m. */
  outputs: number;
  /** Objective coefficient of C[x][w] at x*m + w. */
  cost: Float64Array;
  sense: 'minimize' | 'maximize';
  constraints?: ConstraintMode;
  delta?: number;
  what: string;
  /** The outputs are the secrets themselves (enables the symmetry reduction). */
  outputsAreSecrets?: boolean;
  /**
   * 'auto' (default): solve one variable per orbit of (x, w) under the domain's isometries when the objective is
   * invariant.
   */
  symmetry?: 'auto' | 'off';
  /**
   * Constraint generation (constraint-generation.ts): solve with a few
   * privacy rows, add the violated ones of the full model, re-solve warm,
   * until none is violated; same optimum, far fewer rows in the solver.
   * 'auto' (default), when there is no orbit reduction: on for 'exact' and
   * 'all-pairs' above GENERATION_ROW_THRESHOLD rows, and for sparse graphs
   * (spanner, edges) when the full model does not fit the solver memory.
   * 'on' / 'off' force it.
   */
  generation?: 'auto' | 'on' | 'off';
  /** Tuning of the constraint generation (tolerance, batch, seed, closeness of output w to secret x). */
  generationOptions?: GenerationOptions;
  /**
   * Dantzig-Wolfe decomposition by output column (column-decomposition.ts):
   * a master over the row sums and one n-variable pricing LP per output.
   * 'auto' (default), when there is no orbit reduction: on for sparse graphs
   * (spanner, edges) when minimising over at least DECOMPOSITION_MIN_VARIABLES
   * variables, or whose full model does not fit the solver memory (where it
   * replaces constraint generation: a minute instead of hours on the 20 x 20
   * grid). 'on' forces it (any constraint graph; on all pairs the pricing LPs
   * are large and numerically delicate), 'off' never.
   */
  decomposition?: 'auto' | 'on' | 'off';
  decompositionOptions?: DecompositionOptions;
  /**
   * With a spanner solved by decomposition: also bound the exact (all-pairs)
   * optimum. Both models share the row sums and differ only in the column
   * polytope (P_spanner inside P_exact), so for any duals lambda the
   * Lagrangian L_exact(lambda) = sum lambda + sum_w min over P_exact of
   * (c_w - lambda) . r is a lower bound on the exact optimum (weak duality,
   * computed with safe pricing bounds). At the spanner's best duals it is
   * one more pricing round, over all pairs with lazy rows
   * (decomposition.exactBound). (The spanner's own bound is not one: the
   * spanner is a restriction, its optimum above the exact one.)
   */
  boundExact?: boolean;
}

export interface PrivateChannelSolution {
  /** Row-major n x m channel (negative rounding clamped to 0, rows renormalised). */
  channel: Float64Array;
  objective: number;
  graph: PrivacyConstraintGraph;
  variables: number;
  constraints: number;
  nonzeros: number;
  buildMs: number;
  solveMs: number;
  /**
   * Largest relative excess of C[x][w] / (e^(exponent) C[x'][w]) over 1 on constrained pairs (0 when all hold; NaN when
   * not scanned, see REPAIR_MAX_WORK).
   */
  maxConstraintViolation: number;
  iterations: number;
  /** Objective reported by the solver (objective is that of the returned, repaired channel). */
  lpObjective: number;
  /** Largest probability mass the privacy repair added to a row before renormalising (see privacy-repair.ts). */
  repairMass: number;
  /** Constrained pairs whose factor e^(eps d) was capped at e^MAX_EXPONENT. */
  cappedPairs: number;
  /** Number of generating isometries used by the orbit reduction (0: none), and the LP actually solved. */
  symmetries: number;
  reducedVariables: number;
  reducedConstraints: number;
  /**
   * Constraint generation, when used: rounds, and rows of the full model (constraints) vs of the last model solved
   * (reducedConstraints).
   */
  generation?: {
    rounds: GenerationRound[];
    privacyRows: number;
    fullPrivacyRows: number;
    checkMs: number;
    coldRetries: number;
  };
  /**
   * Column decomposition, when used: rounds, the certified bound on the optimum and the relative gap, columns
   * generated.
   */
  decomposition?: {
    rounds: DecompositionIteration[];
    bound: number;
    gap: number;
    columns: number;
    masterMs: number;
    pricingMs: number;
    stoppedBy: DecompositionStop;
    message?: string;
    /** Certified bound on the exact optimum from a spanner solve (see boundExact), in the LP's (scaled) units. */
    exactBound?: number;
    pricingRows: number;
    pruned: number;
    pricingColdRetries: number;
    pricingFailures: number;
    plateauColumns: number;
    exactBoundMs: number;
    /** The duals of the best bound on the row sums (in the LP's scaled units, minimising sense). */
    duals: Float64Array;
  };
}

/**
 * The orbit reduction of the problem, when it applies (outputs are the secrets, cost invariant under the domain's
 * isometries).
 */
function symmetryOrbits(p: PrivateChannelProblem): { orbits: PairOrbits | null; generators: number } {
  const n = p.domain.n;
  if ((p.symmetry ?? 'auto') !== 'auto' || !p.outputsAreSecrets || p.outputs !== n)
    return { orbits: null, generators: 0 };
  const gens = domainSymmetries(p.domain);
  if (gens.length <= 1) return { orbits: null, generators: 0 };
  const orbits = pairOrbits(n, gens, p.cost);
  return { orbits, generators: orbits ? gens.length - 1 : 0 };
}

/** The model's shape (channel-model.ts) of a problem. */
function shapeOf(p: PrivateChannelProblem): ChannelShape {
  return { n: p.domain.n, m: p.outputs, cost: p.cost, sense: p.sense, what: p.what };
}

/** Whether the orbit reduction applies to a channel LP whose outputs are the secrets (cost row-major n x m). */
export function hasOrbitReduction(domain: Domain, m: number, cost: Float64Array): boolean {
  if (m !== domain.n) return false;
  const gens = domainSymmetries(domain);
  return gens.length > 1 && pairOrbits(domain.n, gens, cost) !== null;
}

/** What a method hands back to solvePrivateChannelLp. */
interface MethodSolution {
  sol: { objective: number; colValue: Float64Array; solveMs: number; iterations: number };
  solvedCols: number;
  solvedRows: number;
  generation?: PrivateChannelSolution['generation'];
  decomposition?: PrivateChannelSolution['decomposition'];
}

async function solveDecomposed(
  p: PrivateChannelProblem,
  graph: PrivacyConstraintGraph,
  options: LpOptions | undefined,
): Promise<MethodSolution> {
  const { domain, eps } = p;
  const n = domain.n;
  const mode = p.constraints ?? 'auto';
  // The exact model's pairs, uncapped factors (a capped factor would be a stronger row, not the exact model's; rows
  // above e^18 are left out of pricing anyway).
  let relaxedPairs: { from: Int32Array; to: Int32Array; factor: Float64Array } | undefined;
  if (p.boundExact && graph.mode === 'spanner') {
    const all = privacyConstraintGraph(domain, eps, 'all-pairs');
    relaxedPairs = { from: all.from, to: all.to, factor: Float64Array.from(all.exponent, (x) => Math.exp(x)) };
  }
  // Exact model: its lazy pricing starts from a greedy 1.1-spanner's edges (at the full factor, a subset of the exact
  // rows), whose paths are within 10% of every pair's distance.
  let seedPairs: { from: Int32Array; to: Int32Array } | undefined;
  if ((mode === 'exact' || mode === 'all-pairs') && graph.from.length > 8 * n) {
    const sp = privacyConstraintGraph(domain, eps, 'spanner', DEFAULT_SPANNER_DELTA);
    seedPairs = { from: sp.from, to: sp.to };
  }
  const pairs = { from: graph.from, to: graph.to, factor: edgeFactors(graph) };
  const lifter = metricLifter(domain, eps, graph);
  // Exact pricing over the model's whole polytope (its n x n factors): the exact model's own by default; a spanner's
  // or an edge graph's closure only when asked (exactPricing: true): on their sparse rows HiGHS' dual-form pricing
  // measured faster (docs/lp-measurements.md, "Exact pricing, measured").
  const ask = p.decompositionOptions?.exactPricing;
  const exactModel = graph.mode === 'exact' || graph.mode === 'all-pairs';
  const pricingFactors = !pricesExactly(n, exactModel, ask)
    ? undefined
    : exactModel
      ? exactPricingFactors(n, graph.from, graph.to, graph.exponent)
      : closurePricingFactors(n, graph.from, graph.to, graph.exponent);
  const problem = {
    n,
    m: p.outputs,
    cost: p.cost,
    sense: p.sense,
    pairs,
    what: p.what,
    ...(lifter ? { lifter } : {}),
    ...(pricingFactors ? { pricingFactors } : {}),
  };
  const d = await solveByColumnDecomposition(problem, options, {
    relaxedPairs,
    seedPairs,
    ...p.decompositionOptions,
  });
  return {
    sol: {
      objective: d.objective,
      colValue: d.channel,
      solveMs: d.masterMs + d.pricingMs,
      iterations: d.simplexIterations,
    },
    solvedCols: d.columns,
    solvedRows: n,
    decomposition: {
      rounds: d.iterations,
      bound: d.bound,
      gap: d.gap,
      columns: d.columns,
      masterMs: d.masterMs,
      pricingMs: d.pricingMs,
      stoppedBy: d.stoppedBy,
      message: d.message,
      exactBound: d.relaxedBound,
      pricingRows: d.pricingRows,
      pruned: d.pruned,
      pricingColdRetries: d.pricingColdRetries,
      pricingFailures: d.pricingFailures,
      plateauColumns: d.plateauColumns,
      exactBoundMs: d.relaxedBoundMs,
      duals: d.duals,
    },
  };
}

async function solveGenerated(
  p: PrivateChannelProblem,
  graph: PrivacyConstraintGraph,
  whole: boolean,
  options: LpOptions | undefined,
): Promise<MethodSolution> {
  const n = p.domain.n;
  const m = p.outputs;
  const lp = buildFullLp(shapeOf(p), null, { variables: n * m, rows: n, nonzeros: n * m }, options);
  // Seed: the 8-neighbours (reach 1.5) when checking all pairs, the 4-neighbours (1.2) on a sparse graph (measured,
  // lp.bench.ts).
  const genOpts = { seedReach: whole ? 1.5 : 1.2, ...p.generationOptions };
  const g = await solveByConstraintGeneration(
    lp,
    n,
    m,
    { from: graph.from, to: graph.to, exponent: graph.exponent, factor: edgeFactors(graph) },
    p.what,
    options,
    genOpts,
  );
  return {
    sol: {
      objective: g.objective,
      colValue: g.colValue,
      solveMs: g.solveMs + g.checkMs + g.loadMs,
      iterations: g.iterations,
    },
    solvedCols: n * m,
    solvedRows: g.rows,
    generation: {
      rounds: g.rounds,
      privacyRows: g.privacyRows,
      fullPrivacyRows: g.fullPrivacyRows,
      checkMs: g.checkMs,
      coldRetries: g.coldRetries,
    },
  };
}

/**
 * The solver's channel made a channel: orbit values spread back to (x, w),
 * rounding noise in all-but-zero columns zeroed (on a connected constraint
 * graph a private column is either all zero or all positive, and 1e-18 next
 * to an exact 0 would read as an infinite privacy ratio), negatives clamped,
 * rows renormalised.
 */
function tidyChannel(colValue: Float64Array, orbits: PairOrbits | null, p: PrivateChannelProblem): Float64Array {
  const n = p.domain.n;
  const m = p.outputs;
  let C = colValue;
  if (orbits) {
    C = new Float64Array(n * m);
    for (let i = 0; i < n * m; i++) C[i] = colValue[orbits.orbitOf[i]!]!;
  }
  const NOISE = 1e-9;
  for (let w = 0; w < m; w++) {
    let mx = 0;
    let hasZero = false;
    for (let x = 0; x < n; x++) {
      const v = C[x * m + w]!;
      if (v <= 0) hasZero = true;
      else if (v > mx) mx = v;
    }
    if (hasZero && mx < NOISE) for (let x = 0; x < n; x++) C[x * m + w] = 0;
  }
  for (let x = 0; x < n; x++) {
    let s = 0;
    for (let w = 0; w < m; w++) {
      const v = C[x * m + w]!;
      if (v < 0) C[x * m + w] = 0;
      else s += v;
    }
    if (!(s > 0))
      throw new MechError('internal', `${p.what}: the solver returned an empty row for ${p.domain.label(x)}`);
    for (let w = 0; w < m; w++) C[x * m + w] = C[x * m + w]! / s;
  }
  return C;
}

/**
 * Whether a decomposition over n secrets prices exactly (exact-pricing.ts): an exact model by default, a spanner or
 * edge model only when asked (`ask`, DecompositionOptions.exactPricing: false turns it off), up to
 * EXACT_PRICING_MAX_SECRETS secrets.
 */
export function pricesExactly(n: number, exactModel: boolean, ask: boolean | undefined): boolean {
  return n <= EXACT_PRICING_MAX_SECRETS && ask !== false && (exactModel || ask === true);
}

/**
 * Pair rows x outputs above which a decomposition's channel is not repaired nor scanned (its columns lie in P already).
 */
export const REPAIR_MAX_WORK = 1e9;

/** Largest relative excess of C[a][w] / (f C[b][w]) over 1 on the graph's pairs (0 when all hold). */
function maxRelativeViolation(C: Float64Array, m: number, graph: PrivacyConstraintGraph, fE: Float64Array): number {
  let viol = 0;
  for (let e = 0; e < graph.from.length; e++) {
    const a = graph.from[e]!;
    const b = graph.to[e]!;
    const f = fE[e]!;
    for (let w = 0; w < m; w++) {
      const ca = C[a * m + w]!;
      const cb = C[b * m + w]!;
      const r1 = ca > f * cb ? (cb === 0 ? Infinity : ca / (f * cb) - 1) : 0;
      const r2 = cb > f * ca ? (ca === 0 ? Infinity : cb / (f * ca) - 1) : 0;
      if (r1 > viol) viol = r1;
      if (r2 > viol) viol = r2;
    }
  }
  return viol;
}

export async function solvePrivateChannelLp(
  p: PrivateChannelProblem,
  options?: LpOptions,
): Promise<PrivateChannelSolution> {
  const { domain, eps, outputs: m, cost } = p;
  const n = domain.n;
  if (!Number.isInteger(m) || m < 1)
    throw new MechError('invalid-input', `${p.what}: the output set must have at least one element, got ${m}`);
  if (cost.length !== n * m)
    throw new MechError('internal', `${p.what}: cost has ${cost.length} entries, expected ${n * m}`);
  const mode = p.constraints ?? 'auto';
  const t0 = performance.now();
  // Symmetry first: the early size checks below divide by the average orbit
  // size (the orbit LP has that many times fewer variables, and about as many
  // times fewer rows).
  const sym = symmetryOrbits(p);
  const factor = sym.orbits ? (n * m) / sym.orbits.count : 1;
  const fits = (s: { variables: number; rows: number; nonzeros: number }): void =>
    assertLpFits(Math.ceil(s.variables / factor), Math.ceil(s.rows / factor), Math.ceil(s.nonzeros / factor), p.what);
  const genMode = p.generation ?? 'auto';
  const decMode = p.decomposition ?? 'auto';
  // Refuse early: even the constraint-free part may not fit (not for a decomposition: it never builds that model; its
  // master makes its own start test).
  if (decMode !== 'on') fits({ variables: n * m, rows: n, nonzeros: n * m });
  const whole = mode === 'all-pairs' || mode === 'exact';
  // 'exact' and 'all-pairs' decide before enumerating pairs (the delta = 1
  // spanner alone costs ~20 s at 400 points; with generation or decomposition,
  // all pairs are checked instead: equivalent constraints, and checking is cheap).
  // after a coarse start's share (1-10%) the bar never goes back: building the model counts from 10%
  progress(options, 0.1, `building the model: the privacy constraints between the places of ${placesWords(domain)}`);
  const sparseGraph = whole ? null : privacyConstraintGraph(domain, eps, mode, p.delta ?? DEFAULT_SPANNER_DELTA);
  const strategy = chooseLpStrategy({
    n,
    m,
    mode,
    generation: genMode,
    decomposition: decMode,
    sense: p.sense,
    orbits: sym.orbits !== null,
    pairs: sparseGraph?.from.length ?? (n * (n - 1)) / 2,
  });
  if (mode === 'all-pairs' && strategy.method !== 'constraint-generation')
    fits(privateChannelLpSize(n, m, (n * (n - 1)) / 2));
  const graph =
    sparseGraph ??
    (strategy.method !== 'full-model' && mode === 'exact'
      ? { ...privacyConstraintGraph(domain, eps, 'all-pairs'), mode: 'exact' as const }
      : privacyConstraintGraph(domain, eps, mode, p.delta ?? DEFAULT_SPANNER_DELTA));
  const orbits = strategy.orbits ? sym.orbits : null;
  const E = graph.from.length;
  const size = privateChannelLpSize(n, m, E);
  const { out, buildMs } = await solveByMethod(p, graph, strategy.method, whole, orbits, fits, t0, options);
  progress(options, 0.9, `extracting the channel of ${p.what}`);
  const C = tidyChannel(out.sol.colValue, orbits, p);
  const fE = edgeFactors(graph);
  // A decomposition's channel is, column by column, a non-negative combination of points of P
  // (column-decomposition.ts): it satisfies every row up to rounding. Where the repair (m lifts over the rows) and the
  // violation scan (rows x m) would cost more than REPAIR_MAX_WORK (all pairs of a 50 x 50 grid: 7.8e9, minutes), they
  // are skipped, and the job's privacy check judges the stored channel.
  const skipRepair = strategy.method === 'decomposition' && E * m > REPAIR_MAX_WORK;
  const repaired = skipRepair ? 0 : repairPrivacy(C, n, m, graph, fE, metricLifter(domain, eps, graph));
  const viol = skipRepair ? NaN : maxRelativeViolation(C, m, graph, fE);
  // The objective of the channel actually returned (the repair moves it by about the solver tolerance).
  let objective = 0;
  for (let i = 0; i < n * m; i++) objective += cost[i]! * C[i]!;
  let capped = 0;
  for (let e = 0; e < E; e++) if (graph.exponent[e]! > MAX_EXPONENT) capped++;
  progress(options, 1, `${p.what} solved`);
  return {
    channel: C,
    objective,
    lpObjective: out.sol.objective,
    repairMass: repaired,
    cappedPairs: capped,
    graph,
    variables: size.variables,
    constraints: size.rows,
    nonzeros: size.nonzeros,
    buildMs,
    solveMs: out.sol.solveMs,
    maxConstraintViolation: viol,
    iterations: out.sol.iterations,
    symmetries: orbits ? sym.generators : 0,
    reducedVariables: out.solvedCols,
    reducedConstraints: out.solvedRows,
    generation: out.generation,
    decomposition: out.decomposition,
  };
}

/** The LP solved by the chosen method, with the time from t0 to the start of the solve (the model's build). */
async function solveByMethod(
  p: PrivateChannelProblem,
  graph: PrivacyConstraintGraph,
  method: LpMethod,
  whole: boolean,
  orbits: PairOrbits | null,
  fits: (s: { variables: number; rows: number; nonzeros: number }) => void,
  t0: number,
  options?: LpOptions,
): Promise<{ out: MethodSolution; buildMs: number }> {
  const { n } = p.domain;
  const m = p.outputs;
  const E = graph.from.length;
  const size = privateChannelLpSize(n, m, E);
  checkCancelled(options, `building ${p.what}`);
  if (method === 'decomposition') {
    progress(
      options,
      0.1,
      `solving ${p.what} by column decomposition: ${size.variables} variables, ${size.rows} constraints as ${m} pricing LPs of ${n} variables and ${2 * E} rows`,
    );
    const buildMs = performance.now() - t0;
    return { buildMs, out: await solveDecomposed(p, graph, options) };
  }
  if (method === 'constraint-generation') {
    progress(
      options,
      0.1,
      `building ${p.what} by constraint generation: ${size.variables} variables, up to ${size.rows} constraints`,
    );
    const buildMs = performance.now() - t0;
    return { buildMs, out: await solveGenerated(p, graph, whole, options) };
  }
  fits(size);
  progress(
    options,
    0.1,
    `building ${p.what}: ${size.variables} variables, ${size.rows} constraints${orbits ? `, reduced to ${orbits.count} orbit variables by symmetry` : ''}`,
  );
  const lp = orbits ? buildOrbitLp(shapeOf(p), graph, orbits, options) : buildFullLp(shapeOf(p), graph, size, options);
  assertLpFits(lp.numCols, lp.numRows, lp.nonzeros, p.what);
  const buildMs = performance.now() - t0;
  checkCancelled(options, `building ${p.what}`);
  const sol = await solveSparseLp(lp, p.what, options);
  const out: MethodSolution = {
    sol: {
      objective: sol.objective,
      colValue: sol.colValue,
      solveMs: sol.solveMs + sol.loadMs,
      iterations: sol.iterations,
    },
    solvedCols: lp.numCols,
    solvedRows: lp.numRows,
  };
  return { out, buildMs };
}
