import { assertEpsilon, assertPositiveInt } from '../../src-shared/errors';

/**
 * Closed forms of the privacy-type capacities (SPEC §6), alpha = e^-eps,
 * used to cross-check the LP.
 */

/** Line of N points: multiplicative capacity (N(1-alpha) + 2 alpha) / (1 + alpha). */
export function lineMultiplicativeCapacity(N: number, eps: number): number {
  assertPositiveInt(N, 'line size');
  assertEpsilon(eps);
  const a = Math.exp(-eps);
  return N === 1 ? 1 : (N * (1 - a) + 2 * a) / (1 + a);
}

/** Discrete metric on n points: multiplicative capacity n / (1 + (n-1) alpha). */
export function discreteMultiplicativeCapacity(n: number, eps: number): number {
  assertPositiveInt(n, 'number of points');
  assertEpsilon(eps);
  return n / (1 + (n - 1) * Math.exp(-eps));
}

/** Discrete metric on n points: additive capacity 1 - n / (1 + (n-1) e^eps). */
export function discreteAdditiveCapacity(n: number, eps: number): number {
  assertPositiveInt(n, 'number of points');
  assertEpsilon(eps);
  return 1 - n / (1 + (n - 1) * Math.exp(eps));
}
