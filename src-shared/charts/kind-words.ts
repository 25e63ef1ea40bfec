/** The name of each mechanism kind in words (the app's kind menu, the study report). */
import type { MechanismKindName } from '../protocol/index';

export const KIND_LABELS: Record<MechanismKindName, string> = {
  tg: 'Truncated geometric',
  rr: 'Randomised response',
  exponential: 'Exponential (nearer reports likelier)',
  laplace: 'Row-normalised Laplace (guaranteed at 2ε)',
  'planar-laplace': 'Planar Laplace (grids)',
  tight: 'Tight constraints',
  symmetric: 'Symmetric graph',
  optimal: 'Optimal (LP, prior + loss)',
};
