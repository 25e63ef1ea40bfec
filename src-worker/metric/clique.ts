import { assertPositiveInt } from '../../src-shared/errors';
import type { Domain, DomainStructure, WeightedEdges } from './domain';
import { assertEdgeListFits } from './shortest-paths';

/**
 * Clique (discrete metric) on N labels: d = 1 if different, SPEC §1.
 * `structure.edges` (all N(N-1)/2 pairs) is built on first access only and
 * refused (MechError 'too-large') over the edge-list limit, so a large
 * clique costs nothing until a solver really needs its edge list.
 */
export function cliqueDomain(N: number, labels?: string[]): Domain {
  assertPositiveInt(N, 'clique size');
  let edges: WeightedEdges | undefined;
  const buildEdges = (): WeightedEdges => {
    const m = (N * (N - 1)) / 2;
    assertEdgeListFits(m, `edge list of the ${N}-label clique`);
    const from = new Int32Array(m);
    const to = new Int32Array(m);
    let k = 0;
    for (let i = 0; i < N; i++)
      for (let j = i + 1; j < N; j++) {
        from[k] = i;
        to[k] = j;
        k++;
      }
    return { from, to, weight: new Float64Array(m).fill(1) };
  };
  const structure: DomainStructure = {
    ballSizes:
      N > 1
        ? { radius: Float64Array.from([0, 1]), count: Float64Array.from([1, N - 1]) }
        : { radius: Float64Array.from([0]), count: Float64Array.from([1]) },
    singleOrbit: { c: N - 1, diameter: N > 1 ? 1 : 0, evenRing: false },
  };
  Object.defineProperty(structure, 'edges', { enumerable: true, get: () => (edges ??= buildEdges()) });
  return {
    kind: 'clique',
    spec: `clique:${N}`,
    description: `discrete metric on ${N} labels`,
    n: N,
    label: (i) => (labels ? labels[i]! : String(i)),
    distance: (i, j) => (i === j ? 0 : 1),
    structure,
  };
}
