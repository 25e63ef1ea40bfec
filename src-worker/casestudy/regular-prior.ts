/**
 * Case study 3, regular priors (SPEC §5): five individuals, four
 * values each (db:5,4, Hamming), the product prior (0.3, 0.27, 0.23, 0.2)
 * per individual. Over an eps range: is the prior regular (mu Phi = pi with
 * mu >= 0; Phi is a Kronecker power, so mu is too), the prior-specific
 * leakage bound log2(sum(mu) / max pi) where it is, and the all-priors bound
 * u log2(v e^eps / (v - 1 + e^eps)). Where the prior is not regular, the
 * per-individual optimal mechanism (LP) shows the formal value is exceeded.
 */
import { MechError } from '../../src-shared/errors';
import { parseDomainSpec } from '../metric/parse-domain-spec';
import { productMu } from '../bound/product-mu';
import { regularity } from '../bound/regularity';
import { databaseLeakageBound } from '../bound/database-leakage-bounds';
import { optimalMechanism } from '../lp/optimal/optimal-mechanism';
import { posteriorVulnerability } from '../measure/posterior-vulnerability';
import { validatePrior } from '../measure/prior';
import type { FindingsOf } from '../../src-shared/protocol/index';
import { numbersPerEps, studyParams, epsGrid, maxOf, type Study, type CaseStudyResult } from './study';
import type { Domain } from '../metric/domain';

export const regularPriorStudy: Study = async (params, ctx): Promise<CaseStudyResult> => {
  const { u, marginal: p, from, to, step, showcase } = studyParams('regular-prior', params);
  const v = p.length;
  const pm = validatePrior(p, v, 'per-individual prior');
  const db = parseDomainSpec(`db:${u},${v}:metric=hamming`);
  const factor = parseDomainSpec(`clique:${v}`);
  const maxPi = Math.pow(maxOf(pm), u);
  const grid = epsGrid(from, to, step);

  // perIndividual: optimal eps-LDP mechanism for the marginal (binary gain); the
  // product of u copies is eps*d_h-private on V^u with utility U^u.
  const perIndividualOptimum = async (eps: number): Promise<number> => {
    const m = await optimalMechanism(factor, eps, pm, 'bin', { signal: ctx.signal });
    return posteriorVulnerability(pm, m.channel).value;
  };

  const { rows, regularFlags, priorBound, formal, allBound } = boundsOverEps(db, pm, u, v, maxPi, grid);
  // regularity threshold: where the smallest per-individual mu crosses 0 (bisection on eps)
  const threshold = signChange(grid, regularFlags, (eps) => productMu(db, eps, pm).min);
  // showcase eps values: full-domain regularity (engine, Kronecker path) and the LP counterexample
  const cases = await showcaseCases(db, pm, u, v, maxPi, showcase, perIndividualOptimum);
  const findings: FindingsOf<'regular-prior'> = {
    kind: 'regular-prior',
    u,
    marginal: p,
    maxPi,
    from,
    to,
    threshold,
    regularAtStart: regularFlags[0] ?? false,
    cases: cases.map((c) => ({
      eps: c.eps,
      regular: c.regular,
      minMu: c.minMu,
      minMuLabel: c.minMuLabel,
      formal: c.formal,
      achievedLeak: c.achievedLeak,
      all: c.all,
    })),
  };
  return {
    type: 'case-study',
    study: 'regular-prior',
    title: `Regular priors: ${u} people with ${v} possible values each`,
    findings,
    numbers: {
      threshold,
      ...numbersPerEps(cases, '_eps', {
        regular: (c) => c.regular,
        formal: (c) => c.formal,
        achieved: (c) => c.achievedLeak,
        allPriors: (c) => c.all,
      }),
    },
    tables: [
      {
        id: 'regularity-vs-eps',
        title: 'Regularity and leakage bounds (bits) against eps',
        header: [
          'epsilon',
          'regular',
          'min mu',
          'sum(mu) (utility bound)',
          'prior-specific leakage bound',
          'formal value where NOT a bound',
          'all-priors bound',
        ],
        rows,
      },
      {
        id: 'showcase',
        title: 'Showcase eps values',
        header: [
          'epsilon',
          'regular',
          'min mu',
          'at',
          'log2(sum mu / max pi)',
          'leakage of best product mechanism',
          'all-priors bound',
        ],
        rows: cases.map((c) => [c.eps, c.regular, c.minMu, c.minMuLabel, c.formal, c.achievedLeak, c.all]),
      },
    ],
    charts: [
      {
        id: 'bounds-vs-eps',
        title: `Leakage bounds for the product prior (${p.join(', ')})`,
        type: 'line',
        xLabel: 'ε',
        yLabel: 'bits',
        yMin: 0,
        series: [
          { label: 'prior-specific bound (regular prior)', x: grid, y: priorBound, width: 3 },
          {
            label: 'formula where the prior is NOT regular (not a bound)',
            x: grid,
            y: formal.map((x, k) => (regularFlags[k] ? null : x)),
            dashed: true,
          },
          { label: 'all-priors bound', x: grid, y: allBound },
        ],
      },
    ],
  };
};

