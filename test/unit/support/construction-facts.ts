import type { MechanismFacts } from '../../../src-shared/protocol/index';

type Figures<K extends MechanismFacts['kind']> = Omit<Extract<MechanismFacts, { kind: K }>, 'kind'>;

/**
 * Construction facts as the facts tests write them, every field set and without the `kind` each record adds: the
 * same figures read from an earlier version's flat info and said in words.
 */

/** A planar Laplace's facts: its cell integrals on a 5 x 5 grid at eps 0.7 a cell. */
export const PLANAR_LAPLACE_FIGURES: Figures<'planar-laplace'> = {
  metric: 'euclidean',
  density: 'planar Laplace',
  epsPerCell: 0.7,
  integrations: 25,
  tableBuildMs: 3,
  method: 'cell integrals',
};

/** The facts of tight constraints held implicitly (a conjugate-gradient solve that fell back), smallest weight minZ. */
export function implicitTightFigures(minZ: number): Figures<'tight-implicit'> {
  return {
    solver: 'CG',
    iterations: 12,
    relResidual: 1e-10,
    solveMs: 2,
    setupMs: 1,
    minZ,
    argMinZ: '(0, 0)',
    clampedZ: 0,
    maxRowSumError: 1e-9,
    fellBack: 'a dense solve',
  };
}

/** A mechanism result every project version keeps alike (no construction facts): an eps*d-private one on line:n. */
export function mechanismOnLine(kind: string, n: number, epsilon: number, utility: number) {
  return {
    type: 'mechanism',
    kind,
    domain: `line:${n}`,
    epsilon,
    exists: true,
    rows: n,
    cols: n,
    utility,
    effectiveEpsilon: epsilon,
    guaranteedEpsilon: epsilon,
    guarantee: 'eps*d-private',
  };
}
