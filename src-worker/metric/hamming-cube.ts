import { MechError, assertPositiveInt } from '../../src-shared/errors';
import { cliqueDomain } from './clique';
import { assertEdgeListFits } from './shortest-paths';
import type { Domain, WeightedEdges } from './domain';

/** Largest cube dimension: indices stay within 31-bit integers for bit operations. */
const MAX_HAMMING_BITS = 30;

/** Number of set bits of a non-negative 31-bit integer. */
export function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Binomial coefficients C(n, 0..n) as doubles (exact up to 2^53). */
export function binomialRow(n: number): Float64Array {
  const row = new Float64Array(n + 1);
  row[0] = 1;
  for (let k = 1; k <= n; k++) row[k] = (row[k - 1]! * (n - k + 1)) / k;
  return row;
}

/**
 * Hamming cube {0,1}^B (SPEC §1): 2^B bit strings, point index = the string
 * read as a binary number (first character = coordinate 0 = most
 * significant bit), d = number of differing bits.
 * Structure: product of B cliques on 2 points combined by sum (Phi is a
 * Kronecker power); graph metric of the single-bit-flip edges; translation
 * invariant (periodic lattice [2,...,2], i.e. the group Z_2^B); ball sizes
 * C(B, r) at radius r. Edges (B 2^(B-1) of them) are built on first use.
 */
export function hammingCubeDomain(B: number): Domain {
  assertPositiveInt(B, 'Hamming cube dimension (bits)');
  if (B > MAX_HAMMING_BITS) {
    throw new MechError(
      'too-large',
      `Hamming cube of ${B} bits has 2^${B} points; at most ${MAX_HAMMING_BITS} bits are supported`,
    );
  }
  const n = 2 ** B;
  let edges: WeightedEdges | undefined;
  const buildEdges = (): WeightedEdges => {
    const m = B * (n / 2);
    assertEdgeListFits(m, `edge list of the ${B}-bit Hamming cube`);
    const from = new Int32Array(m);
    const to = new Int32Array(m);
    let k = 0;
    for (let i = 0; i < n; i++)
      for (let b = 0; b < B; b++) {
        const j = i | (1 << b);
        if (j !== i) {
          from[k] = i;
          to[k] = j;
          k++;
        }
      }
    return { from, to, weight: new Float64Array(m).fill(1) };
  };
  const radius = new Float64Array(B + 1);
  for (let r = 0; r <= B; r++) radius[r] = r;
  return {
    kind: 'hamming',
    spec: `hamming:${B}`,
    description: `Hamming cube of ${B}-bit strings (${n} points), Hamming distance`,
    n,
    label: (i) => i.toString(2).padStart(B, '0'),
    distance: (i, j) => popcount(i ^ j),
    structure: {
      get edges() {
        return (edges ??= buildEdges());
      },
      lattice: {
        shape: new Array<number>(B).fill(2),
        periodic: true,
        offsetDistance: (d) => {
          let s = 0;
          for (const x of d) if (((x % 2) + 2) % 2 !== 0) s++;
          return s;
        },
      },
      product: { factor: cliqueDomain(2), power: B, combine: 'sum' },
      ballSizes: { radius, count: binomialRow(B) },
    },
  };
}
