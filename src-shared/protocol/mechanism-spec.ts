/**
 * A mechanism named by its construction (domain, eps, kind, prior, loss, the
 * optimal LP's options, remap): the fields of a mechanism request, and the
 * spec that measure, check, rows, apply and compare requests accept instead
 * of a matrix. Its own module so that requests.ts and compare.ts both import
 * it (requests.ts imports compare.ts).
 */
import { z } from 'zod';
import {
  domainInputSchema,
  epsilonSchema,
  lossInputSchema,
  lpOptionsOnlyForOptimal,
  lpOptionsShape,
  mechanismKindSchema,
  priorInputSchema,
} from './common';
import { remapFieldShape, remapNeedsLoss, remapNeedsLossMessage } from './remap';

/**
 * What names a mechanism by its construction; the optimal LP's options (model, delta, time limit, target gap) apply to
 * kind 'optimal' only.
 */
export const mechanismSpecShape = {
  domain: domainInputSchema,
  epsilon: epsilonSchema,
  kind: mechanismKindSchema,
  prior: priorInputSchema.optional(),
  loss: lossInputSchema.optional(),
  ...lpOptionsShape,
  /** Follow the construction by the Bayesian remap of its outputs (needs prior and loss; docs/remap.md). */
  ...remapFieldShape,
};

/**
 * A mechanism named by its construction instead of its matrix: measure and
 * check can then run on channels too large to send (implicit mechanisms).
 */
export const mechanismSpecSchema = z
  .strictObject(mechanismSpecShape)
  .refine(...lpOptionsOnlyForOptimal)
  .refine(remapNeedsLoss, remapNeedsLossMessage);
export type MechanismSpec = z.infer<typeof mechanismSpecSchema>;
