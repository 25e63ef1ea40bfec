/** LP result records whose words the app's card, its server-side render and the CLI are tested on. */
import type { LpResult } from '../../../src-shared/protocol/index';

/** The LP's own channel, stopped by its time limit before any pricing round proved a bound above 0. */
export const LP_NO_BOUND_YET = {
  chosen: 'lp',
  exactLowerBound: 0,
  lowerBound: 0,
  gap: 1,
  rounds: 0,
  stoppedBy: 'time-limit',
  timeLimitReached: true,
} as const satisfies Partial<LpResult>;
