import { MechError } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';

/**
 * True when the domain's metric is the line metric |i - j| on 0..n-1 (line:N,
 * count:U, ...). For a metric, d(i, i+1) = 1 for all i and d(0, j) = j for
 * all j force d(i, j) = |i - j| (triangle inequality both ways), so O(n)
 * distance calls decide it.
 */
export function isLineMetric(domain: Domain): boolean {
  const n = domain.n;
  for (let i = 0; i + 1 < n; i++) if (domain.distance(i, i + 1) !== 1) return false;
  for (let j = 0; j < n; j++) if (domain.distance(0, j) !== j) return false;
  return true;
}

export function assertLineDomain(domain: Domain, what: string): void {
  if (!isLineMetric(domain)) {
    throw new MechError(
      'not-applicable',
      `${what} needs a line domain 0..k with d = |i - j| (line:N or count:U); ${domain.spec} is not one`,
      {
        domain: domain.spec,
      },
    );
  }
}
