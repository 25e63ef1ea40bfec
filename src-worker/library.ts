/**
 * The engine's door for library users: the features behind the pages of
 * docs/ that no host imports (the hosts' door is index.ts; a name is behind
 * one door only). Each value named here is documented in
 * docs/engine-api.md with the page that describes it;
 * test/unit/house/engine-index.test.ts checks both, and that every engine
 * module is reachable from an entry point of the app or from a door.
 *
 * Guarantees are stated where they are sold: the privacy check
 * (check/privacy-check.ts, docs/privacy-check.md), the repair of LP channels
 * (lp/model/privacy-repair.ts), the decomposition bound (lp/decomposition/column-decomposition.ts)
 * and the honest 2 eps label of row-normalised Laplace
 * (mechanism/laplace-row-normalised.ts).
 */

/* ---------- jobs: one request in, one typed result out (docs/protocol.md) ---------- */
export { runJobRequest } from './jobs/run';
export { silentContext, type JobContext } from './jobs/context';
export { admitRequest } from './jobs/admission';
export * as jobEngine from './jobs/engine';
export { CASE_STUDIES, runCaseStudy } from './casestudy/index';
export { MechError, type MechErrorCode } from '../src-shared/errors';

/* ---------- domains and metrics (docs/domains-and-metrics.md) ---------- */
export { type ParsedDomainSpec } from './metric/parse-domain-spec';
export { distanceMatrix, domainLabels, phiMatrix, type Domain } from './metric/domain';
export { lineDomain } from './metric/line';
export { ringDomain } from './metric/ring';
export { cliqueDomain } from './metric/clique';
export { gridDomain } from './metric/grid';
export { querySensitivity, type QuerySensitivity } from './metric/query-sensitivity';
export { inducedAnswerDomain } from './metric/induced-answer-domain';

/* ---------- mechanisms (docs/mechanisms.md) ---------- */
export { DenseChannel, toDense, validateChannel, type Mechanism, type RowSource } from './mechanism/channel';
export { factsOf, type MechanismFacts } from './mechanism/facts';
export { CLOSED_FORM_KINDS, type ClosedFormKind } from './mechanism/closed-form-by-kind';
export { tightConstraints, type TightResult } from './mechanism/tight-constraints';
export { tightConstraintsStructured } from './mechanism/implicit/tight-structured';
export { ballSizeSymmetric } from './mechanism/ball-size-symmetric';
export { probabilisticChoice } from './mechanism/combinators/choice';
export { cascade } from './mechanism/combinators/cascade';
export { restrictSecrets } from './mechanism/combinators/restrict';
export { postProcess } from './mechanism/combinators/post-process';
export {
  optimalMechanism,
  chooseLpModel,
  type OptimalLpResult,
  type OptimalMechanism,
  type OptimalMechanismOptions,
} from './lp/optimal/optimal-mechanism';
export { remapMechanism, bayesRemap } from './remap/bayes-remap';

/* ---------- measures (docs/measures.md) ---------- */
export { channelMeasures, type Measures } from './measure/channel-measures';
export { uniformPrior, validatePrior } from './measure/prior';
export { priorVulnerability } from './measure/prior-vulnerability';
export { posteriorVulnerability } from './measure/posterior-vulnerability';
export { minEntropyLeakage } from './measure/min-entropy-leakage';
export { multiplicativeCapacity, minCapacity } from './measure/multiplicative-capacity';
export { additiveCapacity } from './measure/additive-capacity';
export { binaryUtility } from './measure/utility';
export { priorGVulnerability, posteriorGVulnerability } from './measure/g-vulnerability';
export { hyperDistribution, type HyperDistribution } from './measure/hyper-distribution';
export { expectedDistanceError } from './measure/expected-distance-error';
export { findRefinement, type RefinementResult } from './lp/other/refinement-lp';

/* ---------- the privacy check (docs/privacy-check.md) ---------- */
export {
  checkPrivacy,
  checkPrivacyThreaded,
  type PrivacyCheckOptions,
  type PrivacyCheckResult,
  type ThreadedCheckOptions,
} from './check/privacy-check';
export { checkComposedWithQuery, type ComposedQueryCheck } from './check/composed-query-check';

/* ---------- regular priors and bounds (docs/bounds.md) ---------- */
export { regularity, decideRegularity, type Regularity } from './bound/regularity';
export { utilityBound, leakageBound } from './bound/optimality-bounds';
export { cornerPrior, cornerPriors } from './bound/corner-priors';
export { productPriorBounds, type ProductPriorBounds } from './bound/product-prior-bounds';
export { thresholdSearch } from './bound/threshold-search';

/* ---------- capacities and the explorer (docs/capacities.md) ---------- */
export { privacyTypeCapacities } from './capacity/privacy-type-capacity';
export { privatePosteriorVertices, type PosteriorVertices } from './explorer/posterior-vertices';
export { enumerateKernelMechanisms, type KernelEnumeration } from './explorer/kernel-mechanisms';
export { kernelChannel, kernelMechanism } from './explorer/kernel-channel';

/* ---------- auditing a claim from samples (docs/audit.md) ---------- */
export {
  auditSamples,
  samplesToDetect,
  type AuditInput,
  type AuditOptions,
  type AuditOutcome,
  type AuditTest,
} from './audit/audit';
export { binomialLower, binomialUpper } from './audit/binomial';

/* ---------- numbers (docs/README.md, "Tolerances stated once") ---------- */
export { REL_TOL, SUM_TOL, NEG_TOL, Z_TOL, MERGE_TOL, BOUND_ATTAINED_TOL } from '../src-shared/numeric/tolerance';
export { parseDecimal } from '../src-shared/numeric/decimal';
export { seededRandom } from '../src-shared/numeric/seeded-random';
