import { MechError, assertEpsilon } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import type { Mechanism } from './channel';
import { FunctionRowSource } from './function-row-source';

/**
 * Closed form for ball-size-symmetric metrics (SPEC §5): when every point
 * sees count[k] points at distance radius[k],
 *   C[y][y'] = exp(-eps d(y,y')) / sum_k count[k] exp(-eps radius[k]),
 * which is the tight-constraints mechanism with constant z (so it always
 * exists): eps*d-private, optimal for every regular prior.
 */
export function ballSizeSymmetric(domain: Domain, eps: number): Mechanism {
  assertEpsilon(eps);
  const b = domain.structure.ballSizes;
  if (!b) {
    throw new MechError(
      'not-applicable',
      `${domain.spec} is not known to be ball-size symmetric (every point seeing the same number of points at each distance)`,
      {
        domain: domain.spec,
      },
    );
  }
  let total = 0;
  let norm = 0;
  for (let k = 0; k < b.radius.length; k++) {
    total += b.count[k]!;
    norm += b.count[k]! * Math.exp(-eps * b.radius[k]!);
  }
  if (total !== domain.n)
    throw new MechError('invalid-input', `${domain.spec}: ball sizes add up to ${total} points, not ${domain.n}`);
  const z = 1 / norm;
  const n = domain.n;
  const fill = (y: number, out: Float64Array): void => {
    for (let j = 0; j < n; j++) out[j] = Math.exp(-eps * domain.distance(y, j)) * z;
  };
  return {
    kind: 'tight',
    channel: new FunctionRowSource(n, n, fill, (i) => domain.label(i)),
    guaranteedEpsilon: eps,
    guarantee: `eps*d-private with eps = ${eps}: ball-size-symmetric closed form, the tight-constraints mechanism with z = ${z} everywhere (optimal for every regular prior)`,
    facts: { kind: 'ball-size', z, normaliser: norm },
  };
}
