import { MechError, invalid } from '../../src-shared/errors';
import { assertDenseFits } from '../linalg/matrix';
import type { DatabaseDomain } from './database';
import type { DatabaseQuery } from './database-queries';
import type { Domain } from './domain';
import { bfsAllPairs, hopDistance } from './shortest-paths';

/** Largest V^u enumerated to build an induced answer graph. */
const MAX_ENUMERATED_DATABASES = 2 ** 20;

/**
 * Query-induced answer domain by enumeration (SPEC §1): evaluate f on every
 * database of V^u; answers y ~ y' iff some databases differing in exactly
 * one individual (standard DP adjacency: one value changed, or with ⊥ one
 * individual added/removed) have f(x) = y, f(x') = y'; d = BFS shortest path
 * in that graph (Infinity for answers never produced or not connected).
 * The database's own metric plays no role here. Refuses (too-large) V^u
 * above `maxDatabases`.
 */
export function inducedAnswerDomain(
  db: DatabaseDomain,
  query: DatabaseQuery,
  spec = `${query.name} (enumerated)`,
  maxDatabases = MAX_ENUMERATED_DATABASES,
): Domain {
  const n = db.n;
  if (n > maxDatabases)
    throw new MechError(
      'too-large',
      `enumerating ${db.spec} means ${n} databases; at most ${maxDatabases} are enumerated`,
      { size: n, limit: maxDatabases },
    );
  const m = query.answers;
  assertDenseFits(m, m, `answer graph of ${query.name}`);
  const { u, w } = db.database;
  const answerOf = new Int32Array(n);
  const x = new Int32Array(u);
  for (let i = 0; i < n; i++) {
    db.decode(i, x);
    const y = query.evaluate(x);
    if (!Number.isInteger(y) || y < 0 || y >= m)
      invalid(`query ${query.name} gave answer index ${y} on ${db.label(i)}, expected 0..${m - 1}`);
    answerOf[i] = y;
  }
  const adj = new Uint8Array(m * m);
  const f: number[] = [];
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const yi = answerOf[i]!;
    // neighbours j > i: raise one coordinate's value index
    let rest = i;
    let p = 1;
    for (let c = u - 1; c >= 0; c--) {
      const a = rest % w;
      rest = Math.floor(rest / w);
      for (let b = a + 1; b < w; b++) {
        const yj = answerOf[i + (b - a) * p]!;
        if (yj === yi) continue;
        const lo = Math.min(yi, yj);
        const hi = Math.max(yi, yj);
        if (!adj[lo * m + hi]) {
          adj[lo * m + hi] = 1;
          f.push(lo);
          t.push(hi);
        }
      }
      p *= w;
    }
  }
  const from = Int32Array.from(f);
  const to = Int32Array.from(t);
  const dist = bfsAllPairs(m, from, to, `distance matrix of the answers of ${query.name}`);
  const value = query.answerValue;
  return {
    kind: 'query',
    spec,
    description: `answers of ${query.name} on ${db.spec}, induced-graph distance (enumerated)`,
    n: m,
    label: (y) => query.answerLabel(y),
    ...(value ? { value: (y: number) => value(y) } : {}),
    distance: (a, b) => hopDistance(dist[a * m + b]!),
    structure: { edges: { from, to, weight: new Float64Array(from.length).fill(1) } },
  };
}
