/** The job protocol: schemas (validate at every boundary) and inferred types. */
export * from './common';
export {
  ERROR_CODES,
  errorCodeSchema,
  isInputErrorCode,
  jobErrorSchema,
  toJobError,
  type JobError,
  type JobErrorCode,
} from './errors';
export * from './requests';
export * from './results';
export * from './lp-gap';
export * from './notes';
export * from './facts';
export { factsFromInfo, type LegacyInfo } from './legacy-facts';
export * from './messages';
export * from './project';
export { migrateProject, PROJECT_VERSION } from './project-migration';
export * from './releases';
export * from './casestudy';
export * from './casestudy-findings';
export * from './api';
export * from './api-calls';
export * from './validate';
export * from './remap';
export * from './compare';
export * from './explorer';
export * from './sweep';
export * from './audit';
export * from './study-items';
