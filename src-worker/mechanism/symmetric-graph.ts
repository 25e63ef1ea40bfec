import { MechError, assertEpsilon } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { ringDomain } from '../metric/ring';
import { REL_TOL } from '../../src-shared/numeric/tolerance';
import type { Mechanism } from './channel';
import { FunctionRowSource } from './function-row-source';
import { isLineMetric } from './line-domain-check';

/**
 * Symmetric-graph mechanism (SPEC §2) for answer graphs with a single-orbit
 * automorphism where every distance-k border has c points (ring, clique):
 *   C[y][z] = a / E^dist(y,z),  E = e^eps,
 *   a = E^m (1-E) / (E^m (1-E) + c (1 - E^m)),  m the diameter,
 * i.e. 1/a = 1 + c sum_{k=1..m} E^-k. On an even ring the antipode (one
 * point at distance m instead of c = 2) gets the doubled entry 2a/E^m; that
 * keeps eps*d-privacy only when E/2 >= 1/E, i.e. e^(2 eps) >= 2.
 * A line 0..N-1 is first closed into a ring of N points (d_ring <= d_line,
 * so the ring mechanism stays eps*d_line-private: valid, not optimal). An
 * even N whose ring would need the doubling at e^(2 eps) < 2 is closed into
 * a ring of N+1 points instead and restricted to 0..N-1 (outputs 0..N).
 */
export function symmetricGraph(domain: Domain, eps: number): Mechanism {
  assertEpsilon(eps);
  const orbit = domain.structure.singleOrbit;
  if (orbit)
    return singleOrbitMechanism(
      domain,
      eps,
      orbit.c,
      orbit.diameter,
      orbit.evenRing,
      'symmetric-graph mechanism (single orbit)',
    );
  if (isLineMetric(domain)) return lineClosedIntoRing(domain, eps);
  throw new MechError(
    'not-applicable',
    `the symmetric-graph mechanism needs a single-orbit answer graph (ring, clique) or a line to close into a ring; ${domain.spec} is neither`,
    { domain: domain.spec },
  );
}

/** e^(2 eps) >= 2 (with the check's relative tolerance): the even-ring doubling is legal. */
export function evenRingDoublingLegal(eps: number): boolean {
  return Math.exp(2 * eps) >= 2 * (1 - REL_TOL);
}

/** 1/a = 1 + c sum_{k=1..m} E^-k (the SPEC §2 formula rearranged to avoid overflow of E^m). */
export function symmetricA(eps: number, c: number, m: number): number {
  let s = 1;
  for (let k = 1; k <= m; k++) s += c * Math.exp(-eps * k);
  return 1 / s;
}

function singleOrbitMechanism(
  domain: Domain,
  eps: number,
  c: number,
  m: number,
  evenRing: boolean,
  what: string,
): Mechanism {
  const n = domain.n;
  const expected = evenRing ? 2 * m : 1 + c * m;
  if (n !== expected) {
    throw new MechError(
      'invalid-input',
      `${domain.spec}: a single-orbit graph with c = ${c} and diameter ${m} has ${expected} points, not ${n}`,
    );
  }
  if (evenRing && !evenRingDoublingLegal(eps)) {
    throw new MechError(
      'not-applicable',
      `${domain.spec} is an even ring: the symmetric mechanism doubles the antipode entry, which is eps*d-private only when e^(2 eps) >= 2 (eps >= ln 2 / 2 = ${Math.log(2) / 2}); got eps = ${eps}`,
      { epsilon: eps, threshold: Math.log(2) / 2 },
    );
  }
  const a = symmetricA(eps, c, m);
  const fill = (y: number, out: Float64Array): void => {
    for (let z = 0; z < n; z++) {
      const d = domain.distance(y, z);
      const v = a * Math.exp(-eps * d);
      out[z] = evenRing && d === m ? 2 * v : v;
    }
  };
  return {
    kind: 'symmetric',
    channel: new FunctionRowSource(n, n, fill, (i) => domain.label(i)),
    guaranteedEpsilon: eps,
    guarantee: `eps*d-private with eps = ${eps}: ${what}, a = ${a}${evenRing ? ', antipode doubled (legal as e^(2 eps) >= 2)' : ''}`,
    facts: { kind: 'symmetric', a, c, diameter: m, evenRing },
  };
}

function lineClosedIntoRing(domain: Domain, eps: number): Mechanism {
  const N = domain.n;
  const even = N % 2 === 0 && N > 2;
  const ringSize = even && !evenRingDoublingLegal(eps) ? N + 1 : N;
  const ring = ringDomain(ringSize);
  const o = ring.structure.singleOrbit!;
  const inner = singleOrbitMechanism(ring, eps, o.c, o.diameter, o.evenRing, 'ring');
  const rowBuf = new Float64Array(ringSize);
  const fill = (y: number, out: Float64Array): void => {
    inner.channel.row(y, rowBuf);
    out.set(rowBuf);
  };
  const colLabel = (j: number): string => (j < N ? domain.label(j) : `${N} (ring closure)`);
  return {
    kind: 'symmetric',
    channel: new FunctionRowSource(N, ringSize, fill, (i) => domain.label(i), colLabel),
    guaranteedEpsilon: eps,
    guarantee:
      `eps*d-private with eps = ${eps} but not optimal: the line was closed into a ring of ${ringSize} points ` +
      `(ring distance <= line distance) and the ring's symmetric mechanism used${ringSize > N ? `, restricted to 0..${N - 1} (a ring of ${N} would need e^(2 eps) >= 2)` : ''}`,
    facts: inner.facts.kind === 'symmetric' ? { ...inner.facts, closedIntoRing: ringSize } : inner.facts,
  };
}
