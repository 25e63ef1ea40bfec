/** The range of a sweep, shared by sweep requests and the sweep analyses of project files. */
import { z } from 'zod';
import { epsilonSchema, mechanismKindSchema } from './common';

/** Most mechanism kinds one sweep compares. */
const SWEEP_MAX_KINDS = 8;
/** Most eps values on a sweep's grid. */
const SWEEP_MAX_STEPS = 500;

/** The mechanism kinds and the eps grid (from..to in `steps` points) of a sweep. */
export const sweepRangeShape = {
  kinds: z.array(mechanismKindSchema).min(1).max(SWEEP_MAX_KINDS),
  from: epsilonSchema,
  to: epsilonSchema,
  steps: z.int().min(2).max(SWEEP_MAX_STEPS),
};
