/**
 * Acceptance of the engine core in one place: every SPEC §7 value
 * that needs no LP, computed through the public engine functions (domains
 * parsed from their CLI specs, mechanisms built by kind name), each with an
 * independent recomputation inside the test where that is cheap; the
 * cross-checks of the "Done when" list; and one typed MechError per
 * kind of bad input. Detailed tests live next to each area
 * (test/unit/worker/metric|mechanism|measure|bound|check).
 */
import { factsOf } from '../../../src-worker/mechanism/facts';
import { describe, expect, it } from 'vitest';
import { leakageBound, utilityBound } from '../../../src-worker/bound/optimality-bounds';
import { cornerPriors } from '../../../src-worker/bound/corner-priors';
import {
  databaseLeakageBound,
  databaseLeakageBoundWithOutputs,
  individualLeakageBound,
} from '../../../src-worker/bound/database-leakage-bounds';
import { regularity } from '../../../src-worker/bound/regularity';
import { singleOrbitUtilityBoundFor } from '../../../src-worker/bound/single-orbit-utility-bound';
import { thresholdSearch } from '../../../src-worker/bound/threshold-search';
import { tightExists } from '../../../src-worker/bound/tight-exists';
import { checkPrivacy } from '../../../src-worker/check/privacy-check';
import { mechError } from '../support/mech-error';
import { Matrix } from '../../../src-worker/linalg/matrix';
import { ballSizeSymmetric } from '../../../src-worker/mechanism/ball-size-symmetric';
import {
  DenseChannel,
  toDense,
  validateChannel,
  type Mechanism,
  type RowSource,
} from '../../../src-worker/mechanism/channel';
import {
  CLOSED_FORM_KINDS,
  closedFormMechanism,
  type ClosedFormKind,
} from '../../../src-worker/mechanism/closed-form-by-kind';
import { cascade } from '../../../src-worker/mechanism/combinators/cascade';
import { probabilisticChoice } from '../../../src-worker/mechanism/combinators/choice';
import { postProcess } from '../../../src-worker/mechanism/combinators/post-process';
import { restrictSecrets } from '../../../src-worker/mechanism/combinators/restrict';
import { tightConstraints } from '../../../src-worker/mechanism/tight-constraints';
import { solveTightWeightsDense } from '../../../src-worker/mechanism/tight-weights-dense';
import { additiveCapacity } from '../../../src-worker/measure/additive-capacity';
import { channelMeasures } from '../../../src-worker/measure/channel-measures';
import { matrixLoss } from '../../../src-worker/measure/matrix-loss';
import { multiplicativeCapacity } from '../../../src-worker/measure/multiplicative-capacity';
import { posteriorVulnerability } from '../../../src-worker/measure/posterior-vulnerability';
import { uniformPrior, validatePrior } from '../../../src-worker/measure/prior';
import { binaryUtility } from '../../../src-worker/measure/utility';
import { parseCustomMetricCsv } from '../../../src-worker/metric/custom-metric';
import { distanceMatrix, phiMatrix, type Domain } from '../../../src-worker/metric/domain';
import { graphDomain } from '../../../src-worker/metric/graph';
import { parseDomainSpec } from '../../../src-worker/metric/parse-domain-spec';
import { expectSameAsEnumeration } from '../support/metric-helpers';

const LN2 = Math.LN2; // alpha = e^-eps = 1/2

/** All rows of a small channel. */
function rows(src: RowSource): number[][] {
  const buf = new Float64Array(src.cols);
  return Array.from({ length: src.rows }, (_, i) => Array.from(src.row(i, buf)));
}

/** Independent binary-gain utility: sum_y max_x pi_x C[x][y] from plain arrays. */
function utilityOf(c: number[][], pi = c.map(() => 1 / c.length)): number {
  let s = 0;
  for (let y = 0; y < c[0]!.length; y++) s += Math.max(...c.map((r, x) => pi[x]! * r[y]!));
  return s;
}

