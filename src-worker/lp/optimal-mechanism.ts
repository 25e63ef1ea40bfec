import { MechError, assertEpsilon } from '../errors';
import { Matrix, assertDenseFits } from '../linalg/matrix';
import { validatePrior } from '../measure/prior';
import { DenseChannel, type Mechanism } from '../mechanism/channel';
import type { Domain } from '../metric/domain';
import { type LossInput, type OutputSet, resolveLoss, secretsAsOutputs } from './loss-input';
import type { LpOptions } from './lp-options';
import type { ConstraintMode } from './privacy-constraint-graph';
import { solvePrivateChannelLp } from './private-channel-lp';
import type { GenerationOptions } from './constraint-generation';
import type { DecompositionOptions } from './column-decomposition';

export interface OptimalMechanismOptions extends LpOptions {
  /** Output set (default: the secrets). */
  outputs?: OutputSet;
  /** Which pairs get privacy constraints (default 'auto', see privacy-constraint-graph.ts). */
  constraints?: ConstraintMode;
  /** Spanner dilation for Euclidean grids (default 1.1). */
  delta?: number;
  /**
   * 'auto' (default): when the prior and loss are invariant under the
   * domain's isometries (e.g. a uniform prior and a distance loss on a grid),
   * solve one variable per orbit; the optimum is the same (see orbit-reduction.ts).
   */
  symmetry?: 'auto' | 'off';
  /**
   * Constraint generation (see constraint-generation.ts): 'auto' (default)
   * when there is no symmetry reduction and the full model has more than
   * GENERATION_ROW_THRESHOLD privacy rows; the optimum is the same.
   */
  generation?: 'auto' | 'on' | 'off';
  /** Tuning of the constraint generation (tolerance, batch, seed reach). */
  generationOptions?: Omit<GenerationOptions, 'closeness'>;
  /**
   * Decomposition by output column (see column-decomposition.ts): 'auto'
   * (default) when a spanner or edge-graph model does not fit the solver
   * memory; the optimum is the same, certified by a Lagrangian bound.
   */
  decomposition?: 'auto' | 'on' | 'off';
  decompositionOptions?: DecompositionOptions;
}

/**
 * Optimal eps*d-private mechanism for a prior and a loss (SPEC §2):
 * minimise sum_x pi_x sum_w C[x][w] loss(w, x) over row-stochastic C >= 0
 * with the d-privacy constraints (on graph edges, on a spanner's edges with
 * eps/delta, or on all pairs). info reports delta, the constraint count,
 * variables, the optimal expected loss, solver time and status.
 */
export async function optimalMechanism(domain: Domain, eps: number, prior: ArrayLike<number>, loss: LossInput, options: OptimalMechanismOptions = {}): Promise<Mechanism> {
  assertEpsilon(eps);
  const n = domain.n;
  const pi = validatePrior(prior, n);
  const outputs = options.outputs ?? secretsAsOutputs(domain);
  const m = outputs.n;
  if (!Number.isInteger(m) || m < 1) throw new MechError('invalid-input', `the output set must have at least one element, got ${m}`);
  assertDenseFits(n, m, `optimal mechanism on ${domain.spec}`);
  const lossAt = resolveLoss(loss, outputs, n);
  const cost = new Float64Array(n * m);
  for (let x = 0; x < n; x++) {
    const px = pi[x]!;
    for (let w = 0; w < m; w++) {
      const l = lossAt(w, x);
      if (!Number.isFinite(l)) throw new MechError('invalid-input', `loss(${outputs.label(w)}, ${domain.label(x)}) is ${l}, not a finite number`);
      cost[x * m + w] = px * l;
    }
  }
  // The LP sees the cost rescaled to max |cost| = 1: the optimum is the same channel at any positive scale,
  // and HiGHS treats costs of 1e20 and more as infinite (a 1e308 loss made the solve fail). Reported
  // objectives are scaled back.
  let scale = 0;
  for (let i = 0; i < cost.length; i++) scale = Math.max(scale, Math.abs(cost[i]!));
  if (!(scale > 0) || !Number.isFinite(scale)) scale = 1;
  if (scale !== 1) for (let i = 0; i < cost.length; i++) cost[i] = cost[i]! / scale;
  const s = await solvePrivateChannelLp(
    {
      domain,
      eps,
      outputs: m,
      cost,
      sense: 'minimize',
      constraints: options.constraints,
      delta: options.delta,
      outputsAreSecrets: options.outputs === undefined,
      symmetry: options.symmetry,
      generation: options.generation,
      // Seed rows bound the entry farther (by the loss) from each output from below.
      generationOptions: { closeness: (x, w) => lossAt(w, x), ...options.generationOptions },
      decomposition: options.decomposition,
      decompositionOptions: options.decompositionOptions,
      what: `the optimal-mechanism LP on ${domain.spec}`,
    },
    options,
  );
  const rowLabels: string[] = [];
  const colLabels: string[] = [];
  for (let x = 0; x < n; x++) rowLabels.push(domain.label(x));
  for (let w = 0; w < m; w++) colLabels.push(outputs.label(w));
  const channel = new DenseChannel(new Matrix(n, m, s.channel), rowLabels, colLabels);
  const how =
    s.graph.mode === 'edges'
      ? 'constraints on the graph edges of d'
      : s.graph.mode === 'spanner'
        ? `constraints with eps/${s.graph.delta} on a greedy spanner of dilation ${s.graph.delta}`
        : s.graph.mode === 'exact'
          ? 'constraints on all pairs not implied by an equally long path'
          : 'constraints on all pairs';
  return {
    kind: 'optimal',
    channel,
    guaranteedEpsilon: eps,
    guarantee: `eps*d-private by construction (${how})${s.graph.mode === 'spanner' ? '; optimal only up to the dilation' : ''}`,
    info: {
      delta: s.graph.delta,
      constraintMode: s.graph.mode,
      constrainedPairs: s.graph.from.length,
      constraints: s.constraints,
      variables: s.variables,
      nonzeros: s.nonzeros,
      objective: s.objective * scale,
      buildMs: s.buildMs,
      solverMs: s.solveMs,
      iterations: s.iterations,
      symmetries: s.symmetries,
      reducedVariables: s.reducedVariables,
      reducedConstraints: s.reducedConstraints,
      maxConstraintViolation: s.maxConstraintViolation,
      lpObjective: s.lpObjective * scale,
      repairMass: s.repairMass,
      cappedPairs: s.cappedPairs,
      ...(s.generation
        ? {
            generationRounds: s.generation.rounds.length,
            generatedPrivacyRows: s.generation.privacyRows,
            fullPrivacyRows: s.generation.fullPrivacyRows,
            generationCheckMs: s.generation.checkMs,
            generationColdRetries: s.generation.coldRetries,
          }
        : {}),
      ...(s.decomposition
        ? {
            decompositionRounds: s.decomposition.rounds.length,
            decompositionColumns: s.decomposition.columns,
            // Certified: no eps*d-private channel (under these constraints) does better than this bound.
            lowerBound: s.decomposition.bound * scale,
            relativeGap: s.decomposition.gap,
            masterMs: s.decomposition.masterMs,
            pricingMs: s.decomposition.pricingMs,
          }
        : {}),
      status: 'optimal',
    },
  };
}
