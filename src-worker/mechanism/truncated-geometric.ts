import { assertEpsilon } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import type { Mechanism } from './channel';
import { FunctionRowSource } from './function-row-source';
import { assertLineDomain } from './line-domain-check';

/**
 * Truncated geometric mechanism on the line 0..k (SPEC §2), alpha = e^-eps:
 *   interior column z:  C[y][z] = (1-alpha)/(1+alpha) * alpha^|y-z|
 *   column 0:           C[y][0] = alpha^y / (1+alpha)
 *   column k:           C[y][k] = alpha^(k-y) / (1+alpha)
 * (k = 0: the single column is 1). Exactly eps*d-private with every
 * neighbour constraint tight. Implicit: row y costs O(k) from a table of
 * powers, so count:10^6 works.
 */
export function truncatedGeometric(domain: Domain, eps: number): Mechanism {
  assertEpsilon(eps);
  assertLineDomain(domain, 'the truncated geometric mechanism');
  const n = domain.n;
  const k = n - 1;
  const alpha = Math.exp(-eps);
  // (1-alpha)/(1+alpha) with 1-alpha = -expm1(-eps): accurate for small eps.
  const inner = -Math.expm1(-eps) / (1 + alpha);
  // alpha^d for d = 0..k, each from Math.pow (no error growth along long lines).
  const pow = new Float64Array(n);
  for (let d = 0; d < n; d++) pow[d] = Math.pow(alpha, d);
  const fill = (y: number, out: Float64Array): void => {
    if (k === 0) {
      out[0] = 1;
      return;
    }
    for (let z = 1; z < k; z++) out[z] = inner * pow[Math.abs(y - z)]!;
    out[0] = pow[y]! / (1 + alpha);
    out[k] = pow[k - y]! / (1 + alpha);
  };
  return {
    kind: 'tg',
    channel: new FunctionRowSource(n, n, fill, (i) => domain.label(i)),
    guaranteedEpsilon: eps,
    guarantee: `eps*d-private with eps = ${eps} (truncated geometric, exact: every neighbour constraint is tight)`,
    facts: { kind: 'truncated-geometric', alpha, k },
  };
}