/**
 * Per eps of the grid: regularity of the product prior, the prior-specific formula, the all-priors bound, and the
 * table's rows.
 */
function boundsOverEps(
  db: Domain,
  pm: Float64Array,
  u: number,
  v: number,
  maxPi: number,
  grid: readonly number[],
): {
  rows: (number | boolean | string | null)[][];
  regularFlags: boolean[];
  priorBound: (number | null)[];
  formal: number[];
  allBound: number[];
} {
  const rows: (number | boolean | string | null)[][] = [];
  const regularFlags: boolean[] = [];
  const priorBound: (number | null)[] = [];
  const formal: number[] = [];
  const allBound: number[] = [];
  for (const eps of grid) {
    const mu = productMu(db, eps, pm);
    if (!mu.factors) throw new MechError('not-applicable', `Phi of clique:${v} is singular at eps = ${eps}`);
    let abs = 1;
    for (const fac of mu.factors) abs *= fac.reduce((s, x) => s + Math.abs(x), 0);
    const regular = mu.min >= -1e-9 * abs;
    const lb = Math.log2(mu.sum / maxPi);
    regularFlags.push(regular);
    formal.push(lb);
    priorBound.push(regular ? lb : null);
    allBound.push(databaseLeakageBound(u, v, eps));
    rows.push([
      eps,
      regular,
      mu.min,
      regular ? mu.sum : null,
      regular ? lb : null,
      regular ? null : lb,
      allBound[allBound.length - 1]!,
    ]);
  }
  return { rows, regularFlags, priorBound, formal, allBound };
}

/**
 * Where `f` changes sign between the first pair of neighbouring grid points
 * whose flags differ, by 60 bisection steps (null when the flags never change).
 */
function signChange(grid: readonly number[], flags: readonly boolean[], f: (x: number) => number): number | null {
  const k = grid.findIndex((_, i) => i > 0 && flags[i] !== flags[i - 1]);
  if (k <= 0) return null;
  let lo = grid[k - 1]!;
  let hi = grid[k]!;
  const sLo = Math.sign(f(lo));
  for (let it = 0; it < 60; it++) {
    const mid = (lo + hi) / 2;
    if (Math.sign(f(mid)) === sLo) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

function productPrior(p: Float64Array, u: number): Float64Array {
  let cur = Float64Array.from([1]);
  for (let k = 0; k < u; k++) {
    const next = new Float64Array(cur.length * p.length);
    for (let i = 0; i < cur.length; i++) for (let j = 0; j < p.length; j++) next[i * p.length + j] = cur[i]! * p[j]!;
    cur = next;
  }
  return cur;
}

/**
 * A showcase eps: regularity on the whole domain, the prior-specific formula, and what the best product mechanism
 * leaks.
 */
interface ShowcaseCase {
  eps: number;
  regular: boolean;
  minMu: number;
  minMuLabel: string;
  formal: number;
  achieved: number;
  achievedLeak: number;
  all: number;
}

async function showcaseCases(
  db: Domain,
  pm: Float64Array,
  u: number,
  v: number,
  maxPi: number,
  showcase: readonly number[],
  perIndividualOptimum: (eps: number) => Promise<number>,
): Promise<ShowcaseCase[]> {
  const cases: ShowcaseCase[] = [];
  for (const eps of showcase) {
    const r = regularity(db, eps, productPrior(pm, u));
    const mu = productMu(db, eps, pm);
    const U = await perIndividualOptimum(eps);
    const achieved = Math.pow(U, u);
    cases.push({
      eps,
      regular: r.status === 'regular',
      minMu: r.minMu,
      minMuLabel: r.minMuLabel,
      formal: Math.log2(mu.sum / maxPi),
      achieved,
      achievedLeak: Math.log2(achieved / maxPi),
      all: databaseLeakageBound(u, v, eps),
    });
  }
  return cases;
}
