/**
 * What a job's admission (./admission.ts) knows about a domain: from the request alone (the domain spec's numbers,
 * parsed but NOT built) its points, constrained pairs, symmetry and solve-cost classes; for domains whose size only
 * the built domain shows (graph:FILE, csv:FILE, inline custom/graph), the same figures read off the built domain.
 */
import type { Domain } from '../metric/domain';
import { parseDomainSpecText, type ParsedDomainSpec } from '../metric/parse-domain-spec';
import { domainSpecSize } from '../../src-shared/grammar/domain-spec';
import type { DomainInput } from '../../src-shared/protocol/index';
import { LEVINSON_MAX_POINTS } from '../bound/tight-exists';

/** What the estimate knows about a domain without building it. */
export interface DomainSize {
  /** How the domain is named in messages. */
  name: string;
  /** Points (a float: may exceed 2^53 for absurd specs, so that limits, not constructors, refuse it). */
  n: number;
  /**
   * Constrained pairs of an LP / privacy check: graph edges on graph metrics, else the pairs an all-pairs check visits.
   */
  pairs: number;
  /** Pairs the privacy check visits (edges on graph metrics, all n(n-1)/2 otherwise). */
  checkPairs: number;
  /** The check visits all pairs by the ln scan (no graph edges): priced against maxScanCheckWork. */
  checkScan: boolean;
  /**
   * Constrained pairs the optimal-mechanism LP needs at least: the graph edges, or on a Euclidean grid
   * (no graph metric) a greedy spanner, which has at least the 4n neighbour pairs; a lower bound, so
   * that only what no LP model can do is refused here.
   */
  optimalPairs: number;
  /** Upper bound on the isometry group size (the LP orbit reduction divides by at most this); Infinity when unknown. */
  symmetry: number;
  /** Cost class of a tight-constraints solve (Phi z = 1). */
  tight: 'closed-form' | 'structured' | 'dense' | 'unknown';
  /** Grid shape (planar Laplace). */
  grid?: { rows: number; cols: number };
  /** Phi is a 1-D Toeplitz matrix that tightExists solves by Levinson, O(n^2) per solve (bound/tight-exists.ts). */
  levinson?: true;
  /**
   * Cost class of the regularity solve mu Phi = pi (bound/mu.ts): closed form or Kronecker ('cheap'), else a dense n^3
   * LU.
   */
  mu?: 'cheap';
}

/** A size in messages: an integer below 10^7, else in exponent form. */
export const fmt = (x: number): string => (x < 1e7 ? String(Math.round(x)) : x.toExponential(2));
export const pairsOf = (n: number): number => (n * (n - 1)) / 2;

/**
 * Size of a parsed spec, from its numbers alone (no allocation): the point count from the grammar's own
 * domainSpecSize (the one size model, which the editors use too), the pairs and solve costs by kind.
 */
export function sizeOfParsedSpec(text: string, d: ParsedDomainSpec): DomainSize | null {
  const n = domainSpecSize(d);
  const base = (
    n: number,
    pairs: number,
    graphMetric: boolean,
    symmetry: number,
    tight: DomainSize['tight'],
  ): DomainSize => ({
    name: text,
    n,
    pairs,
    checkPairs: graphMetric ? pairs : pairsOf(n),
    checkScan: !graphMetric,
    optimalPairs: graphMetric ? pairs : Math.min(pairs, 4 * n),
    symmetry,
    tight,
  });
  switch (d.kind) {
    case 'line':
      return base(n, Math.max(0, n - 1), true, 2, 'structured');
    case 'count':
      return base(n, n - 1, true, 2, 'structured');
    case 'ring':
      return base(n, n, true, 2 * n, 'closed-form');
    case 'clique':
      return { ...base(n, pairsOf(n), true, Infinity, 'closed-form'), mu: 'cheap' };
    case 'argmax':
    case 'max':
    case 'min':
    case 'percentile':
      return base(n, pairsOf(n), true, Infinity, 'closed-form');
    case 'hamming':
      return { ...base(n, (d.bits * n) / 2, true, Infinity, 'closed-form'), mu: 'cheap' };
    case 'sum':
    case 'avg': {
      // answers 0..UV, adjacent within V steps; Phi = exp(-eps ceil(|i-j|/V)) is not positive definite for V > 1,
      // so the lattice solver falls back to MINRES and a dense LU (measured: avg:50,50 17 s).
      const size = base(n, Math.min(pairsOf(n), d.v * n), true, 2, d.v === 1 ? 'structured' : 'dense');
      return d.v > 1 && n <= LEVINSON_MAX_POINTS ? { ...size, levinson: true } : size;
    }
    case 'kcount': {
      const king = (n * (3 ** Math.min(d.k, 40) - 1)) / 2;
      return base(n, Math.min(pairsOf(n), king), true, 2 ** d.k * factorial(d.k), d.k <= 2 ? 'structured' : 'dense');
    }
    case 'grid': {
      const sym = d.rows === d.cols ? 8 : 4;
      const g = { rows: d.rows, cols: d.cols };
      // Manhattan / Chebyshev: 4- / 8-neighbour graph metrics. Euclidean is no graph metric: the LP keeps the
      // pairs with no lattice point strictly between them (gcd(dr, dc) = 1: a fraction 6/pi^2 of all pairs).
      if (d.metric === 'manhattan') return { ...base(n, 2 * n, true, sym, 'structured'), grid: g, mu: 'cheap' };
      if (d.metric === 'chebyshev') return { ...base(n, 4 * n, true, sym, 'structured'), grid: g };
      return { ...base(n, (6 / Math.PI ** 2) * pairsOf(n), false, sym, 'structured'), grid: g };
    }
    case 'db': {
      const w = d.v + (d.absent ? 1 : 0);
      const perPoint =
        d.metric === 'max' ? (3 ** Math.min(d.u, 40) - 1) / 2 : d.metric === 'manhattan' ? d.u : (d.u * (w - 1)) / 2;
      const db = base(
        n,
        Math.min(pairsOf(n), n * perPoint),
        true,
        Infinity,
        d.metric === 'max' ? 'unknown' : 'closed-form',
      );
      return d.metric === 'max' ? db : { ...db, mu: 'cheap' };
    }
    case 'graph':
    case 'csv':
      return null; // known once the (byte-capped) file is read: sized from the built domain
  }
}

function factorial(k: number): number {
  let f = 1;
  for (let i = 2; i <= k; i++) f *= i;
  return f;
}

/** Size of a built domain (files and inline inputs, whose size the request does not show). */
export function sizeOfBuiltDomain(domain: Domain): DomainSize {
  const n = domain.n;
  const edges = domain.kind === 'graph' ? domain.structure.edges?.from.length : undefined;
  const pairs = edges ?? pairsOf(n);
  return {
    name: domain.spec,
    n,
    pairs,
    checkPairs: pairs,
    checkScan: edges === undefined,
    optimalPairs: pairs,
    symmetry: Infinity,
    tight: 'unknown',
  };
}

/** Size of a domain input from the request alone; null when only the built domain can tell. */
export function sizeOfDomainInput(input: DomainInput): DomainSize | null {
  if (typeof input === 'string') {
    const { text, parsed } = parseDomainSpecText(input);
    return sizeOfParsedSpec(text, parsed);
  }
  return null; // inline: bounded by the protocol schema; sized when built
}
