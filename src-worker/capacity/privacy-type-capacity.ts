import { assertEpsilon } from '../../src-shared/errors';
import { edgesIfAvailable } from '../metric/shortest-paths';
import { Matrix, assertDenseFits } from '../linalg/matrix';
import { DenseChannel, type Mechanism } from '../mechanism/channel';
import { type Domain, domainLabels } from '../metric/domain';
import type { LpOptions } from '../lp/solver/lp-options';
import type { ConstraintMode } from '../lp/model/privacy-constraint-graph';
import { type PrivateChannelSolution, solvePrivateChannelLp } from '../lp/channel/private-channel-lp';

interface PrivacyTypeCapacities {
  /** max sum_i m_ii over eps*d-private row-stochastic n x n m (SPEC §6). */
  multiplicative: number;
  /** 1 - min sum_i m_ii over the same set. */
  additive: number;
  /** A mechanism achieving the multiplicative capacity. */
  multiplicativeMechanism: Mechanism;
  /** A mechanism achieving the additive capacity. */
  additiveMechanism: Mechanism;
}

interface CapacityOptions extends LpOptions {
  /**
   * Constraint pairs; must be exact (never a dilated spanner, which would
   * shrink the feasible set): default 'auto' means graph edges when the domain
   * has them, else the exact reduction (pairs not implied by an equally long path).
   */
  constraints?: Exclude<ConstraintMode, 'spanner'>;
}

/**
 * Privacy-type capacities of (X, eps*d) by two LPs over d-private channels
 * with n outputs: maximise and minimise the trace (SPEC §6). Progress is
 * reported as two halves (multiplicative, then additive).
 */
export async function privacyTypeCapacities(
  domain: Domain,
  eps: number,
  options: CapacityOptions = {},
): Promise<PrivacyTypeCapacities> {
  assertEpsilon(eps);
  const n = domain.n;
  assertDenseFits(n, n, `capacity mechanisms on ${domain.spec}`);
  const constraints =
    options.constraints === undefined || options.constraints === 'auto'
      ? edgesIfAvailable(domain)
        ? 'edges'
        : 'exact'
      : options.constraints;
  const trace = new Float64Array(n * n);
  for (let i = 0; i < n; i++) trace[i * n + i] = 1;
  const half = (lo: number): LpOptions => ({
    ...options,
    onProgress: options.onProgress ? (f, msg) => options.onProgress!(lo + f / 2, msg) : undefined,
  });
  const mult = await solvePrivateChannelLp(
    {
      domain,
      eps,
      outputs: n,
      cost: trace,
      sense: 'maximize',
      constraints,
      outputsAreSecrets: true,
      what: `the multiplicative-capacity LP on ${domain.spec}`,
    },
    half(0),
  );
  const add = await solvePrivateChannelLp(
    {
      domain,
      eps,
      outputs: n,
      cost: trace,
      sense: 'minimize',
      constraints,
      outputsAreSecrets: true,
      what: `the additive-capacity LP on ${domain.spec}`,
    },
    half(0.5),
  );
  const labels = domainLabels(domain);
  const mech = (s: PrivateChannelSolution, which: 'multiplicative' | 'additive', value: number): Mechanism => ({
    kind: 'capacity',
    channel: new DenseChannel(new Matrix(n, n, s.channel), labels, labels.slice()),
    guaranteedEpsilon: eps,
    guarantee: `eps*d-private by construction (${s.graph.mode === 'edges' ? 'constraints on the graph edges of d' : 'constraints on all pairs not implied by an equally long path'}); achieves the ${which} capacity`,
    facts: {
      kind: 'capacity',
      capacity: which,
      value,
      trace: s.objective,
      constraintMode: s.graph.mode,
      constraints: s.constraints,
      variables: s.variables,
      solverMs: s.solveMs,
      maxConstraintViolation: s.maxConstraintViolation,
    },
  });
  const multiplicative = mult.objective;
  const additive = 1 - add.objective;
  return {
    multiplicative,
    additive,
    multiplicativeMechanism: mech(mult, 'multiplicative', multiplicative),
    additiveMechanism: mech(add, 'additive', additive),
  };
}