function expectRowsEqual(got: number[][], want: number[][], tol: number): void {
  expect(got.length).toBe(want.length);
  got.forEach((r, i) =>
    r.forEach((v, j) => expect(Math.abs(v - want[i]![j]!), `entry (${i}, ${j})`).toBeLessThanOrEqual(tol)),
  );
}

describe('SPEC §7 reference values (no LP)', () => {
  it('TG on 0..5, alpha = 1/2: first row 32,8,4,2,1,1 over 48; uniform utility 4/9, which is the regular-prior bound', () => {
    const d = parseDomainSpec('line:6');
    const m = closedFormMechanism('tg', d, LN2);
    // Independent table in 48ths: column 0 is 32 * 2^-y, column 5 is 32 * 2^-(5-y), interior 16 * 2^-|y-z|.
    const want = Array.from({ length: 6 }, (_, y) =>
      Array.from(
        { length: 6 },
        (_, z) => (z === 0 ? 32 * 2 ** -y : z === 5 ? 32 * 2 ** -(5 - y) : 16 * 2 ** -Math.abs(y - z)) / 48,
      ),
    );
    expect(want[0]!.map((v) => v * 48)).toEqual([32, 8, 4, 2, 1, 1]);
    const c = rows(m.channel);
    expectRowsEqual(c, want, 1e-15);
    expect(utilityOf(want)).toBeCloseTo(4 / 9, 15);
    const pi = uniformPrior(6);
    expect(binaryUtility(pi, m.channel).value).toBeCloseTo(4 / 9, 15);
    expect(channelMeasures(pi, m.channel).posteriorVulnerability).toBeCloseTo(4 / 9, 15);
    expect(utilityBound(d, LN2, pi)).toBeCloseTo(4 / 9, 13);
  });

  it('ring of 6, doubled antipode: a = 4/11, rows 4,2,1,1,1,2 over 11 (each a rotation), uniform utility 4/11', () => {
    const d = parseDomainSpec('ring:6');
    const m = closedFormMechanism('symmetric', d, LN2);
    const base = [4, 2, 1, 1, 1, 2];
    const want = Array.from({ length: 6 }, (_, x) => Array.from({ length: 6 }, (_, y) => base[(y - x + 6) % 6]! / 11));
    expectRowsEqual(rows(m.channel), want, 1e-15);
    expect(factsOf(m, 'symmetric').a).toBeCloseTo(4 / 11, 15);
    // a from the SPEC §2 formula with E = 2, m = 3, c = 2
    expect((8 * (1 - 2)) / (8 * (1 - 2) + 2 * (1 - 8))).toBeCloseTo(4 / 11, 15);
    expect(utilityOf(want)).toBeCloseTo(4 / 11, 15);
    expect(binaryUtility(uniformPrior(6), m.channel).value).toBeCloseTo(4 / 11, 15);
  });

  it('randomised response on six categories at ln 2: 2/7 on the diagonal, 1/7 elsewhere, utility 2/7 = sum(mu) = single-orbit bound', () => {
    const d = parseDomainSpec('clique:6');
    const m = closedFormMechanism('rr', d, LN2);
    const want = Array.from({ length: 6 }, (_, i) => Array.from({ length: 6 }, (_, j) => (i === j ? 2 / 7 : 1 / 7)));
    expectRowsEqual(rows(m.channel), want, 1e-15);
    const pi = uniformPrior(6);
    expect(utilityOf(want)).toBeCloseTo(2 / 7, 15);
    expect(binaryUtility(pi, m.channel).value).toBeCloseTo(2 / 7, 15);
    expect(utilityBound(d, LN2, pi)).toBeCloseTo(2 / 7, 13);
    expect(singleOrbitUtilityBoundFor(d, LN2)).toBeCloseTo(2 / 7, 15);
    // leakage log2((2/7) / (1/6)) = log2(12/7) meets the leakage bound
    expect(channelMeasures(pi, m.channel).leakage).toBeCloseTo(Math.log2(12 / 7), 14);
    expect(leakageBound(d, LN2, pi)).toBeCloseTo(Math.log2(12 / 7), 12);
  });

  it('database leakage bound u log2(v e^eps / (v-1+e^eps)) at u=5, v=4, eps=0.5 is 2.5226, reached by the tight mechanism on db:5,4', () => {
    const u = 5;
    const v = 4;
    const eps = 0.5;
    const literal = u * Math.log2((v * Math.exp(eps)) / (v - 1 + Math.exp(eps)));
    expect(literal).toBeCloseTo(2.5226, 4);
    expect(databaseLeakageBound(u, v, eps)).toBeCloseTo(literal, 13);
    expect(databaseLeakageBound(u, v, eps)).toBeCloseTo(2.5226, 4);
    // r = v^u outputs gives the same bound; one individual at most log2(e^eps)
    expect(databaseLeakageBoundWithOutputs(u, v, eps, v ** u)).toBeCloseTo(literal, 12);
    expect(individualLeakageBound(eps)).toBeCloseTo(Math.log2(Math.exp(eps)), 15);
    // the regular-prior leakage bound on V^u (Kronecker solve, no 1024 x 1024 Phi) and the tight mechanism attain it
    const d = parseDomainSpec('db:5,4');
    const pi = uniformPrior(d.n);
    expect(regularity(d, eps, pi).method).toBe('kronecker');
    expect(leakageBound(d, eps, pi)).toBeCloseTo(literal, 11);
    const t = tightConstraints(d, eps);
    expect(t.exists).toBe(true);
    if (t.exists) expect(channelMeasures(pi, t.mechanism.channel).leakage).toBeCloseTo(literal, 11);
  });

  it('capacities of TG (line N = 2..6) and RR (n = 2..5) at ln 2 equal the SPEC §6 closed forms and §7 values', () => {
    const a = 0.5;
    const line = [4 / 3, 5 / 3, 2, 7 / 3, 8 / 3];
    for (let N = 2; N <= 6; N++) {
      const m = closedFormMechanism('tg', parseDomainSpec(`line:${N}`), LN2);
      const cap = multiplicativeCapacity(m.channel);
      expect(cap).toBeCloseTo(line[N - 2]!, 14);
      expect(cap).toBeCloseTo((N * (1 - a) + 2 * a) / (1 + a), 14);
      // independent: sum of column maxima of the rows
      const c = rows(m.channel);
      expect(cap).toBeCloseTo(
        c[0]!.reduce((s, _, y) => s + Math.max(...c.map((r) => r[y]!)), 0),
        15,
      );
      expect(channelMeasures(uniformPrior(N), m.channel).multiplicativeCapacity).toBeCloseTo(cap, 15);
    }
    const clique = [4 / 3, 3 / 2, 8 / 5, 5 / 3];
    for (let n = 2; n <= 5; n++) {
      const m = closedFormMechanism('rr', parseDomainSpec(`clique:${n}`), LN2);
      const cap = multiplicativeCapacity(m.channel);
      expect(cap).toBeCloseTo(clique[n - 2]!, 14);
      expect(cap).toBeCloseTo(n / (1 + (n - 1) * a), 14);
      // additive capacity of RR itself: 1 - n * (1 / (e^eps + n - 1))
      expect(additiveCapacity(m.channel)).toBeCloseTo(1 - n / (2 + n - 1), 14);
    }
  });
});

