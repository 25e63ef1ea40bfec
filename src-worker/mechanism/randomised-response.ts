import { MechError, assertEpsilon } from '../../src-shared/errors';
import { edgesIfAvailable } from '../metric/shortest-paths';
import type { Domain } from '../metric/domain';
import type { Mechanism } from './channel';
import { FunctionRowSource } from './function-row-source';

/** Pairs examined when the smallest positive distance has to be found by brute force. */
const MIN_DISTANCE_PAIR_LIMIT = 2e7;

/**
 * Smallest positive distance of the domain: the cell size on a grid, the
 * smallest positive ball radius of a ball-size-symmetric domain, edge weights
 * when the metric is a graph metric (the closest pair is always an edge),
 * otherwise all pairs (refused beyond MIN_DISTANCE_PAIR_LIMIT pairs).
 */
export function minPositiveDistance(domain: Domain): number {
  // Cheap structural answers first (no edge list needs to be built for them).
  if (domain.structure.grid && domain.n > 1) return domain.structure.grid.step;
  const balls = domain.structure.ballSizes;
  if (balls && domain.n > 1) {
    let m = Infinity;
    for (let k = 0; k < balls.radius.length; k++)
      if (balls.count[k]! > 0 && balls.radius[k]! > 0 && balls.radius[k]! < m) m = balls.radius[k]!;
    if (m < Infinity) return m;
  }
  const e = edgesIfAvailable(domain);
  if (e && e.weight.length > 0) {
    let m = Infinity;
    for (let k = 0; k < e.weight.length; k++) if (e.weight[k]! > 0 && e.weight[k]! < m) m = e.weight[k]!;
    return m;
  }
  const n = domain.n;
  if ((n * (n - 1)) / 2 > MIN_DISTANCE_PAIR_LIMIT) {
    throw new MechError(
      'too-large',
      `finding the smallest distance of ${domain.spec} needs ${(n * (n - 1)) / 2} pairs (limit ${MIN_DISTANCE_PAIR_LIMIT})`,
    );
  }
  let m = Infinity;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const d = domain.distance(i, j);
      if (d > 0 && d < m) m = d;
    }
  return m;
}

/**
 * Randomised response on the n labels of a domain (SPEC §2): diagonal
 * e^eps/(e^eps+n-1), elsewhere 1/(e^eps+n-1). It is eps-private for the
 * discrete metric, hence (eps/dmin)*d-private for a metric d whose smallest
 * positive distance is dmin (tight on the closest pairs). On a clique dmin = 1
 * and the guarantee is exactly eps*d.
 */
export function randomisedResponse(domain: Domain, eps: number): Mechanism {
  assertEpsilon(eps);
  const n = domain.n;
  // Divide numerator and denominator by e^eps so large eps does not overflow.
  const denom = 1 + (n - 1) * Math.exp(-eps);
  const diag = 1 / denom;
  const off = Math.exp(-eps) / denom;
  const fill = (i: number, out: Float64Array): void => {
    out.fill(off, 0, n);
    out[i] = diag;
  };
  const dmin = n > 1 ? minPositiveDistance(domain) : 1;
  const g = Number.isFinite(dmin) ? eps / dmin : eps;
  const guarantee =
    dmin === 1 || !Number.isFinite(dmin)
      ? `eps*d-private with eps = ${eps} (randomised response; tight for every pair at distance 1)`
      : `${g}*d-private: randomised response is ${eps}-private for the discrete metric and the smallest distance here is ${dmin}`;
  return {
    kind: 'rr',
    channel: new FunctionRowSource(n, n, fill, (i) => domain.label(i)),
    guaranteedEpsilon: g,
    guarantee,
    facts: { kind: 'randomised-response', diagonal: diag, offDiagonal: off, minDistance: dmin },
  };
}
