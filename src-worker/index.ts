/**
 * The engine's door for the hosts: exactly what the main process (src-main/:
 * the command line, the dispatcher, the Electron and web hosts, the queue)
 * imports from the engine, and nothing else. Jobs run in the worker
 * (worker-entry.ts), which imports the job runner itself; the library
 * features that no host uses are behind the second door, library.ts.
 * docs/engine-api.md describes both; test/unit/house/engine-index.test.ts
 * fails on a name here that src-main does not import, and lint refuses a
 * src-main import of any other engine file.
 */

/* ---------- jobs: cancel flags, admission, project plans, rows of a result ---------- */
export { FLAG_CANCEL, FLAG_STOP, checkCancelled } from './jobs/context';
export { sizeOfDomainInput } from './jobs/domain-size';
export { planProject } from './jobs/project-plan';
export { rowsOf } from './jobs/rows-view';

/* ---------- inputs: domain specs, CSV files, closed forms for examples ---------- */
export { parseDomainSpec, parseDomainSpecText } from './metric/parse-domain-spec';
export { type CsvRow } from './metric/read-csv';
export { closedFormMechanism } from './mechanism/closed-form-by-kind';
export { fileKind, ioReason } from './base/file-kind';
export { LINK_AT_OPEN, confinedProblem, confinedRefusal, descriptorLink } from './base/confined-open';

/* ---------- kept channels, channel files, samples, case-study parts ---------- */
export { keptRowSource, type KeptChannel } from './jobs/kept-channel';
export { writeChannelCsv } from './jobs/channel-csv';
export { csvField } from './data/apply';
export { ChannelSampler } from './data/channel-sampler';
export { mergeStudyParts, splitStudy } from './casestudy/parts';

/* ---------- pricing on a queue: the engines a queue master and worker drive, and their certificates ---------- */
export {
  LocalPricing,
  ThreadedPricing,
  threadedPricingAvailable,
  openPricing,
  type PricingEngine,
  type PricingFactory,
  type PricingRequest,
  packRound,
  type PricingRound,
  type PricingSpec,
} from './lp/pricing/pricing-pool';
export { DEFAULT_PRICING_FORM, type PricingOutcome, type PricingRows } from './lp/pricing/pricing';
export { packCertificates, unpackCertificates, verifyOutcome } from './lp/pricing/pricing-certificate';
export { EXACT_PRICING_MAX_SECRETS } from './lp/pricing/exact-pricing';
export { servePricing } from './lp/pricing/pricing-port';

/* ---------- the optimal LP's pricing threads on a host's pool ---------- */
export { withDefaultLpThreads } from './lp/pricing/lp-threads';
