import { MechError } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import type { Mechanism } from './channel';
import { exponentialMechanism } from './exponential';
import { laplaceRowNormalised } from './laplace-row-normalised';
import { planarLaplace } from './planar-laplace';
import { randomisedResponse } from './randomised-response';
import { symmetricGraph } from './symmetric-graph';
import { truncatedGeometric } from './truncated-geometric';

/** The closed-form kinds of SPEC §8 ('tight' and 'optimal' need solvers and return other shapes). */
export type ClosedFormKind = 'tg' | 'rr' | 'exponential' | 'laplace' | 'planar-laplace' | 'symmetric';

export const CLOSED_FORM_KINDS: readonly ClosedFormKind[] = [
  'tg',
  'rr',
  'exponential',
  'laplace',
  'planar-laplace',
  'symmetric',
];

/** Build a closed-form mechanism by its CLI kind name (SPEC §8 --kind). */
export function closedFormMechanism(kind: ClosedFormKind, domain: Domain, eps: number): Mechanism {
  switch (kind) {
    case 'tg':
      return truncatedGeometric(domain, eps);
    case 'rr':
      return randomisedResponse(domain, eps);
    case 'exponential':
      return exponentialMechanism(domain, eps);
    case 'laplace':
      return laplaceRowNormalised(domain, eps);
    case 'planar-laplace':
      return planarLaplace(domain, eps);
    case 'symmetric':
      return symmetricGraph(domain, eps);
    default:
      throw new MechError(
        'invalid-input',
        `unknown closed-form mechanism kind '${String(kind)}' (${CLOSED_FORM_KINDS.join(', ')})`,
      );
  }
}
