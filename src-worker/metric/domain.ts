import { Matrix, assertDenseFits } from '../linalg/matrix';

/**
 * A finite set of secrets with a metric (SPEC §1). Every domain exposes its
 * labels, distances (a generator: dense matrices are built on demand and only
 * when they fit) and the structural facts solvers exploit.
 */
type DomainKind = 'line' | 'ring' | 'clique' | 'graph' | 'grid' | 'hamming' | 'database' | 'query' | 'custom';

export type GridMetric = 'euclidean' | 'manhattan' | 'chebyshev';

export interface WeightedEdges {
  /** Undirected edges, each listed once with from < to. */
  from: Int32Array;
  to: Int32Array;
  weight: Float64Array;
}

export interface DomainStructure {
  /**
   * A weighted graph whose shortest-path metric is exactly d. Privacy
   * constraints on these edges imply them on all pairs (SPEC §2, §4).
   */
  edges?: WeightedEdges;
  /**
   * Translation invariance: points form a lattice of the given shape
   * (row-major index, last axis fastest) and d(x, y) = offsetDistance(y - x)
   * (coordinates differences; taken modulo shape when periodic).
   * line N: shape [N]; ring N: shape [N], periodic; grid R x C: shape [R, C].
   */
  lattice?: {
    shape: number[];
    periodic: boolean;
    offsetDistance: (delta: readonly number[]) => number;
  };
  /** Grid facts (cell centres at (r*step, c*step)). */
  grid?: { rows: number; cols: number; step: number; metric: GridMetric };
  /**
   * Product form: points are u-tuples over a factor domain (index in base
   * factor.n, coordinate 0 most significant) and d combines per-coordinate
   * distances by sum (then exp(-eps d) is a Kronecker power, SPEC §5) or max.
   */
  product?: { factor: Domain; power: number; combine: 'sum' | 'max' };
  /**
   * Ball-size symmetry: every point sees count[k] points at distance
   * radius[k] (radius[0] = 0, count[0] = 1). Enables the closed form of SPEC §5.
   */
  ballSizes?: { radius: Float64Array; count: Float64Array };
  /**
   * Single-orbit answer graph (ring, clique): every distance-k border has c
   * points (an even ring has one antipode: evenRing), diameter m (SPEC §2, §5).
   */
  singleOrbit?: { c: number; diameter: number; evenRing: boolean };
}

export interface Domain {
  readonly kind: DomainKind;
  /** Canonical spec text, as accepted by parseDomainSpec (e.g. "line:6"). */
  readonly spec: string;
  /** Human description for summaries and the UI. */
  readonly description: string;
  readonly n: number;
  label(i: number): string;
  /** d(i, j); may be Infinity ("fully distinguishable"). */
  distance(i: number, j: number): number;
  /** Numeric value of answer i for numeric domains (line, count, sum, ...), for (a,b)-usefulness. */
  value?(i: number): number;
  readonly structure: DomainStructure;
}

export function domainLabels(domain: Domain): string[] {
  const out = new Array<string>(domain.n);
  for (let i = 0; i < domain.n; i++) out[i] = domain.label(i);
  return out;
}

/** Dense n x n distance matrix; refuses (MechError 'too-large') when it would not fit. */
export function distanceMatrix(domain: Domain): Matrix {
  const n = domain.n;
  assertDenseFits(n, n, `distance matrix of ${domain.spec}`);
  const m = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = domain.distance(i, j);
      m.data[i * n + j] = d;
      m.data[j * n + i] = d;
    }
  }
  return m;
}

/** Phi[x][x'] = exp(-eps d(x,x')) (SPEC §2), dense. */
export function phiMatrix(domain: Domain, eps: number): Matrix {
  const n = domain.n;
  assertDenseFits(n, n, `Phi matrix of ${domain.spec}`);
  const m = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    m.data[i * n + i] = 1;
    for (let j = i + 1; j < n; j++) {
      const v = Math.exp(-eps * domain.distance(i, j));
      m.data[i * n + j] = v;
      m.data[j * n + i] = v;
    }
  }
  return m;
}

/**
 * Largest finite distance (diameter over finite pairs). Uses the structure
 * when it determines the answer (ball sizes: the largest radius; products:
 * the factor's diameter summed power times or maxed), so implicit domains
 * such as hamming:30 or V^u do not need n^2 distance evaluations.
 */
export function diameter(domain: Domain): number {
  const s = domain.structure;
  if (s.ballSizes && s.ballSizes.radius.length > 0) {
    let r = 0;
    for (const x of s.ballSizes.radius) if (Number.isFinite(x) && x > r) r = x;
    return r;
  }
  if (s.product && s.product.power >= 1) {
    const f = diameter(s.product.factor);
    const finite = finitelyConnected(s.product.factor);
    if (finite) return s.product.combine === 'sum' ? f * s.product.power : f;
  }
  let m = 0;
  for (let i = 0; i < domain.n; i++)
    for (let j = i + 1; j < domain.n; j++) {
      const d = domain.distance(i, j);
      if (Number.isFinite(d) && d > m) m = d;
    }
  return m;
}

/** Every pair of points of a (small) domain is at finite distance. */
function finitelyConnected(domain: Domain): boolean {
  for (let i = 0; i < domain.n; i++)
    for (let j = i + 1; j < domain.n; j++) if (!Number.isFinite(domain.distance(i, j))) return false;
  return true;
}
