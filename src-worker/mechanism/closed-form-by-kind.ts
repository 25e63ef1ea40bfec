import { MechError } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import type { Mechanism } from './channel';
import { exponentialMechanism } from './exponential';
import { laplaceRowNormalised } from './laplace-row-normalised';
import { planarLaplace } from './planar-laplace';
import { randomisedResponse } from './randomised-response';
import { symmetricGraph } from './symmetric-graph';
import { truncatedGeometric } from './truncated-geometric';

/** The builder of each closed-form kind of SPEC §8 ('tight' and 'optimal' need solvers and return other shapes). */
const CLOSED_FORMS = {
  tg: truncatedGeometric,
  rr: randomisedResponse,
  exponential: exponentialMechanism,
  laplace: laplaceRowNormalised,
  'planar-laplace': planarLaplace,
  symmetric: symmetricGraph,
} satisfies Record<string, (domain: Domain, eps: number) => Mechanism>;

export type ClosedFormKind = keyof typeof CLOSED_FORMS;

export const CLOSED_FORM_KINDS = Object.keys(CLOSED_FORMS) as readonly ClosedFormKind[];

/** Build a closed-form mechanism by its CLI kind name (SPEC §8 --kind). */
export function closedFormMechanism(kind: ClosedFormKind, domain: Domain, eps: number): Mechanism {
  if (!Object.hasOwn(CLOSED_FORMS, kind))
    throw new MechError(
      'invalid-input',
      `unknown closed-form mechanism kind '${String(kind)}' (${CLOSED_FORM_KINDS.join(', ')})`,
    );
  return CLOSED_FORMS[kind](domain, eps);
}
