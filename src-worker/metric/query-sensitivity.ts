import { MechError, invalid } from '../../src-shared/errors';
import { REL_TOL } from '../../src-shared/numeric/tolerance';
import type { DatabaseDomain } from './database';
import type { DatabaseQuery } from './database-queries';
import type { Domain } from './domain';
import { weightedAllPairs } from './shortest-paths';

/** Largest X enumerated pair by pair (|X|^2 distance evaluations). */
const MAX_SENSITIVITY_POINTS = 4096;

export interface QuerySensitivity {
  /** Delta = max dY(f(x), f(x')) / dX(x, x') over pairs with 0 < dX < Infinity (SPEC §4). */
  delta: number;
  /** A pair of secrets attaining Delta (absent when f is constant). */
  worst?: { x: number; xPrime: number; dX: number; dY: number };
  /** Every pair of answers is joined by a tight chain of Delta-expansive steps. */
  uniform: boolean;
  /** Number of unordered answer pairs {y, y'} that are a Delta-expansive step. */
  expansiveSteps: number;
  /** When not uniform: the first answer pair (lexicographic) without such a chain, and why. */
  counterexample?: { y: number; yPrime: number; labels: [string, string]; reason: string };
}

/** f as an index map X -> Y for a database query (X = the database domain). */
export function databaseQueryMap(db: DatabaseDomain, query: DatabaseQuery): (x: number) => number {
  const buf = new Int32Array(db.database.u);
  return (x) => query.evaluate(db.decode(x, buf));
}

/**
 * Sensitivity of f : (X, dX) -> (Y, dY) by enumerating all pairs of X, and
 * uniform Delta-sensitivity (SPEC §4): every pair of answers y, y' of Y
 * (all of Y, so answers f never produces break uniformity) is joined by a
 * chain y = y0, ..., yk = y' whose step distances add up to dY(y, y') and
 * whose steps are Delta-expansive: some x in f^-1(y_i), x' in f^-1(y_i+1)
 * with dY(y_i, y_i+1) = Delta dX(x, x') (relative tolerance REL_TOL).
 * Decided exactly: chains never beat dY (triangle inequality), so a tight
 * chain exists iff the shortest path over expansive steps, weighted by dY,
 * equals dY(y, y'). Answer pairs at infinite distance are exempt.
 * Pairs with dX = 0 but different answers make Delta infinite, as do finite
 * dX with infinite dY; Delta = Infinity is never uniform.
 */
export function querySensitivity(
  X: Domain,
  Y: Domain,
  f: (x: number) => number,
  maxPoints = MAX_SENSITIVITY_POINTS,
): QuerySensitivity {
  const n = X.n;
  const m = Y.n;
  if (n > maxPoints)
    throw new MechError(
      'too-large',
      `query sensitivity enumerates all pairs of ${X.spec}: ${n} points, at most ${maxPoints}`,
      { size: n, limit: maxPoints },
    );
  const fx = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const y = f(i);
    if (!Number.isInteger(y) || y < 0 || y >= m)
      invalid(`query maps ${X.label(i)} to answer index ${String(y)}, expected 0..${m - 1} of ${Y.spec}`);
    fx[i] = y;
  }
  let delta = 0;
  let worst: QuerySensitivity['worst'];
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      if (fx[i] === fx[j]) continue;
      const dY = Y.distance(fx[i]!, fx[j]!);
      const dX = X.distance(i, j);
      if (dX === Infinity || dY === 0) continue;
      const r = dX === 0 ? Infinity : dY / dX;
      if (r > delta) {
        delta = r;
        worst = { x: i, xPrime: j, dX, dY };
      }
    }
  const result = (
    uniform: boolean,
    expansiveSteps: number,
    counterexample?: QuerySensitivity['counterexample'],
  ): QuerySensitivity => ({
    delta,
    ...(worst ? { worst } : {}),
    uniform,
    expansiveSteps,
    ...(counterexample ? { counterexample } : {}),
  });
  const labels = (a: number, b: number): [string, string] => [Y.label(a), Y.label(b)];
  if (delta === Infinity) {
    return result(false, 0, {
      y: fx[worst!.x]!,
      yPrime: fx[worst!.xPrime]!,
      labels: labels(fx[worst!.x]!, fx[worst!.xPrime]!),
      reason: 'Delta is infinite',
    });
  }
  // Delta-expansive answer steps.
  const step = new Uint8Array(m * m);
  const from: number[] = [];
  const to: number[] = [];
  const w: number[] = [];
  if (delta > 0)
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const a = Math.min(fx[i]!, fx[j]!);
        const b = Math.max(fx[i]!, fx[j]!);
        if (a === b || step[a * m + b]) continue;
        const dY = Y.distance(a, b);
        const dX = X.distance(i, j);
        if (!Number.isFinite(dX) || !Number.isFinite(dY)) continue;
        if (Math.abs(dY - delta * dX) <= REL_TOL * Math.max(1, dY)) {
          step[a * m + b] = 1;
          from.push(a);
          to.push(b);
          w.push(dY);
        }
      }
  const chains = weightedAllPairs(
    m,
    { from: Int32Array.from(from), to: Int32Array.from(to), weight: Float64Array.from(w) },
    `answer chains of ${Y.spec}`,
  );
  for (let a = 0; a < m; a++)
    for (let b = a + 1; b < m; b++) {
      const d = Y.distance(a, b);
      if (d === Infinity) continue;
      const c = chains[a * m + b]!;
      if (!(c <= d + REL_TOL * Math.max(1, d))) {
        const reason =
          c === Infinity
            ? `no chain of ${delta}-expansive steps joins them`
            : `the shortest chain of ${delta}-expansive steps has length ${c} > d = ${d}`;
        return result(false, from.length, { y: a, yPrime: b, labels: labels(a, b), reason });
      }
    }
  return result(true, from.length);
}