describe('cross-checks of the engine core', () => {
  it('tight-constraints on the discrete metric equals randomised response', () => {
    for (const [n, eps] of [
      [2, 0.2],
      [4, LN2],
      [7, 1.6],
    ] as const) {
      const d = parseDomainSpec(`clique:${n}`);
      const t = tightConstraints(d, eps);
      expect(t.exists).toBe(true);
      if (t.exists) expectRowsEqual(rows(t.mechanism.channel), rows(closedFormMechanism('rr', d, eps).channel), 1e-14);
    }
  });

  /**
   * Passes the check at its guaranteed eps. 'exact': the effective eps equals
   * it (some constraint holds with equality) and 0.99 eps fails; 'tight':
   * 0.99 eps fails (planar Laplace approaches eps in the tails); 'loose':
   * the effective eps is below the guarantee; 'passes': only the guarantee
   * is asserted (post-processing may or may not keep a constraint tight).
   */
  function expectPrivate(what: string, m: Mechanism, d: Domain, kind: 'exact' | 'tight' | 'loose' | 'passes'): void {
    const eps = m.guaranteedEpsilon;
    const r = checkPrivacy(m.channel, d, eps, { topK: 1 });
    expect(r.passes, `${what} passes at its eps ${eps}`).toBe(true);
    if (kind === 'passes') return;
    if (kind === 'loose') {
      expect(r.effectiveEpsilon, `${what} effective eps`).toBeLessThan(eps);
      return;
    }
    if (kind === 'exact') expect(Math.abs(r.effectiveEpsilon - eps), `${what} effective eps`).toBeLessThan(1e-9 * eps);
    expect(r.effectiveEpsilon, `${what} effective eps`).toBeGreaterThan(0.99 * eps);
    expect(checkPrivacy(m.channel, d, 0.99 * eps, { topK: 1 }).passes, `${what} fails at 0.99 eps`).toBe(false);
  }

  it('every closed-form kind passes the privacy check at its guaranteed eps and, where tight, fails at 0.99 eps', () => {
    const cases: [ClosedFormKind, string, number, 'exact' | 'tight' | 'loose'][] = [
      ['tg', 'line:7', 0.6, 'exact'],
      ['rr', 'clique:5', 0.9, 'exact'],
      ['rr', 'grid:2x3:step=0.5:metric=manhattan', 1, 'exact'], // guaranteed eps / dmin = 2
      ['exponential', 'line:6', 1.2, 'loose'],
      ['exponential', 'grid:3x3', 0.8, 'loose'],
      ['laplace', 'line:6', 0.5, 'loose'], // guaranteed 2 eps; effective in (eps, 2 eps)
      ['planar-laplace', 'grid:4x5', 0.9, 'tight'],
      ['planar-laplace', 'grid:4x4:metric=manhattan', 0.7, 'exact'],
      ['planar-laplace', 'grid:3x4:step=0.5:metric=chebyshev', 1.1, 'tight'],
      ['symmetric', 'ring:7', 0.4, 'exact'],
      ['symmetric', 'ring:8', 0.6, 'exact'],
      ['symmetric', 'clique:4', 0.3, 'exact'],
      ['symmetric', 'line:6', LN2, 'exact'], // line closed into a ring
    ];
    const kinds = new Set(cases.map((c) => c[0]));
    expect([...kinds].sort()).toEqual([...CLOSED_FORM_KINDS].sort());
    for (const [kind, spec, eps, tightness] of cases) {
      const d = parseDomainSpec(spec);
      expectPrivate(`${kind} on ${spec}`, closedFormMechanism(kind, d, eps), d, tightness);
    }
  });

  it('tight-constraints, ball-size closed form and the combinators pass at their eps (tight where the construction is)', () => {
    const grid = parseDomainSpec('grid:3x3:metric=manhattan');
    const t = tightConstraints(grid, 0.5);
    expect(t.exists).toBe(true);
    if (t.exists) expectPrivate('tight on a Manhattan grid', t.mechanism, grid, 'exact');
    const cube = parseDomainSpec('hamming:3');
    expectPrivate('ball-size closed form on hamming:3', ballSizeSymmetric(cube, 0.7), cube, 'exact');

    const line = parseDomainSpec('line:5');
    const tg = closedFormMechanism('tg', line, LN2);
    const rr = closedFormMechanism('rr', line, 0.4);
    const ex = closedFormMechanism('exponential', line, 0.5);
    // each output column keeps its own mechanism's ratios: the choice is exact when its weakest part (largest eps) is
    expectPrivate('choice of tg and rr', probabilisticChoice(0.3, tg, rr), line, 'exact');
    expectPrivate('choice of exponential and tg', probabilisticChoice(0.6, ex, tg), line, 'exact');
    expectPrivate('choice of exponential alone', probabilisticChoice(1, ex, tg), line, 'loose');
    const sub = restrictSecrets(tg, [1, 2, 3]);
    const subDomain = parseDomainSpec('line:3'); // induced metric of {1,2,3}
    expectPrivate('restriction of tg', sub, subDomain, 'exact');
    const merge = Matrix.fromRows([
      [1, 0],
      [1, 0],
      [0, 1],
      [0, 1],
      [0, 1],
    ]);
    // merging {0,1} and {2,3,4}: rows 1 and 2 still differ by exactly 2 on the second block, so it stays exact
    expectPrivate('post-processing of tg', postProcess(tg, merge), line, 'exact');
    expectPrivate('cascade tg then rr', cascade(tg, rr), line, 'loose');
  });

  it('closed-form query-induced metrics (parsed from their specs) equal the enumeration of V^u', () => {
    // each parsed domain against the enumeration of the query its spec names (same parameters, in order)
    for (const spec of [
      'count:3',
      'sum:2,3',
      'kcount:2,2',
      'avg:3,2',
      'percentile:3,2,50',
      'max:2,3',
      'min:2,3',
      'argmax:3,3',
    ]) {
      const closed = parseDomainSpec(spec);
      expect(closed.spec).toBe(spec);
      expectSameAsEnumeration(closed);
    }
    // sum of 2 values in 0..3: d = ceil(|y - y'| / 3)
    expect(parseDomainSpec('sum:2,3').distance(0, 6)).toBe(2);
  });

  it('planar Laplace: the own-cell probability agrees with a fine composite-Simpson polar integral (detailed Cartesian cross-check in mechanism/planarLaplace.test.ts)', () => {
    // P(own cell) = (1/2pi) int_0^2pi (1 - (1 + u) e^-u) dtheta, u = e R(theta), R = (1/2) / max(|cos|, |sin|):
    // 8 equal octants, Simpson with 4000 intervals on [0, pi/4] (the integrand is smooth there).
    const ownCell = (e: number): number => {
      const N = 4000;
      const h = Math.PI / 4 / N;
      let s = 0;
      for (let k = 0; k <= N; k++) {
        const u = (e * 0.5) / Math.cos(k * h);
        const f = 1 - (1 + u) * Math.exp(-u);
        s += (k === 0 || k === N ? 1 : k % 2 === 1 ? 4 : 2) * f;
      }
      return (8 * (s * h)) / 3 / (2 * Math.PI);
    };
    for (const eps of [0.5, 2]) {
      const d = parseDomainSpec('grid:3x3');
      const row = rows(closedFormMechanism('planar-laplace', d, eps).channel)[4]!;
      expect(Math.abs(row[4]! - ownCell(eps)) / ownCell(eps)).toBeLessThan(1e-9);
      expect(Math.abs(row.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-12);
    }
  });

  it('Kronecker structure: on db:8,4 (65536 databases) the dense Phi is refused, yet regularity, bounds and tight existence are decided from the 4 x 4 factor', () => {
    const d = parseDomainSpec('db:8,4');
    mechError(() => phiMatrix(d, 1), 'too-large', /Phi matrix of db:8,4 would be a dense 65536 x 65536 matrix/);
    const pi = uniformPrior(d.n);
    const r = regularity(d, 1, pi);
    expect(r.method).toBe('kronecker');
    expect(r.status).toBe('regular');
    expect(leakageBound(d, 1, pi, r)).toBeCloseTo(databaseLeakageBound(8, 4, 1), 11);
    expect(tightExists(d, 1).exists).toBe(true);
    const man = parseDomainSpec('db:8,4:metric=manhattan');
    const e = tightExists(man, 1);
    expect(e.method).toBe('kronecker');
    expect(e.exists).toBe(true);
  });

  it('regularity is "undecided" when Phi is singular: K_{3,3} at eps = ln 2 (det of the 2 x 2 block (1+2a^2)^2 - 9a^2 = 0 at a = 1/2)', () => {
    const labels = ['a1', 'a2', 'a3', 'b1', 'b2', 'b3'];
    const edges: [number, number][] = [];
    for (let i = 0; i < 3; i++) for (let j = 3; j < 6; j++) edges.push([i, j]);
    const k33 = graphDomain(labels, edges);
    const pi = uniformPrior(6);
    const r = regularity(k33, LN2, pi);
    expect(r.status).toBe('undecided');
    expect(r.reason).toMatch(/singular/);
    mechError(
      () => utilityBound(k33, LN2, pi),
      'not-applicable',
      /utility bound sum\(mu\) does not apply: Phi = exp\(-0\.69\d* d\) is singular/,
    );
    mechError(() => leakageBound(k33, LN2, pi), 'not-applicable', /singular/);
    expect(tightExists(k33, LN2).exists).toBe('undecided');
    mechError(() => tightConstraints(k33, LN2), 'not-applicable', /singular/);
    // away from the singular eps it is decided
    expect(regularity(k33, 1, pi).status).not.toBe('undecided');
    expect(typeof tightExists(k33, 1).exists).toBe('boolean');
  });
});

describe('bad input raises one typed MechError that names what is wrong', () => {
  it('a non-metric CSV: the first violating triple by labels', () => {
    const csv = ',a,b,c\na,0,1,5\nb,1,0,1\nc,5,1,0\n';
    mechError(
      () => parseCustomMetricCsv(csv, 'bad.csv'),
      'not-a-metric',
      /bad\.csv: triangle inequality fails for \('a', 'b', 'c'\): d\('a','c'\) = 5 > .* = 2/,
    );
    mechError(() => parseCustomMetricCsv(',a,b\na,0,1\nb,2,0\n', 'asym.csv'), 'not-a-metric', /not symmetric/);
    mechError(() => parseCustomMetricCsv(',a,b\na,0,NaN\nb,NaN,0\n', 'nan.csv'), 'not-a-metric', /is NaN/);
  });

  it('eps <= 0 or NaN, for every kind of engine entry point', () => {
    const line = parseDomainSpec('line:4');
    const pi = uniformPrior(4);
    const tg = closedFormMechanism('tg', line, 1);
    for (const eps of [0, -1, NaN, Infinity]) {
      for (const kind of CLOSED_FORM_KINDS) {
        const d =
          kind === 'planar-laplace'
            ? parseDomainSpec('grid:2x2')
            : kind === 'symmetric'
              ? parseDomainSpec('ring:5')
              : line;
        mechError(() => closedFormMechanism(kind, d, eps), 'invalid-input', /epsilon must be a finite number > 0/);
      }
      mechError(() => tightConstraints(line, eps), 'invalid-input', /epsilon must be a finite number > 0/);
      mechError(() => checkPrivacy(tg.channel, line, eps), 'invalid-input', /epsilon must be a finite number > 0/);
      mechError(() => regularity(line, eps, pi), 'invalid-input', /epsilon must be a finite number > 0/);
      mechError(() => utilityBound(line, eps, pi), 'invalid-input', /epsilon must be a finite number > 0/);
      mechError(() => databaseLeakageBound(5, 4, eps), 'invalid-input', /epsilon must be a finite number > 0/);
      mechError(() => tightExists(line, eps), 'invalid-input', /epsilon must be a finite number > 0/);
    }
    mechError(() => thresholdSearch(line, { step: 0 }), 'invalid-input', /threshold step must be a finite number > 0/);
  });

  it('NaN in a prior, a channel or a loss table', () => {
    const d = parseDomainSpec('clique:3');
    const rr = closedFormMechanism('rr', d, 1);
    mechError(
      () => posteriorVulnerability([0.5, NaN, 0.5], rr.channel),
      'invalid-input',
      /prior: entry 1 is NaN, not a finite number/,
    );
    mechError(() => utilityBound(d, 1, [NaN, 0.5, 0.5]), 'invalid-input', /entry 0 is NaN/);
    const bad = new DenseChannel(
      Matrix.fromRows([
        [0.5, NaN],
        [0.5, 0.5],
      ]),
      ['x', 'y'],
      ['p', 'q'],
    );
    mechError(() => validateChannel(bad), 'invalid-input', /channel: entry \(x, q\) is NaN, not a number/);
    mechError(
      () =>
        matrixLoss(
          Matrix.fromRows([
            [0, NaN],
            [1, 0],
          ]),
        ),
      'invalid-input',
      /loss matrix entry \(guess 0, secret 1\) is NaN, not a finite number/,
    );
  });

  it('a prior not summing to 1 within 1e-9 (1 + 2e-9 refused, 1 + 5e-10 accepted)', () => {
    const d = parseDomainSpec('line:3');
    const tg = closedFormMechanism('tg', d, 1);
    const off = [0.5, 0.25, 0.25 + 2e-9];
    mechError(() => validatePrior(off, 3), 'invalid-input', /prior sums to 1\.000000002\d*, not 1 \(tolerance 1e-9\)/);
    mechError(() => binaryUtility(off, tg.channel), 'invalid-input', /sums to .*not 1/);
    mechError(() => regularity(d, 1, off), 'invalid-input', /sums to .*not 1/);
    mechError(() => validatePrior([0.4, 0.4, 0.1], 3), 'invalid-input', /prior sums to 0\.9\d*, not 1/);
    expect(() => validatePrior([0.5, 0.25, 0.25 + 5e-10], 3)).not.toThrow();
    expect(binaryUtility([0.5, 0.25, 0.25 + 5e-10], tg.channel).value).toBeGreaterThan(0);
  });

  it('negative probabilities in a prior, a channel or a post-processing matrix', () => {
    const d = parseDomainSpec('line:3');
    const tg = closedFormMechanism('tg', d, 1);
    mechError(
      () => posteriorVulnerability([1.1, -0.1, 0], tg.channel),
      'invalid-input',
      /prior: entry 1 is negative \(-0\.1\)/,
    );
    const neg = new DenseChannel(
      Matrix.fromRows([
        [1.2, -0.2],
        [0.5, 0.5],
      ]),
      ['x', 'y'],
      ['p', 'q'],
    );
    mechError(
      () => validateChannel(neg, 'uploaded channel'),
      'invalid-input',
      /uploaded channel: entry \(x, q\) is negative \(-0\.2\)/,
    );
    const offSum = new DenseChannel(
      Matrix.fromRows([
        [0.6, 0.5],
        [0.5, 0.5],
      ]),
      ['x', 'y'],
      ['p', 'q'],
    );
    mechError(() => validateChannel(offSum), 'invalid-input', /channel: row x sums to 1\.1, not 1/);
    const p = Matrix.fromRows([
      [1.5, -0.5],
      [1, 0],
      [0, 1],
    ]);
    mechError(
      () => postProcess(tg, p),
      'invalid-input',
      /post-processing matrix: entry \(0, 1\) is negative \(-0\.5\)/,
    );
  });

  it('a domain whose dense matrices would exceed the memory limit: too-large naming the object and its size, before allocating', () => {
    const big = parseDomainSpec('grid:400x400'); // Euclidean: no graph, no Kronecker form
    const size = /would be a dense 160000 x 160000 matrix \(190\.7 GiB\), over the limit/;
    mechError(() => phiMatrix(big, 1), 'too-large', size);
    mechError(() => distanceMatrix(big), 'too-large', size);
    mechError(() => cornerPriors(big, 1), 'too-large', size);
    mechError(() => regularity(big, 1, uniformPrior(big.n)), 'too-large', size);
    mechError(() => solveTightWeightsDense(big, 1), 'too-large', size);
    mechError(
      () => toDense(closedFormMechanism('planar-laplace', parseDomainSpec('grid:400x400:metric=manhattan'), 1).channel),
      'too-large',
      size,
    );
    mechError(
      () => checkPrivacy(closedFormMechanism('exponential', big, 1).channel, big, 1),
      'too-large',
      /checking all .* pairs of grid:400x400/,
    );
    mechError(() => parseDomainSpec('db:30,4'), 'too-large', /4\^30 = 1\.153e\+18 databases/);
  });
});
